"""The typed records of the ``sanford`` study (:func:`.sanford.run`): ``sanford.json``'s rows
(one :class:`QSARecord` or :class:`MatchRecord` per configuration) and ``disj.json``
(:class:`DisjRecord`); and the rows of the trained studies' ``records.json``
(:class:`QSATrainedRecord` for ``qsa_separation`` and ``qsa_bits_*``, :class:`MatchTrainedRecord`
for ``match_width``); field for field as the files hold them."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from transformer_theory.jsonio import ABSENT, optional

__all__ = [
    "DisjRecord",
    "Match3BoundRow",
    "MatchRecord",
    "MatchTrainedRecord",
    "ProtocolRow",
    "QSARecord",
    "QSATrainedRecord",
    "ReductionRow",
    "SanfordResult",
]

frozen = dataclasses.dataclass(frozen=True)


@frozen
class QSARecord:
    """One qSA configuration (:func:`.._constructions_records.qsa_record`); when no ``m`` up to
    the search's limit reaches ``epsilon`` (``m_min`` None) the fields after ``m_min`` are
    absent."""

    task: Literal["qsa"]
    N: int
    q: int
    d_prime: int
    epsilon: float
    alpha: int | float
    q_log_N: float
    m_min: int | None
    max_error: float = optional(ABSENT)
    exhaustive: bool = optional(ABSENT)
    subsets: int = optional(ABSENT)
    examples: int = optional(ABSENT)
    sampled_max_error: float = optional(ABSENT)
    bits_min: int | None = optional(ABSENT)
    bits_proof: int = optional(ABSENT)
    w_norm_max: float = optional(ABSENT)
    w_norm_bound: float = optional(ABSENT)
    rip_isometry: float | None = optional(ABSENT)
    rip_orthogonality: float | None = optional(ABSENT)
    rip_exhaustive: bool | None = optional(ABSENT)


@frozen
class MatchRecord:
    """One Match configuration (:func:`.._constructions_records.match_record`): the accuracy
    per float format beside whether the format is within the construction's exact range."""

    task: str
    N: int
    M: int
    window: int | None
    examples: int
    exhaustive: bool
    positive_rate: float
    accuracy_by_dtype: dict[str, float]
    accuracy: float
    scale_log2: int | float
    within_exact_range: dict[str, bool]
    smallest_exact: str | None
    smallest_exact_mantissa_bits: int | None


@frozen
class ReductionRow:
    """The reduction of DISJ to qSA at one ``q``
    (:func:`.._theory_disjointness.reduction_record`)."""

    q: int
    N: int
    pairs: int
    equivalence_holds: bool
    decided: bool
    gap: str
    gap_is_2_over_q: bool


@frozen
class ProtocolRow:
    """The one-layer unit as a DISJ protocol at one ``q``
    (:func:`.._theory_disjointness.protocol_table`)."""

    q: int
    N: int
    m: int
    p: int | None
    message_bits: int | None
    grid_bits: int | float | None
    disj_bits: int
    unit_error: float
    unit_within_eps: bool
    pairs: int
    distinct_messages: int
    decides_all: bool
    margin: float | None
    wrong_margin: float | None
    wrong_pair: dict[str, Any] | None
    wrong_pairs: int
    collision: Any


@frozen
class Match3BoundRow:
    """Where Match3's one-layer bound binds at one size
    (:func:`._theory_disjointness.match3_bound_table`)."""

    source: str
    M: int
    N: int
    m: int
    p: int
    H: int
    m_p_H: int
    N_over_loglogN: float
    c_needed: float
    c_needed_m_1: float


@frozen
class DisjRecord:
    """``disj.json``: the reduction, the protocol and the Match3 bound table."""

    reduction: tuple[ReductionRow, ...]
    protocol: tuple[ProtocolRow, ...]
    match3_bound: tuple[Match3BoundRow, ...]


@frozen
class SanfordResult:
    """What :func:`.sanford.run` returns: the rows of ``sanford.json`` and, with ``disj``, the
    record of ``disj.json``."""

    rows: tuple[QSARecord | MatchRecord, ...]
    disj: DisjRecord | None


@frozen
class QSATrainedRecord:
    """One trained qSA network (:func:`.._models_separations.qsa_trained_record`) and the seconds
    since its sweep started: its bounds (``threshold``, ``bits_needed``; ``None`` where none
    applies), what a quantized one can hold (``message_bits``) and its held-out errors."""

    task: Literal["qsa"]
    model: str
    N: int
    q: int
    d_prime: int
    width: int
    params: int
    threshold: float | None
    bits: int | None
    message_bits: float | None
    bits_needed: float | None
    steps: int
    examples: int
    final_loss: float
    mean_max_error: float
    max_error: float
    epsilon: float
    within_epsilon: float
    zero_error: float
    exhaustive: bool
    seconds: float


@frozen
class MatchTrainedRecord:
    """One trained Match model (:func:`.._models_match.train_match_model`) and the seconds since
    its sweep started: the held-out accuracies beside the majority baseline."""

    task: str
    N: int
    M: int
    depth: int
    heads: int
    qk_dim: int
    steps: int
    final_loss: float
    accuracy: float
    sequence_accuracy: float
    positive_rate: float
    majority_baseline: float
    seconds: float
