"""The records the formal-language studies write and return, typed: the table's row records
(``languages_<row>.json``, ``languages.json``: :class:`LanguageRow`, one :class:`LengthEntry` per
length checked), PARITY's precision sweep (``parity_precision.json``:
:class:`ParityPrecisionRow`), what the table's study returns (:class:`LanguagesResult`), and the
generalization study's models (``languages_generalization.json``: :class:`GeneralizationResult`,
one :class:`GeneralizationRecord` per model).
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = [
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
