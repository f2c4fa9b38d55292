"""The verdict of the ``ngram`` study (:func:`float64_failures`): which of its records break a
theorem's claim. The records are typed (:mod:`._records`); the study builds, checks and records
each model itself (:func:`._study_ngram.run`), the softmax rows are
:func:`._theory_soft.soft_study`'s."""

from __future__ import annotations

from collections.abc import Sequence

from transformer_theory.papers.svete_cotterell2024._records import ModelRecord

__all__ = ["float64_failures"]


def float64_failures(records: Sequence[ModelRecord]) -> list[ModelRecord]:
    """The hard or sparse records in float64 that are not weakly equivalent: where Theorems
    3.1-3.3 claim exactness and the check found none (a lower precision that breaks is a
    measurement, not a failure; softmax is exact only as ``beta -> inf``)."""
    return [
        r
        for r in records
        if r.precision == "float64" and r.attention != "softmax" and not r.equivalent
    ]
