"""Function composition (Peng, Narayanan & Papadimitriou 2024, Theorem 1): train one-layer and
two-layer softmax transformers (``H`` heads, width ``d``) on ``g(f(a))`` prompts and compare the
held-out error, evaluated in float32 and bfloat16, with the bound ``R / (3 n log n)``, ``R = n log n
- H (d + 1) p`` (``p`` = the format's bits: 32 / 16). The bound covers one layer only.

Models are the library's ONE parameter format (one-hot tokens plus one-hot positions, classifier
at the last position, ``forward``); Adam (Optax) on fresh prompts each step.

Command (this machine, 2 shared CPU cores; ``--size smoke`` for the test)::

    python experiments/composition_one_layer.py --out results/composition

Result (partial: the run was stopped after 198 s, when the one-layer widths 1 and 4 were done, to
free the shared cores; widths 16 and the two-layer models were not measured): n = 16, H = 1,
800 steps, chance error 0.9375. d = 1: error 0.8125 in float32 (bound 0: R <= 0) and 0.812 in
bfloat16 (bound 0.167); d = 4: 0.811 / 0.8105 (bounds 0 / 0). The measured errors lie far above
the lower bound, which is void (R <= 0) for every realistic format once d >= 4 at this n.

Writes ``records.json`` (after each run) and ``composition.png``.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate

__all__ = ["SIZES", "OneLayerSettings", "get_config"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> OneLayerSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = OneLayerSettings()
    if size == "smoke":
        config = dataclasses.replace(config, n=4, steps=2, widths=(2,))
    return config


@dataclasses.dataclass(frozen=True)
class OneLayerSettings:
    """The library-format composition sweep: ``depths x widths``, ``heads`` heads, domains of
    ``n``, ``steps`` Adam steps of ``batch`` prompts."""

    n: int = 16
    depths: tuple[int, ...] = (1, 2)
    widths: tuple[int, ...] = (1, 4, 16)
    heads: int = 1
    steps: int = 800
    batch: int = 128
    seed: int = 0

    def __post_init__(self) -> None:
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        for name in ("n", "heads", "steps", "batch"):
            _validate.check_positive(name, getattr(self, name))
