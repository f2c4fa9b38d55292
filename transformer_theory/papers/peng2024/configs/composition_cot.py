"""Iterated function composition with chain of thought against Peng, Narayanan & Papadimitriou
2024, Theorem 2 (a transformer layer needs ``Omega(sqrt(n / (H d p)))`` CoT steps): one-layer
causal transformers (``H`` heads, embedding ``d``, weights and activations fake-quantized to ``p``
bits, ``p = 32`` = float32) trained with teacher forcing to write ``S = K / s`` CoT tokens (stride
``s``: each token ``s`` composition steps further) and evaluated autoregressively; per ``(n, H,
d, p)`` the fewest steps ``S`` whose answer accuracy reaches the target, plotted against
``sqrt(n / (H d p))`` (:mod:`transformer_theory.papers.peng2024.cot`).

With ``K = 2`` the stride-2 model answers ``g(f(x))`` in one pass: Theorem 1's setting, so the same
sweep is Theorem 1's comparison in the table form of the prompt.

Command (this machine, 2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/composition_cot.py --out results/composition_cot

Result: not yet measured (the default run is in progress).

What it can and cannot show: the theorem's ``Omega`` hides an unspecified constant, so no
measured count can confirm or contradict it at these sizes; a measured count is an upper bound on
the steps THIS recipe (architecture, optimizer, budget) needs, not on what any one-layer model
needs, and a stride that fails to train shows only that this recipe did not find a solution.

Writes ``records.json`` (after each run), ``summary.json`` and ``composition_cot.png``.
"""

from __future__ import annotations

import dataclasses

from transformer_theory.papers.peng2024.cot import CoTConfig
from transformer_theory.papers.peng2024.cot import run_composition_cot as run  # noqa: F401 (run by name)

__all__ = ["SIZES", "get_config", "run"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> CoTConfig:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = CoTConfig()
    if size == "smoke":
        config = dataclasses.replace(
            config,
            ns=(4,),
            functions=2,
            strides=(1, 2),
            cells=((1, 4, 4),),
            steps=3,
            held_out=50,
        )
    return config
