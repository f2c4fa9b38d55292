"""The study of Barbero et al. 2024's ``oversquash`` experiment: build the grid of random causal
Pre-LN models of its settings (:class:`.experiments.oversquash.OversquashSettings`, read by
their fields: this module imports no experiment and no option), refuse what memory cannot hold,
measure each model in float64 (:func:`~._theory_oversquash.oversquash_record`), record it to
``oversquash.json`` as it finishes (resumed, and refused to other settings, as ``collapse.json``
is), then draw ``oversquash.png``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from typing import Any

from transformer_theory import jsonio
from transformer_theory.core.positional import embed_long
from transformer_theory.papers.barbero2024 import _plots
from transformer_theory.papers.barbero2024 import _theory_oversquash as oversquash
from transformer_theory.papers.barbero2024._models import GridModel, largest_per_code, random_model
from transformer_theory.papers.barbero2024._records import (
    OversquashModel,
    OversquashRecord,
    SettingsDiffer,
    StudyResult,
    models_to_keep,
    settings_block,
)
from transformer_theory.papers.barbero2024._records_grid import Interrupted, record_grid
from transformer_theory.papers.barbero2024._study_grid import Guard, grid_of
from transformer_theory.papers.barbero2024._tasks import pattern_tokens

__all__ = ["Interrupted", "SettingsDiffer", "grid_of", "run", "settings_record"]


def settings_record(config: Any) -> dict:
    """The ``settings`` block of ``oversquash.json``: the fields by name and the input's
    ``tokens``."""
    return settings_block(config, tokens=pattern_tokens(config.pattern, config.length).tolist())


def run(
    config: Any,
    out_dir: str,
    *,
    progress: bool = True,
    grid: Sequence[GridModel] | None = None,
    guard: Guard = contextlib.nullcontext,
    on_model: Callable[[OversquashModel], None] | None = None,
    log: Callable[[str], None] | None = None,
    fresh: bool = False,
) -> StudyResult:
    """Measure every model of the grid in float64; write ``oversquash.json`` after each model and
    ``oversquash.png`` at the end.

    Args:
      config: the run's settings (an ``OversquashSettings``).
      out_dir: an existing directory; an ``oversquash.json`` there with the same settings is
        resumed, one with other settings refused (:class:`~._records.SettingsDiffer`) unless
        ``fresh``.
      progress: unused (each model is one program; ``on_model`` reports it); the experiments'
        common signature.
      grid: :func:`grid_of` ``(config)`` when already built (and checked).
      guard: a context manager factory entered around each model's computation.
      on_model: called with each newly measured model's record once it is written (a
        :class:`~._records.OversquashModel`).
      log: called with a line when a run is resumed.
      fresh: start over, measuring every model and overwriting any ``oversquash.json`` there.
    Returns:
      :class:`~._records.StudyResult`; its record (a :class:`~._records.OversquashRecord`) holds
      ``settings`` (:func:`settings_record`), ``complete``, ``seconds`` and ``models`` (labels,
      ``name`` and :func:`~._theory_oversquash.oversquash_record`).
    Raises:
      Interrupted: on Ctrl-C, the finished models written.
      SettingsDiffer: ``oversquash.json`` records other settings (and not ``fresh``).
      BudgetError: the grid's largest model or program would not fit in memory.
    """
    grid = grid_of(config) if grid is None else list(grid)
    configs = largest_per_code(grid)
    oversquash.check_record_memory(configs, config.length, config.bound)  # first: the input
    tokens = pattern_tokens(config.pattern, config.length)
    block = settings_block(config, tokens=tokens.tolist())
    path = os.path.join(out_dir, "oversquash.json")
    done = models_to_keep(path, block, "oversquash", fresh=fresh)
    if done and log is not None:
        log(f"resuming: {len(done)} finished model(s) read from {path}")

    def measure(model: GridModel) -> dict:
        with guard():
            params = random_model(model.config, model.labels["seed"])
            emb = embed_long(model.config, tokens, dtype=params.w_o.dtype)
            rec = oversquash.oversquash_record(params, emb, bound=config.bound)
        return dict(model.labels, name=model.name, **rec)

    # the models not finished before, measured one at a time as the record takes them
    measured = (measure(model) for model in grid if model.name not in done)
    record = record_grid(
        grid, measured, path, block, done=done, on_model=on_model, kind=OversquashModel
    )
    figure = _plots.plot_oversquash(record, os.path.join(out_dir, "oversquash.png"))
    return StudyResult(jsonio.as_record(OversquashRecord, record), path, figure)
