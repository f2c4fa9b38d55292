"""The study of Conti 2024's ``heads`` experiment (§3.1.2): its settings
(:class:`.experiments.heads.HeadsSettings`, read by their fields: this module imports no
experiment and no option) -> every trained run read -> the options checked against each run's
maps (a field whose family covers a whole map is refused before any head is fitted) -> every head
classified plainly and up to a permutation -> ``heads.json``, ``heads.csv`` -> each run's figure.
The runs read (:func:`read_runs`) come with their notes (``unfinished_notes``,
:func:`._models_trained.unfinished_notes`: a line per run whose training was cut short), for the
command to print.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from transformer_theory import jsonio
from transformer_theory.papers.conti2024 import _plots as plots
from transformer_theory.papers.conti2024 import _theory_heads as heads
from transformer_theory.papers.conti2024._models_trained import LoadedRun, unfinished_notes
from transformer_theory.papers.conti2024._records import HeadRecord
from transformer_theory.papers.conti2024._theory_heads import HeadClassifySettings

__all__ = [
    "CSV_COLUMNS",
    "HeadStudy",
    "check_maps",
    "classify_run",
    "csv_rows",
    "read_runs",
    "run",
    "summary_rows",
    "unfinished_notes",
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


def read_runs(settings: Any) -> list[LoadedRun]:
    """The trained models in ``settings.run_dir``; refused naming ``run_dir`` (``ValueError``)
    when it holds none or a checkpoint cannot be read."""
    from transformer_theory.papers.conti2024._models_trained import read_runs as read
    from transformer_theory.sweeps import ExperimentError
    from transformer_theory.train import RunDirectoryError

    if not os.path.isdir(settings.run_dir):
        raise ValueError(f"run_dir: {settings.run_dir} is not a directory")
    try:
        return read(settings.run_dir)
    except (ExperimentError, RunDirectoryError) as err:
        raise ValueError(f"run_dir: {err}") from None


def check_maps(
    name: str, maps: Sequence[tuple[str, int, np.ndarray]], options: HeadClassifySettings
) -> None:
    """Raise ``ValueError`` naming the field (``bandwidth: <run>: ...``) when ``options`` cannot
    tell heads apart on some map of the run ``name`` (:func:`.._theory_heads.check_options_fit`)."""
    for _attention, _layer, m in maps:
        try:
            heads.check_options_fit(options, *np.shape(m)[-2:])
        except ValueError as err:
            field, _, why = str(err).partition(": ")
            raise ValueError(f"{field}: {name}: {why}") from None


def classify_run(
    loaded: LoadedRun, options: HeadClassifySettings, examples: int
) -> tuple[list[tuple[str, int, np.ndarray]], list[dict], list[HeadRecord]]:
    """Every head of one run on its first ``examples`` held-out inputs.

    Returns:
      ``(maps, classified, records)``: the maps (``(attention, layer, maps_BxHxQxK)``),
      :func:`._theory_heads.classify_model`'s classification of them (what
      :func:`.._plots.head_grid` titles) and one :class:`.._records.HeadRecord` per head, that
      classification with ``run`` and ``model`` (``"depth"`` or ``"seq2seq"``) first.
    """
    maps = loaded.maps(examples)
    check_maps(loaded.name, maps, options)  # refused before any head is fitted
    classified = heads.classify_model(maps, options)
    records = [
        jsonio.as_record(HeadRecord, dict(run=loaded.name, model=loaded.kind, **r))
        for r in classified
    ]
    return maps, classified, records


def csv_rows(records: Sequence[HeadRecord]) -> list[dict]:
    """``heads.csv``'s rows (:data:`CSV_COLUMNS`) from :func:`classify_run`'s records: the fits
    as JSON text."""
    return [
        dict(
            run=r.run,
            model=r.model,
            attention=r.attention,
            layer=r.layer,
            head=r.head,
            kind=r.kind,
            score=r.score,
            agreement=r.agreement,
            concentration=r.concentration,
            **{f"score_{fam}": r.scores[fam] for fam in heads.FAMILIES},
            fit=jsonio.dumps_json(r.fit),
            kind_permuted=r.permuted.kind,
            score_permuted=r.permuted.score,
            fit_permuted=jsonio.dumps_json(r.permuted.fit),
        )
        for r in records
    ]


@dataclasses.dataclass(frozen=True)
class HeadStudy:
    """What :func:`run` classified and wrote: ``records`` (one per head, every run),
    ``files`` (``heads.json``, ``heads.csv``) and ``figures`` (``<run>_heads.png`` per run)."""

    records: list[HeadRecord]
    files: list[str]
    figures: list[str]
    #: per run whose held-out set is smaller than ``examples``: the number of inputs read
    short: dict[str, int] = dataclasses.field(default_factory=dict)


def run(
    config: Any,
    out_dir: str,
    *,
    progress: bool = True,
    runs: Sequence[LoadedRun] | None = None,
    on_run: Callable[[str, list[HeadRecord]], None] | None = None,
) -> HeadStudy:
    """Classify every head of every run, draw each run's heads, write the records.

    Args:
      config: how heads are classified, where the runs are, how many examples.
      out_dir: an existing output directory.
      progress: unused (the study shows no bars; the experiment convention's argument).
      runs: the trained models, already read (None: :func:`read_runs`).
      on_run: called with ``(run name, its records)`` as each run is done (progress).
    Returns:
      a :class:`HeadStudy`. Raises ``ValueError`` naming the field (before fitting that run's
      heads) when an option covers a whole map.
    """
    runs = read_runs(config) if runs is None else runs
    options = HeadClassifySettings(  # the classifier's fields of the settings
        max_offset=config.max_offset,
        bandwidth=config.bandwidth,
        max_columns=config.max_columns,
        epsilon=config.epsilon,
        max_errors=config.max_errors,
        slack=config.slack,
        unexplained_above=config.unexplained_above,
    )
    examples, out = config.examples, out_dir
    records, figures, short = [], [], {}
    for loaded in runs:
        maps, classified, recs = classify_run(loaded, options, examples)
        read = int(maps[0][2].shape[0]) if maps else examples
        if read < examples:  # the run holds fewer held-out inputs than asked
            short[loaded.name] = read
        records += recs
        figures.append(
            plots.head_grid(maps, classified, None, os.path.join(out, f"{loaded.name}_heads.png"))
        )
        if on_run is not None:
            on_run(loaded.name, recs)
    files = [
        jsonio.write_json(os.path.join(out, "heads.json"), records),
        jsonio.write_csv(os.path.join(out, "heads.csv"), csv_rows(records), CSV_COLUMNS),
    ]
    return HeadStudy(records, files, figures, short)


def summary_rows(records: Sequence[HeadRecord]) -> list[dict]:
    """Per run, two rows -- the plain classification and the one up to a permutation (Conti
    2024, eq. 19-20) -- counting heads of each kind (:data:`.heads.KINDS`)."""
    rows = []
    for run in dict.fromkeys(r.run for r in records):
        recs = [r for r in records if r.run == run]
        for reading, kind_of in (
            ("plain", lambda r: r.kind),
            ("up to a permutation", lambda r: r.permuted.kind),
        ):
            row = {"run": run, "classification": reading, "heads": len(recs)}
            row.update({k: sum(kind_of(r) == k for r in recs) for k in heads.KINDS})
            rows.append(row)
    return rows
