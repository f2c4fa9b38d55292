"""The records the formal-language studies write and return, typed: the table's row records
(``languages_<row>.json``, ``languages.json``: :class:`LanguageRow`, one :class:`LengthEntry` per
length checked), PARITY's precision sweep (``parity_precision.json``:
:class:`ParityPrecisionRow`), what the table's study returns (:class:`LanguagesResult`), and the
generalization study's models (``languages_generalization.json``: :class:`GeneralizationResult`,
one :class:`GeneralizationRecord` per model), and the Dyck-(k, D) study's (``dyck_k.json``:
:class:`DyckKRecord`, one :class:`DyckKEntry` per length; :class:`DyckKMarginRow` per length and
format of the margin sweep; :class:`DyckKResult`, what it returns).
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = [
    "DyckKEntry",
    "DyckKMarginRow",
    "DyckKRecord",
    "DyckKResult",
    "GeneralizationRecord",
    "GeneralizationResult",
    "LanguageRow",
    "LanguagesResult",
    "LengthEntry",
    "ParityPrecisionRow",
]


@dataclasses.dataclass(frozen=True)
class LengthEntry:
    """One length of a row record (``by_length``): the strings checked there, how many are
    members, whether they are every string of the length (else samples), the accuracy and the
    smallest signed margin (positive = right)."""

    length: int
    strings: int
    members: int
    exhaustive: bool
    accuracy: float
    min_margin: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class LanguageRow:
    """One row of the table (:func:`._theory_table.row_record`; ``languages_<name>.json``): the
    language, the construction and how it attends, where it comes from, the format, the lengths
    and strings checked, accuracy, smallest signed margin and one :class:`LengthEntry` per
    length checked."""

    language: str
    construction: str
    attention: str
    positional: str
    source: str
    dtype: str
    lengths_checked: tuple[int, ...]
    exhaustive_up_to: int
    strings_checked: int
    accuracy: float
    min_margin: float
    by_length: tuple[LengthEntry, ...]


@dataclasses.dataclass(frozen=True)
class ParityPrecisionRow:
    """One length, format and LayerNorm choice of PARITY's sweep
    (:func:`._theory.parity_precision_records`; ``parity_precision.json``)."""

    n: int
    dtype: str
    layer_norm: bool
    strings: int
    accuracy: float
    min_margin: float
    max_cross_entropy_bits: float
    mean_cross_entropy_bits: float


@dataclasses.dataclass(frozen=True)
class LanguagesResult:
    """What the table's study (:func:`._study_languages.run`) returns.

    Attributes:
      rows: the table's rows (:func:`._study_languages.row_table`).
      records: the row records (``languages.json``), one per construction.
      precision: PARITY's sweep records (``parity_precision.json``).
      failed: a recognizer misclassified a string.
      interrupted: Ctrl-C stopped the run (then the records hold the finished part, written to
        ``out_dir``, and no figure is drawn).
    """

    rows: tuple[dict[str, Any], ...]
    records: tuple[LanguageRow, ...]
    precision: tuple[ParityPrecisionRow, ...]
    failed: bool
    interrupted: bool


@dataclasses.dataclass(frozen=True)
class GeneralizationRecord:
    """One model of the generalization study (``languages_generalization.json``'s ``records``):
    its language and label, training seed (``None``: not trained), training and evaluation
    lengths, accuracy at each evaluation length, final loss (mean of the last 20 steps) and
    steps (both ``None`` for a model nobody trained)."""

    language: str
    model: str
    seed: int | None
    train_lengths: tuple[int, ...]
    eval_lengths: tuple[int, ...]
    accuracy: tuple[float, ...]
    final_loss: float | None
    steps: int | None


@dataclasses.dataclass(frozen=True)
class GeneralizationResult:
    """What the generalization study returns and writes (``languages_generalization.json``): one
    :class:`GeneralizationRecord` per model, the seconds it took, and its settings (the
    experiment's ``GeneralizationSettings``, written field by field)."""

    records: tuple[GeneralizationRecord, ...]
    seconds: float
    settings: Any


@dataclasses.dataclass(frozen=True)
class DyckKEntry(LengthEntry):
    """One length of a Dyck-(k, D) record (``by_length``): a :class:`LengthEntry` and the
    members' largest distance from ``1/(4n)``, the non-members' largest excess over
    ``-3/(4n)``, the float error allowed and whether both are within it."""

    member_margin_error: float
    nonmember_excess: float
    tolerance: float
    derived: bool


@dataclasses.dataclass(frozen=True)
class DyckKRecord:
    """One recognizer, ``k`` and depth checked against the stack (``dyck_k.json``'s ``records``,
    :func:`._theory_dyck_k.dyck_k_record`): totals over its :class:`DyckKEntry` lengths and,
    for the hard recognizer, the largest difference from leftmost-hard attention (else
    ``None``)."""

    k: int
    depth: int
    attention: str
    dtype: str
    layers: int
    exhaustive_up_to: int
    sampled_lengths: tuple[int, ...]
    strings_checked: int
    accuracy: float
    min_margin: float
    min_margin_times_n: float
    derived: bool
    leftmost_max_difference: float | None
    by_length: tuple[DyckKEntry, ...]


@dataclasses.dataclass(frozen=True)
class DyckKMarginRow:
    """One length and float format of the Dyck-(k, D) margin sweep (``dyck_k.json``'s
    ``precision``, :func:`._theory_dyck_k.margin_row`)."""

    k: int
    depth: int
    n: int
    dtype: str
    attention: str
    strings: int
    accuracy: float
    min_margin: float
    min_margin_times_n: float
    member_margin_error: float
    tolerance: float


@dataclasses.dataclass(frozen=True)
class DyckKResult:
    """What the Dyck-(k, D) study (:func:`._study_dyck_k.run`) returns: one table row per record,
    the records, the margin sweep, and whether a recognizer misclassified a string or left its
    derived margin."""

    rows: tuple[dict[str, Any], ...]
    records: tuple[DyckKRecord, ...]
    precision: tuple[DyckKMarginRow, ...]
    failed: bool
