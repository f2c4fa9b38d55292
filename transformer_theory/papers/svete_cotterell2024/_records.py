"""The typed records of the paper's studies, field for field as their files hold them:
``ngram_learnability.json`` (:func:`._study_ngram_learnability.run`), ``ngram.json``
(:func:`._study_ngram.run`), ``ngram_space.json`` (:func:`._study_ngram_space.run`) and the
``ngram_exactness`` experiment's rows (:func:`._study_ngram_exactness.run`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from transformer_theory.jsonio import ABSENT, optional

__all__ = [
    "BetaNeeded",
    "ExactnessResult",
    "ExactnessRow",
    "KLPoint",
    "LearnabilityResult",
    "LearnabilityRow",
    "ModelRecord",
    "NGramResult",
    "SoftRow",
    "SpaceRecord",
    "SpaceResult",
]


@dataclasses.dataclass(frozen=True)
class LearnabilityRow:
    """One cell: the LM (``order`` n, ``alphabet`` |Sigma|, ``rank``: ``"full"`` for Dirichlet
    rows), the training (``steps``, ``final_loss``) and the KL per symbol over the first outcomes
    of the trained model, the unigram fit and the Theorem 3.1 construction."""

    order: int
    alphabet: int
    rank: int | str
    steps: int
    final_loss: float
    kl_per_symbol_trained: float
    kl_per_symbol_unigram: float
    kl_per_symbol_construction: float


@dataclasses.dataclass(frozen=True)
class LearnabilityResult:
    """The study's record: a row per cell (in the grid's order), the seconds so far and the
    settings it ran (their fields, as JSON holds them)."""

    rows: tuple[LearnabilityRow, ...]
    seconds: float
    config: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class ModelRecord:
    """One built model of the ``ngram`` study (:func:`._study_ngram.run`): the settings it was
    built with, its shape (the paper's 3.3: one head, no width), the equivalence check
    (:func:`._theory_equivalence.equivalence_of`'s keys) and then -- hard/sparse -- ``scan``
    with ``predicted_exact_length`` (None where no bound is derived), or -- softmax -- ``kl``;
    the keys a run does not make are absent from the file."""

    construction: str
    attention: str
    precision: str
    order: int
    alphabet: int
    max_len: int
    beta: float | None
    heads: tuple[int, ...]
    width: int | None
    mlp_hidden: int | None
    strings: int
    exhaustive: bool
    max_abs_logprob_diff: float
    tolerance_used: float
    support_mismatches: int
    nan: int
    equivalent: bool
    mass_transformer: float | None
    mass_ngram: float
    scan: dict[str, Any] = optional(ABSENT)
    predicted_exact_length: int | None = optional(ABSENT)
    kl: float = optional(ABSENT)


@dataclasses.dataclass(frozen=True)
class KLPoint:
    """The KL over the first outcomes at one softmax score scale ``beta``."""

    beta: float
    kl: float


@dataclasses.dataclass(frozen=True)
class BetaNeeded:
    """The smallest ``beta`` whose KL reaches the target at one string length (None: even
    ``2^20`` does not)."""

    length: int
    beta: float | None


@dataclasses.dataclass(frozen=True)
class SoftRow:
    """One construction of the softmax study (:func:`._theory_soft.soft_study`)."""

    construction: str
    max_len: int
    kl_by_beta: tuple[KLPoint, ...]
    target_kl: float
    beta_needed: tuple[BetaNeeded, ...]


@dataclasses.dataclass(frozen=True)
class NGramResult:
    """``ngram.json`` (:func:`._study_ngram.run`): whether the run finished, its settings, one
    record per construction and precision and, with softmax attention, the soft study (the key
    is absent without it)."""

    complete: bool
    settings: dict[str, Any]
    records: tuple[ModelRecord, ...]
    soft: tuple[SoftRow, ...] | None = optional()

    @property
    def float64_failures(self) -> list[ModelRecord]:
        """The records that break a theorem's claim (:func:`._theory_ngram.float64_failures`:
        hard or sparse, float64, not weakly equivalent); not a field of ``ngram.json``."""
        from transformer_theory.papers.svete_cotterell2024._theory_ngram import float64_failures

        return float64_failures(self.records)


@dataclasses.dataclass(frozen=True)
class SpaceRecord:
    """One construction at one ``(n, |Sigma|)`` of the size table
    (:func:`._theory_space.space_table`): the counts, the closed forms (``formula``) and whether
    they match, the printed shape and the derived exact length per float format (``exact_to``)."""

    construction: str
    paper: bool
    order: int
    alphabet: int
    histories: int
    width: int
    layers: int
    heads: int
    params: int
    nonzero_structural: int
    table: int
    table_nonzero: int
    significand_bits: int
    exponent_bits: int
    table_bits: int
    formula: dict[str, Any]
    matches: bool
    printed_layers: int
    printed_heads: int
    within_printed: bool
    log2_params: float
    exact_to: dict[str, int | None]


@dataclasses.dataclass(frozen=True)
class SpaceResult:
    """``ngram_space.json`` (:func:`._study_ngram_space.run`): the size records, and whether every
    model's counts equal the closed forms and stay within the printed heads and layers."""

    records: tuple[SpaceRecord, ...]
    all_match: bool
    within_printed: bool


@dataclasses.dataclass(frozen=True)
class ExactnessRow:
    """One run of the ``ngram_exactness`` experiment: its name, how many records it made and how
    many float64 hard/sparse ones are not equivalent (where the theorems claim exactness)."""

    run: str
    records: int
    float64_failures: int


@dataclasses.dataclass(frozen=True)
class ExactnessResult:
    """The ``ngram_exactness`` experiment's record: a row per run made."""

    rows: tuple[ExactnessRow, ...]
