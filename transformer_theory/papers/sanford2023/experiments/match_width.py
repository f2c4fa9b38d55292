"""Training one softmax layer on Match2 and Match3 (the tasks of Sanford, Hsu & Telgarsky 2023):
one-layer transformers of growing query/key width on Match2 and on Match3 (same N, M), and a
two-layer one on Match3Bigram for contrast; held-out accuracy (per position) against the width.

This is a TRAINABILITY result, not a test of the Match3 impossibility theorem. The theorem (no
one-layer unit when ``m <= c N / (p H log log N)``, for sufficiently large N) says nothing here:
at N = 8, p = 32, H = 2 the right side is ``c * 8 / (64 * log log 8) = 0.17 c`` (natural logs;
0.08 c in base 2), below 1 unless the theorem's unspecified constant ``c`` exceeds 5.8. And one
layer of this residual width (``M + 16 >= M = 64``) can represent Match3: uniform attention over
one-hot tokens writes the token histogram into every position, and ``Match3(X)_i`` is a fixed
function of (``x_i``, histogram) on a finite set, which a wide enough ReLU MLP computes (the
models here have 64 hidden units; whether that is enough is not shown). Two layers of width 3
represent Match3Bigram exactly
(:func:`transformer_theory.papers.sanford2023.match3bigram_construction`). So a model
at the majority baseline shows that Adam did not find a solution at this budget, nothing more.

Models are the library's ONE parameter format (``init_params``; one-hot tokens, no positions, as
the tasks are permutation-invariant, an MLP after attention) read out at EVERY position through
``w_o`` applied to the last residual stream; Adam (Optax) on fresh balanced samples each step.

Command (this machine, 2 shared CPU cores; ``--size smoke`` runs a few steps for the test)::

    python experiments/sanford_match_width.py --out results/sanford_match_width

took 2 min 46 s (N = 8, M = 64, 2 heads, widths 1, 4, 16, 1500 Adam steps of 128 sequences) and
gave held-out per-position accuracy (majority baseline in brackets): Match2, one layer: 0.9987,
0.9998, 1.0000 (0.569); Match3, one layer: 0.645, 0.648, 0.648 (0.650) -- the majority answer at
every width; Match3Bigram, two layers: 0.664, 0.665, 0.666 (0.594) -- above the baseline but far
from the exact depth-2 construction, which training did not find in this budget (representable,
not learned: a trainability result).

The larger sweep (1 and 4 heads, widths up to 64; 16 models)::

    python experiments/sanford_match_width.py --size large --out results/match_width_large

took 11 min 29 s (cores shared with three other jobs) and gave, at m = 1, 4, 16, 64: Match2, 1
head: 0.9988, 0.9993, 1.0000, 1.0000; 4 heads: 0.9970, 1.0000, 1.0000, 1.0000 (baseline 0.569).
Match3, 1 head: 0.639, 0.637, 0.635, 0.649; 4 heads: 0.645, 0.657, 0.656, 0.662 (baseline 0.650;
sequence accuracy 0.046 at 4 heads, m = 64): four times the heads and 64 times the width move
Match3 by at most 1.2 points above the majority answer, while Match2 is exact from m = 4. Match3
is not learned by one trained layer here; that it cannot be represented is NOT shown.

Writes ``records.json`` (after each run) and ``match_width.png``.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.papers.sanford2023._models_match import DEPTHS

__all__ = ["SIZES", "MatchWidthSettings", "get_config"]

SIZES = ("smoke", "default", "large")


def get_config(size: str = "default") -> MatchWidthSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` runs in seconds (the test),
    ``"default"`` is the run quoted above, ``"large"`` the larger sweep."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = MatchWidthSettings()
    if size == "smoke":
        config = dataclasses.replace(config, seq_len=6, modulus=16, steps=2, widths=(2,))
    elif size == "large":
        config = dataclasses.replace(
            config, tasks=("match2", "match3"), heads=(1, 4), widths=(1, 4, 16, 64)
        )
    return config


@dataclasses.dataclass(frozen=True)
class MatchWidthSettings:
    """The Match width sweep: every ``tasks x heads x widths`` at ``N = seq_len``, ``M =
    modulus``, ``steps`` Adam steps of ``batch`` sequences."""

    seq_len: int = 8
    modulus: int = 64
    tasks: tuple[str, ...] = ("match2", "match3", "match3bigram")
    widths: tuple[int, ...] = (1, 4, 16)
    heads: tuple[int, ...] = (2,)
    steps: int = 1500
    batch: int = 128
    seed: int = 0

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        for name in ("seq_len", "modulus", "steps", "batch"):
            _validate.check_positive(name, getattr(self, name))
        unknown = [t for t in self.tasks if t not in DEPTHS]
        if not self.tasks or unknown:
            raise ValueError(f"tasks: choose from {', '.join(DEPTHS)}, got {list(self.tasks)}")
