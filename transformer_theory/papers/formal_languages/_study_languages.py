"""The study of ``transformer-theory languages`` (every row of Strobl et al. 2024's table that the
library builds): build and check each row, then PARITY's precision sweep, record and plot, in
that order (:func:`estimate` is what a run costs, from the settings alone; the command refuses
what would not fit before calling :func:`run`). Its settings are
:class:`.experiments.languages.TableSettings` (read by their fields: this module imports no
experiment and no option); the maths it calls take plain arguments. :func:`row_table` and
:func:`precision_table` are the command's tables.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import Any

from transformer_theory import precision
from transformer_theory.jsonio import as_record, write_json
from transformer_theory.papers.formal_languages import _plots, _theory, _theory_table
from transformer_theory.papers.formal_languages._records import (
    LanguageRow,
    LanguagesResult,
    ParityPrecisionRow,
)

#: This study computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = [
    "Estimate",
    "estimate",
    "precision_table",
    "row_table",
    "run",
]


@dataclasses.dataclass(frozen=True)
class Estimate:
    """Peak memory (bytes) and attention-map entries of the two parts of a run (the rows, from
    :meth:`._theory_table.TableRow.cost`; PARITY's sweep, from :func:`._theory.precision_cost`);
    ``*_seconds`` at :data:`._theory.ENTRIES_PER_SECOND`."""

    rows_bytes: float
    rows_entries: float
    sweep_bytes: float
    sweep_entries: float

    @property
    def rows_seconds(self) -> float:
        return self.rows_entries / _theory.ENTRIES_PER_SECOND

    @property
    def sweep_seconds(self) -> float:
        return self.sweep_entries / _theory.ENTRIES_PER_SECOND

    @property
    def peak_bytes(self) -> float:
        return max(self.rows_bytes, self.sweep_bytes)

    @property
    def entries(self) -> float:
        return self.rows_entries + self.sweep_entries

    @property
    def seconds(self) -> float:
        return self.rows_seconds + self.sweep_seconds


def estimate(settings: Any) -> Estimate:
    """What :func:`run` with ``settings`` costs. Plain arithmetic, nothing allocated."""
    costs = [
        _theory_table.TABLE[name].cost(
            settings.exhaustive_up_to,
            settings.sampled_lengths,
            settings.sample_count,
            k=settings.dyck_k,
            depth=settings.dyck_depth,
        )
        for name in settings.rows
    ]
    sweep_bytes, sweep_entries = _theory.precision_cost(
        settings.parity_lengths, settings.parity_sample_count, settings.parity_precisions
    )
    return Estimate(max(c[0] for c in costs), sum(c[1] for c in costs), sweep_bytes, sweep_entries)


def run(
    config: Any,
    out_dir: str | None = None,
    *,
    progress: bool = True,
    on_rows: Callable[[tuple[LanguageRow, ...]], None] | None = None,
) -> LanguagesResult:
    """The table: each row's entry (:data:`._theory_table.TABLE`, looked up once) built and
    checked (its ``record``), then PARITY's sweep (:func:`._theory.parity_precision_records`),
    every finished record written to ``out_dir`` as it goes (when given), then the figures.
    Needs JAX's 64-bit mode.

    Args:
      config: what to check.
      out_dir: an existing directory for the records and figures, or ``None`` for none.
      progress: progress bars (to a terminal).
      on_rows: called with the row records once they are all done, before the sweep (the
        command prints its first table there).

    Returns:
      a :class:`LanguagesResult`: the table's rows, the row records, the sweep records, whether
      a recognizer misclassified a string, and whether Ctrl-C stopped the run.
    """
    precision.require_x64("config")
    table = [_theory_table.TABLE[name] for name in config.rows]  # each row's entry, looked up once
    records: list[dict] = []
    sweep: list[dict] = []
    interrupted = False
    try:
        for row in _bar(table, "rows", progress):  # build and check each row
            records.append(
                row.record(
                    exhaustive_up_to=config.exhaustive_up_to,
                    sampled_lengths=config.sampled_lengths,
                    samples=config.sample_count,
                    seed=config.seed_value,
                    k=config.dyck_k,
                    depth=config.dyck_depth,
                )
            )
            _record(out_dir, f"languages_{row.name}.json", records[-1])
        _record(out_dir, "languages.json", records)
        if on_rows is not None:
            on_rows(_typed(records))
        for length in _bar(config.parity_lengths, "parity precision", progress):
            sweep += _theory.parity_precision_records(
                [length],
                dtypes=config.parity_precisions,
                samples=config.parity_sample_count,
                seed=config.seed_value,
            )
            _record(out_dir, "parity_precision.json", sweep)
    except KeyboardInterrupt:
        interrupted = True
    _record(out_dir, "languages.json", records)
    _record(out_dir, "parity_precision.json", sweep)
    if out_dir is not None and not interrupted:
        _plots.margins_by_length(records, os.path.join(out_dir, "languages_margin.png"))
        if sweep:
            _plots.parity_precision(sweep, os.path.join(out_dir, "parity_precision.png"))
    rows = _typed(records)
    return LanguagesResult(
        rows=tuple(row_table(rows)),
        records=rows,
        precision=tuple(as_record(ParityPrecisionRow, r) for r in sweep),
        failed=any(r.accuracy < 1.0 for r in rows),
        interrupted=interrupted,
    )


def _typed(records: list[dict]) -> tuple[LanguageRow, ...]:
    return tuple(as_record(LanguageRow, r) for r in records)


def _record(out_dir: str | None, name: str, blob: object) -> None:
    if out_dir is not None:
        write_json(os.path.join(out_dir, name), blob)


def _bar(items, desc: str, progress: bool):
    if not progress:
        return items
    from transformer_theory.progress import tqdm

    return tqdm(items, desc=desc, disable=None)


def row_table(records: Sequence[LanguageRow]) -> list[dict]:
    """The row records as table rows: construction, attention, positional code, strings
    checked, lengths (``min-max``), accuracy (4 decimals), smallest margin, the precision."""
    return [
        {
            "construction": r.construction,
            "attention": r.attention,
            "positional": r.positional,
            "strings": r.strings_checked,
            "lengths": f"{min(r.lengths_checked)}-{max(r.lengths_checked)}"
            if r.lengths_checked
            else "-",
            "accuracy": f"{r.accuracy:.4f}",
            "min margin": r.min_margin,
            "precision": r.dtype,
        }
        for r in records
    ]


def precision_table(records: Sequence[ParityPrecisionRow]) -> list[dict]:
    """PARITY's sweep records as table rows: ``n``, format, LayerNorm (``eps=0`` or ``no``),
    strings, accuracy (4 decimals), smallest margin, largest cross-entropy in bits."""
    return [
        {
            "n": r.n,
            "dtype": r.dtype,
            "LayerNorm": "eps=0" if r.layer_norm else "no",
            "strings": r.strings,
            "accuracy": f"{r.accuracy:.4f}",
            "min margin": r.min_margin,
            "max CE (bits)": f"{r.max_cross_entropy_bits:.6g}",
        }
        for r in records
    ]
