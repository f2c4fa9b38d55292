"""The study behind ``transformer-theory heads``: trained models in, one record per head out.

:func:`run_study` reads every head of every loaded run (:mod:`.loading`) on its held-out inputs,
classifies it (:func:`.heads.classify_model`: positional, syntactic, rare-token, other or empty,
plainly and up to a permutation, Conti 2024, eq. 19-20), draws each run's heads
(:func:`.plots.head_grid`) and writes ``heads.json`` and ``heads.csv`` (:func:`csv_rows`)::

    runs = loading.read_runs("results/encdec_translation")
    study = run_study(runs, HeadOptions(bandwidth=2), examples=64, out="results/heads")
    summary_rows(study.records)  # the kinds counted per run

Before a run's heads are fitted, :func:`check_maps` refuses options whose family covers a whole
map (every head would fit it), naming the option and the run (:class:`OptionError`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence

import numpy as np

from transformer_theory import jsonio
from transformer_theory.papers.conti2024 import heads, plots
from transformer_theory.papers.conti2024.heads import HeadOptions
from transformer_theory.papers.conti2024.loading import LoadedRun

__all__ = [
    "CSV_COLUMNS",
    "HeadStudy",
    "OptionError",
    "check_maps",
    "classify_run",
    "csv_rows",
    "run_study",
    "summary_rows",
]

_FLAT = ("run", "model", "attention", "layer", "head", "kind", "score", "agreement")
_FLAT += ("concentration",)
# heads.csv's columns: the record's flat fields, each family's score, the best support (JSON),
# and the classification up to a permutation.
CSV_COLUMNS = (
    _FLAT
    + tuple(f"score_{fam}" for fam in heads.FAMILIES)
    + ("fit", "kind_permuted", "score_permuted", "fit_permuted")
)


class OptionError(ValueError):
    """An option of :class:`~.heads.HeadOptions` whose family covers a whole map of a run.

    Attributes: ``field`` (``"bandwidth"`` or ``"max_columns"``); the message is
    ``"<field>: <run>: <why>"``.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def check_maps(
    name: str, maps: Sequence[tuple[str, int, np.ndarray]], options: HeadOptions
) -> None:
    """Raise :class:`OptionError` when ``options`` cannot tell heads apart on some map of the run
    ``name`` (:func:`.heads.check_options_fit`)."""
    for _attention, _layer, m in maps:
        try:
            heads.check_options_fit(options, *np.shape(m)[-2:])
        except ValueError as err:
            field, _, why = str(err).partition(": ")
            raise OptionError(field, f"{field}: {name}: {why}") from None


def classify_run(
    loaded: LoadedRun, options: HeadOptions, examples: int
) -> tuple[list[tuple[str, int, np.ndarray]], list[dict]]:
    """Every head of one run on its first ``examples`` held-out inputs.

    Returns:
      ``(maps, records)``: the maps (``(attention, layer, maps_BxHxQxK)``) and one record per
      head, :func:`.heads.classify_model`'s with ``run`` and ``model`` (``"depth"`` or
      ``"seq2seq"``) first.
    """
    maps = loaded.maps(examples)
    check_maps(loaded.name, maps, options)  # refused before any head is fitted
    records = [
        dict(run=loaded.name, model=loaded.kind, **r) for r in heads.classify_model(maps, options)
    ]
    return maps, records


def csv_rows(records: Sequence[dict]) -> list[dict]:
    """``heads.csv``'s rows (:data:`CSV_COLUMNS`) from :func:`classify_run`'s records: the fits
    as JSON text."""
    rows = []
    for r in records:
        p = r["permuted"]
        row = {k: r[k] for k in _FLAT}
        row.update({f"score_{fam}": r["scores"][fam] for fam in heads.FAMILIES})
        row.update(
            fit=jsonio.dumps_json(r["fit"]),
            kind_permuted=p["kind"],
            score_permuted=p["score"],
            fit_permuted=jsonio.dumps_json(p["fit"]),
        )
        rows.append(row)
    return rows


@dataclasses.dataclass(frozen=True)
class HeadStudy:
    """What :func:`run_study` classified and wrote: ``records`` (one per head, every run),
    ``files`` (``heads.json``, ``heads.csv``) and ``figures`` (``<run>_heads.png`` per run)."""

    records: list[dict]
    files: list[str]
    figures: list[str]


def run_study(
    runs: Sequence[LoadedRun],
    options: HeadOptions,
    examples: int,
    out: str,
    *,
    on_run: Callable[[str, list[dict]], None] | None = None,
) -> HeadStudy:
    """Classify every head of every run, draw each run's heads, write the records.

    Args:
      runs: loaded trained models (:func:`.loading.read_runs`).
      options: how heads are projected and classified.
      examples: held-out inputs per model.
      out: an existing output directory.
      on_run: called with ``(run name, its records)`` as each run is done (progress).
    Returns:
      a :class:`HeadStudy`. Raises :class:`OptionError` (before fitting that run's heads) when
      an option covers a whole map.
    """
    records, figures = [], []
    for loaded in runs:
        maps, recs = classify_run(loaded, options, examples)
        records += recs
        figures.append(
            plots.head_grid(maps, recs, None, os.path.join(out, f"{loaded.name}_heads.png"))
        )
        if on_run is not None:
            on_run(loaded.name, recs)
    files = [
        jsonio.write_json(os.path.join(out, "heads.json"), records),
        jsonio.write_csv(os.path.join(out, "heads.csv"), csv_rows(records), CSV_COLUMNS),
    ]
    return HeadStudy(records, files, figures)


def summary_rows(records: Sequence[dict]) -> list[dict]:
    """Per run, two rows -- the plain classification and the one up to a permutation (Conti
    2024, eq. 19-20) -- counting heads of each kind (:data:`.heads.KINDS`)."""
    rows = []
    for run in dict.fromkeys(r["run"] for r in records):
        recs = [r for r in records if r["run"] == run]
        for reading, kind_of in (
            ("plain", lambda r: r["kind"]),
            ("up to a permutation", lambda r: r["permuted"]["kind"]),
        ):
            row = {"run": run, "classification": reading, "heads": len(recs)}
            row.update({k: sum(kind_of(r) == k for r in recs) for k in heads.KINDS})
            rows.append(row)
    return rows
