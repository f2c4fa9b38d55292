"""The registry of the checked constructions: one frozen :class:`Unit` per name the ``sanford``
command accepts, so the study (:mod:`._checks`, the ``sanford`` experiment) and the command
dispatch by lookup, never by chains over task names.

Every Match unit names the specification it computes (:data:`~.tasks.MATCH_TASKS`), its named
sizes (``N``, ``M`` and, for Match3Local, the window ``K``), how to build it in a dtype and run
it, what one sequence costs, and the scale it must resolve (:func:`exact_scale`). ``qsa`` is the
q-sparse averaging unit, whose sizes are ``N``, ``q`` and ``eps`` (:mod:`.qsa`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from transformer_theory.papers.sanford2023 import _constructions_match2 as m2
from transformer_theory.papers.sanford2023 import _constructions_match3 as m3
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.params import ModelParams

__all__ = ["NAMES", "QSA_SIZES", "UNITS", "Unit", "exact_scale", "unit"]


@dataclasses.dataclass(frozen=True)
class Unit:
    """One Match construction of the registry :data:`UNITS`.

    Attributes:
      name: what ``--task`` calls it.
      task: the specification its predictions are checked against (:data:`~.tasks.MATCH_TASKS`).
      build: ``(N, M, K, dtype) -> params``.
      apply: ``(params, x_BxN, M, K) -> bool (B, N)``.
      hidden: ``(N, M, K) ->`` the MLP width (what one sequence's activations cost).
      width: the residual-stream width (an upper bound where it grows with ``K``).
      scale_log2: ``(N, M, K) -> log2`` of the largest number the unit must resolve.
    """

    name: str
    task: str
    build: Callable[[int, int, int, object], ModelParams]
    apply: Callable[[ModelParams, np.ndarray, int, int], np.ndarray]
    hidden: Callable[[int, int, int], int]
    width: int
    scale_log2: Callable[[int, int, int], float]

    @property
    def windowed(self) -> bool:
        """Whether the window ``K`` is one of the unit's sizes."""
        return ts.MATCH_TASKS[self.task].windowed

    @property
    def sizes(self) -> tuple[str, ...]:
        """The named size fields of one configuration: ``N``, ``M`` (and ``K``)."""
        return ts.MATCH_TASKS[self.task].sizes

    def window_of(self, window: int) -> int:
        """``K`` where the unit has a window, else 0 (what its sizes depend on)."""
        return int(window) if self.windowed else 0


#: The named sizes of one qSA configuration.
QSA_SIZES = ("N", "q", "eps")

#: The Match units by name.
UNITS: dict[str, Unit] = {
    "match2": Unit(
        "match2",
        "match2",
        lambda n, m, k, dt: m2.match2_construction(n, m, dt),
        lambda p, x, m, k: m2.match2_apply(p, x, m),
        lambda n, m, k: 2,
        6,
        m2.match2_scale_log2,
    ),
    "match3bigram": Unit(
        "match3bigram",
        "match3bigram",
        lambda n, m, k, dt: m3.match3bigram_construction(n, m, dt),
        lambda p, x, m, k: m3.match3bigram_apply(p, x, m),
        lambda n, m, k: 2 * m,
        14,
        m3.match3bigram_scale_log2,
    ),
    "match3local": Unit(
        "match3local",
        "match3local",
        m3.match3local_construction,
        m3.match3local_apply,
        lambda n, m, k: 9 * (2 * k + 1) * (2 * k + 2) // 2,
        64,
        m3.match3local_scale_log2,
    ),
    # the same task with ONE head of query/key width 4K + 4 (our single-unit construction)
    "match3local1": Unit(
        "match3local1",
        "match3local",
        m3.match3local_single_construction,
        m3.match3local_single_apply,
        lambda n, m, k: 9 * 2 * (2 * k + 1) * (2 * k + 1) * (2 * k + 2) // 2,
        64,
        m3.match3local_scale_log2,
    ),
}

#: Every name the ``sanford`` command checks: qSA, then the Match units.
NAMES: tuple[str, ...] = ("qsa", *UNITS)


def unit(name: str) -> Unit:
    """The Match unit called ``name``; ``ValueError`` naming ``task`` otherwise."""
    if name not in UNITS:
        raise ValueError(f"task: expected one of {tuple(UNITS)}, got {name!r}")
    return UNITS[name]


def exact_scale(task: str, seq_len: int, modulus: int, window: int = 1) -> float:
    """The largest number the ``task`` construction must resolve to one part in itself, as
    ``log2`` (a float even where ``M`` is beyond int64): ``c = M^2 log(6N)`` for Match2 and
    Match3Bigram (a score ``c cos(2 pi s / M)`` must tell ``s = 0`` from ``s = 1``, a difference of
    ``2 pi^2 log(6N)`` against a rounding of ``c`` times the format's unit), and for Match3Local the
    larger of the integer sums ``x_i + x_a + x_b < 3M`` and the positional scale ``c_1``.

    A format with ``p`` significand bits
    (:func:`transformer_theory.precision.significand_bits`) is within its exact range when this
    is ``<= p``; beyond it the construction is not guaranteed (float32 measured: exact at ``c ~
    5.5e6 < 2^24``, 0.889 at ``c ~ 1e8``, README), so a float64 miss there is a precision limit,
    not a failed construction, and ``transformer-theory sanford`` refuses such sizes. The
    condition is necessary, not sufficient: other roundings can miss inside it (Match3Bigram at
    N = 3, M = 9 in bfloat16, scale 2^7.9 <= 2^8: 0.849 on 500 samples, 2026-11-24).
    """
    if task not in UNITS:
        raise ValueError(f"task: expected match2, match3bigram or match3local, got {task!r}")
    return UNITS[task].scale_log2(seq_len, modulus, window)
