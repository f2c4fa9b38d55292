"""The study of the ``ngram_exactness`` experiment: every named run of its settings
(:class:`.experiments.ngram_exactness.ExactnessSettings`, read by their fields) through the
``ngram`` study (:func:`._study_ngram.run`) into ``out_dir/<name>``, with the verdict per run
(:func:`._theory_ngram.float64_failures`). Its record is typed (:mod:`._records`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from transformer_theory.papers.svete_cotterell2024 import _study_ngram
from transformer_theory.papers.svete_cotterell2024._records import ExactnessResult, ExactnessRow
from transformer_theory.papers.svete_cotterell2024._theory_ngram import float64_failures

__all__ = ["run"]


def run(
    config: Any,
    out_dir: str,
    *,
    progress: bool = True,
    only: Sequence[str] | None = None,
) -> ExactnessResult:
    """Every run of ``config.runs`` (those named in ``only``, if given) through
    :func:`._study_ngram.run` into ``out_dir/<name>``.

    Returns:
      an :class:`~._records.ExactnessResult`: per run, its name, how many records it made, and
      how many float64 hard/sparse records are not equivalent (where the theorems claim
      exactness).
    """
    rows = []
    for name, settings in config.runs:
        if only is not None and name not in only:
            continue
        path = os.path.join(out_dir, name)
        os.makedirs(path, exist_ok=True)
        result = _study_ngram.run(settings, path, progress=progress)
        rows.append(ExactnessRow(name, len(result.records), len(float64_failures(result.records))))
    return ExactnessResult(tuple(rows))
