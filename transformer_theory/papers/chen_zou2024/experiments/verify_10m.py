"""The affine-form check (Props. 8/10, all dependences at once) streamed over 10^7+ sequences.

Command (the whole dataset is never materialized):

    python experiments/verify_10m.py --n-q 8 --n-a 8 --k 4 --models 2 --family relu-3h
    transformer-theory experiment verify_10m --out results/verify_10m  # the same, its defaults

``InContextQA(8, 8, 4)`` has A(8,4)^2 * 4 = 11,289,600 sequences (N = 14, V = 17). Measured on
2026-11-23 (2 CPU cores, otherwise idle, seed 0), default ``--method normal`` (exact integer Gram
counts in a worker thread beside the models' device calls, exact rational solve, a residual pass;
first layer by table lookups; the next chunk generated while the current one is evaluated): rank
64, 11,289,536 independent dependences tested at once, max residual 2.855e-13 (tolerance
1.57e-11, in scope), 25.6 s and 28.3 s in two runs (27.5 / 30.3 s for the whole process, 43-47 s
CPU), peak RSS 0.35 GB -- memory is independent of the dataset size (formula in
``theory.checks``). The same code with the counts on the main thread: 36.6 s; before the
lookups and the exact counts (``--method qr``, dense TSQR, general first layer): 281 s, residual
1.349e-13. The control family (``--family relu-mlp --limit 1000000``) gives 2.41e-2.
``limit`` runs a prefix for a quick look; ``--size smoke`` a few thousand sequences (a test
runs it). The study (:mod:`.._study_verify_10m`) computes in float64 (``X64``) and writes
``verify_10m.json`` (:class:`~.._study_verify_10m.Verify10MRecord`).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from transformer_theory.settings import check_minimums, setting
from transformer_theory.theory import checks

__all__ = ["SIZES", "X64", "Verify10MSettings", "get_config"]

SIZES = ("smoke", "default")
X64 = True  # the verification runs in float64


@dataclasses.dataclass(frozen=True)
class Verify10MSettings:
    """The streamed affine-form check of one task and one model family.

    Attributes:
      n_q: InContextQA's questions.
      n_a: InContextQA's answers.
      k: InContextQA's pairs per sequence.
      models: random models of the family, checked at once.
      family: the model family (a name of theory.checks.FAMILIES).
      chunk_size: sequences per streamed chunk.
      limit: only the first LIMIT sequences (none: every sequence).
      seed: seed of the random models.
      method: normal (exact integer Gram counts, exact rational solve) or qr (dense TSQR).
    """

    n_q: int = setting(8, positive=True)
    n_a: int = setting(8, positive=True)
    k: int = setting(4, positive=True)
    models: int = setting(2, positive=True)
    family: str = "relu-3h"
    chunk_size: int = setting(8192, positive=True)
    limit: int | None = setting(None, positive=True)
    seed: int = setting(0, minimum=0)
    method: Literal["normal", "qr"] = "normal"

    def __post_init__(self) -> None:
        check_minimums(self)
        if self.family not in checks.FAMILIES:
            raise ValueError(
                f"family: expected one of {', '.join(checks.FAMILIES)}, got {self.family!r}"
            )


def get_config(size: str = "default") -> Verify10MSettings:
    """``"default"``: InContextQA(8, 8, 4), 11,289,600 sequences (the measured run above);
    ``"smoke"``: InContextQA(3, 3, 2) in chunks of 32, seconds (a test runs it)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    if size == "smoke":
        return Verify10MSettings(n_q=3, n_a=3, k=2, chunk_size=32)
    return Verify10MSettings()
