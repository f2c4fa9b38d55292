"""Function composition against Peng, Narayanan & Papadimitriou 2024, Theorem 1, at a controlled
precision: one-layer and two-layer transformers (``H`` heads, embedding ``d``) whose weights and
activations are fake-quantized to ``p`` bits while they train and when they are evaluated
(symmetric uniform rounding, max-abs scale, straight-through estimator:
:func:`transformer_theory.precision.fake_quantize`), or kept in float32 (``p = 32``), trained
with Adam (Optax) on ``g(f(a))`` prompts. The plot puts the held-out error against the bound
``R / (3 n log n)``, ``R = n log n - H (d + 1) p``: a one-layer point must lie on or above the
diagonal; the two-layer model is not covered by the bound.

Unlike ``composition_one_layer.py`` (the library's one-hot parameter format, whose residual width
is ``vocabulary + positions + d``), the model here has a true embedding of width ``d``, so the
``d`` of the bound is the width of everything one position sends.

Command (this machine, 2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/composition_depth.py --out results/composition_depth

Measured (n = 16, H = 1, 2000 Adam steps, 2000 held-out prompts, chance error 15/16 = 0.9375;
the run was stopped after 29 of its 32 models, 35 min on 2 shared cores: the two-layer d = 16 at
p = 4, 8, 32 are missing). Held-out error (bound in brackets):

- one layer, d = 2: p = 2, 4, 8, 32: 0.939 (0.302), 0.933 (0.271), 0.910 (0.208), 0.903 (0);
- one layer, d = 4: 0.943 (0.281), 0.913 (0.229), 0.889 (0.125), 0.889 (0);
- one layer, d = 8: 0.938 (0.240), 0.868 (0.146), 0.848 (0), 0.852 (0);
- one layer, d = 16: 0.938 (0.156), 0.843 (0), 0.827 (0), 0.824 (0);
- two layers, d = 2: 0.938, 0.918, 0.895, 0.893; d = 4: 0.938, 0.896, 0.902, 0.903;
  d = 8: 0.932, 0.874, 0.854, 0.860; d = 16, p = 2: 0.938.

No model at this budget learns the task (errors 0.82-0.94; p = 2 at chance at every width), and
the two layers do no better, so this run shows neither the depth separation nor anything about
the bound: a run that never learns says nothing about the best error a model of that size can
reach, and an error above a lower bound is what any model gives (the bound is 0, i.e. void, once
``H (d + 1) p >= n log n = 64``, which is every p = 32 cell). What was measured is only that
these training runs did not learn composition at n = 16 in 2,000 steps. A test of the bound needs
n large enough that ``R > 0`` with room and models trained to convergence; that was not run.

Writes ``records.json`` (after each run) and ``composition_depth.png``.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate

__all__ = ["SIZES", "CompositionDepthSettings", "get_config"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> CompositionDepthSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = CompositionDepthSettings()
    if size == "smoke":  # the quantized path; depth 2 only repeats the block
        config = dataclasses.replace(config, n=4, steps=2, held_out=200, runs=((1, 2, 4),))
    return config


@dataclasses.dataclass(frozen=True)
class CompositionDepthSettings:
    """The quantized composition sweep: every ``layers x widths x bits`` (``32`` = float32, no
    rounding), ``heads`` heads, domains of ``n``."""

    n: int = 16
    heads: int = 1
    widths: tuple[int, ...] = (2, 4, 8, 16)
    bits: tuple[int, ...] = (2, 4, 8, 32)
    layers: tuple[int, ...] = (1, 2)
    steps: int = 2000
    held_out: int = 2000
    seed: int = 0
    runs: tuple[tuple[int, int, int], ...] | None = None  # explicit (layers, d, p), else all

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        for name in ("heads", "steps", "held_out"):
            _validate.check_positive(name, getattr(self, name))
        if any(b < 2 for b in self.bits):
            raise ValueError(f"bits: expected every p >= 2, got {list(self.bits)}")
        if self.n < 2:
            raise ValueError(f"n: expected a domain size >= 2 (log n > 0), got {self.n}")

    def grid(self) -> list[tuple[int, int, int]]:
        """The ``(layers, d, p)`` of every run."""
        if self.runs is not None:
            return list(self.runs)
        return [(a, d, b) for a in self.layers for d in self.widths for b in self.bits]
