"""Iterated function composition with chain of thought against Peng, Narayanan & Papadimitriou
2024, Theorem 2 (a transformer layer needs ``Omega(sqrt(n / (H d p)))`` CoT steps): one-layer
causal transformers (``H`` heads, embedding ``d``, weights and activations fake-quantized to ``p``
bits, ``p = 32`` = float32) trained with teacher forcing to write ``S = K / s`` CoT tokens (stride
``s``: each token ``s`` composition steps further) and evaluated autoregressively; per ``(n, H,
d, p)`` the fewest steps ``S`` whose answer accuracy reaches the target, plotted against
``sqrt(n / (H d p))`` (:mod:`transformer_theory.papers.peng2024._models_cot`).

With ``K = 2`` the stride-2 model answers ``g(f(x))`` in one pass: Theorem 1's setting, run by
:mod:`.composition_bound`.

Command (this machine, 2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/composition_cot.py --out results/composition_cot

Measured (2026-11-25, default size: K = 4 functions, strides 1, 2, 4 = 4, 2, 1 CoT steps, n = 4,
8, 16, one head, cells (d, p) = (2, 4) and (8, 8), 800 Adam steps of 128 prompts at 1e-2, 1,000
held-out prompts evaluated autoregressively, target answer accuracy 0.9; 27 min 20 s wall, 3 min
26 s of CPU, on 2 shared cores at load average ~25). Answer accuracy at 4 / 2 / 1 CoT steps:

- d = 8, p = 8: n = 4: 1.000 / 0.534 / 0.557 (needs 4 steps; sqrt(n / (H d p)) = 0.25);
  n = 8: 1.000 / 0.319 / 0.318 (4 steps; 0.35); n = 16: 0.765 / 0.117 / 0.117 (none; 0.5; the
  first CoT token is right 99% of the time, the error compounds over the four);
- d = 2, p = 4: n = 4: 0.365 / 0.372 / 0.493; n = 8: 0.131 / 0.157 / 0.159; n = 16: 0.064 /
  0.070 / 0.073 (none at any n; chance 1 / n; sqrt = 0.71, 1.0, 1.41).

So with this recipe a one-layer model composes only by one lookup per CoT token (stride 1) and
only when ``d p`` is large enough for that lookup; writing fewer tokens (two hops per pass) never
trains much past guessing the most frequent value of the last table (accuracy 0.53, 0.32, 0.19
at n = 4, 8, 16: a numpy simulation of 200,000 random tables). The steps needed are K = 4 wherever
any are enough. Twice the budget (1,600 steps, 500 held-out prompts; ``cot.cot_record(16, 4, 1,
1, 8, 8, steps=1600, held_out=500)``, 2026-11-25) takes n = 16, d = 8, p = 8 at 4 steps to
accuracy 1.000, so its "none" above is the budget's; the same budget leaves n = 4, d = 2, p = 4 at
0.346 (``cot.cot_record(4, 4, 1, 1, 2, 4, steps=1600, held_out=500)``).
Committed: ``experiments/results/peng2024_composition_cot.json`` (records and summary).

What it can and cannot show: the theorem's ``Omega`` hides an unspecified constant, so no
measured count can confirm or contradict it at these sizes (the counts found, 4, lie above
``sqrt(n / (H d p)) <= 0.35`` at those cells, which any count >= 1 would); a measured count is
an upper bound on the steps THIS recipe (architecture, optimizer, budget) needs, not on what any
one-layer model needs, and a stride that fails to train shows only that this recipe did not find
a solution.

Writes ``records.json`` (after each run), ``summary.json`` and ``composition_cot.png``.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.papers.peng2024._models_cot import _check_stride

__all__ = ["SIZES", "CoTSettings", "get_config"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> CoTSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = CoTSettings()
    if size == "smoke":  # one model writing 2 CoT tokens; the one-pass path: composition_bound
        config = dataclasses.replace(
            config,
            ns=(4,),
            functions=2,
            strides=(1,),
            cells=((1, 4, 4),),
            steps=3,
            held_out=50,
        )
    return config


@dataclasses.dataclass(frozen=True)
class CoTSettings:
    """The chain-of-thought sweep: every ``ns x cells x strides`` (``cells``: ``(H, d, p)``, ``p =
    32`` is float32), ``functions`` composed, ``steps`` Adam steps of ``batch``; ``target`` is the
    answer accuracy that counts as solved."""

    ns: tuple[int, ...] = (4, 8, 16)
    functions: int = 4
    strides: tuple[int, ...] = (1, 2, 4)
    cells: tuple[tuple[int, int, int], ...] = ((1, 2, 4), (1, 8, 8))
    steps: int = 800
    batch: int = 128
    learning_rate: float = 1e-2
    held_out: int = 1000
    target: float = 0.9
    seed: int = 0

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        for name in ("functions", "steps", "batch", "learning_rate", "held_out"):
            _validate.check_positive(name, getattr(self, name))
        if not 0 < self.target <= 1:
            raise ValueError(f"target: expected an accuracy in (0, 1], got {self.target}")
        for s in self.strides:
            _check_stride(self.functions, s)
        for h, d, p in self.cells:
            if min(h, d) < 1 or p < 2:
                raise ValueError(f"cells: expected (H >= 1, d >= 1, p >= 2), got {(h, d, p)}")
        if min(self.ns) < 2:
            raise ValueError(f"ns: expected domain sizes >= 2, got {list(self.ns)}")
        if self.seed < 0:  # numpy seeds are non-negative
            raise ValueError(f"seed: expected an integer >= 0, got {self.seed}")
