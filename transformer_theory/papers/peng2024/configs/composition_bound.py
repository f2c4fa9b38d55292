"""Function composition against Peng, Narayanan & Papadimitriou 2024, Theorem 1, made informative:
one-layer transformers (``H`` heads, embedding ``d``, weights and activations fake-quantized to
``p`` bits, ``p = 32`` = float32) answer ``g(f(x))`` in ONE pass, in the table form of the prompt
(:mod:`transformer_theory.papers.peng2024.cot`, ``K = 2``, stride 2), at cells where the bound
``R / (3 n log n)``, ``R = n log2 n - H (d + 1) p``, is void (``R <= 0``) and cells where ``R > 0``,
with ONE recipe (Adam 3e-3 with a cosine decay, 4,000 steps of 128 prompts) that does learn the
task where the bound is void; so its failure where ``R > 0`` is the recipe meeting the bound, not a
recipe that learns nothing anywhere.

Command (this machine, 2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/composition_bound.py --out results/composition_bound

Result: not yet measured (the default run is in progress).

Writes ``records.json`` (after each run) and ``composition_bound.png`` (error against the bound).
"""

from __future__ import annotations

import dataclasses

from transformer_theory.papers.peng2024.cot import CoTConfig
from transformer_theory.papers.peng2024.cot import run_composition_bound as run  # noqa: F401 (run by name)

__all__ = ["SIZES", "get_config", "run"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> CoTConfig:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = CoTConfig(
        ns=(4,),
        functions=2,
        strides=(2,),
        cells=((5, 16, 32), (5, 16, 4), (1, 2, 2), (1, 1, 2)),
        steps=4000,
        learning_rate=3e-3,
    )
    if size == "smoke":
        config = dataclasses.replace(config, cells=((1, 1, 2),), steps=3, held_out=50)
    return config
