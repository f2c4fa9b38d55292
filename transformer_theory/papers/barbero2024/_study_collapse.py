"""The study of Barbero et al. 2024's ``collapse`` experiment: build the grid of random causal
Pre-LN models of its settings (:class:`.experiments.collapse.CollapseSettings`, read by their
fields: this module imports no experiment and no option), refuse what memory cannot hold, measure
each model (:func:`~._theory_collapse.model_record`), record it to ``collapse.json`` as it
finishes (resumed from the finished models by a run with the same settings), then draw
``collapse.png``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.barbero2024 import _plots
from transformer_theory.papers.barbero2024 import _theory_collapse as collapse
from transformer_theory.papers.barbero2024._models import GridModel, largest_per_code, random_model
from transformer_theory.papers.barbero2024._records import (
    CollapseModel,
    CollapseRecord,
    SettingsDiffer,
    StudyResult,
    models_to_keep,
    settings_block,
)
from transformer_theory.papers.barbero2024._records_grid import Interrupted, record_grid
from transformer_theory.papers.barbero2024._study_grid import Guard, grid_of
from transformer_theory.papers.barbero2024._tasks import length_grid, pattern_tokens

__all__ = ["DEFAULT_POINTS", "Interrupted", "SettingsDiffer", "grid_of", "run", "settings_record"]

#: Lengths measured when ``points`` is not given (fewer when ``max_len`` has fewer).
DEFAULT_POINTS = 16


def settings_record(config: Any) -> dict:
    """The ``settings`` block of ``collapse.json``: the fields by name, ``points`` counted (when
    not given :data:`DEFAULT_POINTS`, every length if fewer) and the ``lengths`` measured (a
    resumed run must match it exactly)."""
    points = min(DEFAULT_POINTS, config.max_len - 1) if config.points is None else config.points
    lengths = length_grid(config.max_len, points)
    return settings_block(config, points=points, lengths=lengths)


def run(
    config: Any,
    out_dir: str,
    *,
    progress: bool = True,
    grid: Sequence[GridModel] | None = None,
    guard: Guard = contextlib.nullcontext,
    on_model: Callable[[CollapseModel], None] | None = None,
    log: Callable[[str], None] | None = None,
    fresh: bool = False,
) -> StudyResult:
    """Measure every model of the grid; write ``collapse.json`` after each and ``collapse.png``.

    In order: the grid (:func:`grid_of`) and its largest model per positional code, the longest
    input (:func:`~._tasks.pattern_tokens`), the lengths (:func:`~._tasks.length_grid`)
    and the settings block, the resume check, the memory check
    (:func:`~._theory_collapse.check_measurement_memory`), then each model measured
    (:func:`~._theory_collapse.model_record`) and written (:func:`~._records_grid.record_grid`) and
    the figure drawn.

    Args:
      config: the run's settings (a ``CollapseSettings``).
      out_dir: an existing directory; a ``collapse.json`` there with the same settings is resumed
        (its finished models are kept, not measured again); one with other settings is refused
        (:class:`~._records.SettingsDiffer`) unless ``fresh``.
      progress: a progress bar per model (to a terminal only).
      grid: :func:`grid_of` ``(config)`` when already built (and checked).
      guard: a context manager factory entered around each JAX call (the command passes one
        that holds Ctrl-C until the call returns).
      on_model: called with each newly measured model's record once it is written (a
        :class:`~._records.CollapseModel`).
      log: called with a line when a run is resumed.
      fresh: start over, measuring every model and overwriting any ``collapse.json`` there.
    Returns:
      :class:`~._records.StudyResult`; its record (a :class:`~._records.CollapseRecord`) holds
      ``settings`` (:func:`settings_record`), ``complete``, ``seconds`` and ``models`` (labels,
      :func:`~._theory_collapse.model_record`, ``seconds``).
    Raises:
      Interrupted: on Ctrl-C, the finished models written.
      SettingsDiffer: ``collapse.json`` records other settings (and not ``fresh``).
      BudgetError: the grid's largest model or longest measurement would not fit in memory.
    """
    grid = grid_of(config) if grid is None else list(grid)
    configs = largest_per_code(grid)  # the grid's largest model per positional code
    longest = pattern_tokens(config.pattern, config.max_len, separator_every=config.separator_every)
    points = min(DEFAULT_POINTS, config.max_len - 1) if config.points is None else config.points
    lengths = length_grid(config.max_len, points)  # ends at max_len
    block = settings_block(config, points=points, lengths=lengths)
    path = os.path.join(out_dir, "collapse.json")
    # the resume check before the memory check: it compiles
    done = models_to_keep(path, block, "collapse", fresh=fresh)
    collapse.check_measurement_memory(configs, len(longest), config.precisions)
    if done and log is not None:
        log(f"resuming: {len(done)} finished model(s) read from {path}")

    def measure(model: GridModel) -> dict:
        t1 = time.perf_counter()
        with guard():
            params = random_model(model.config, model.labels["seed"])
        rec = collapse.model_record(
            params,
            model.name,
            lengths,
            config.precisions,
            pattern=config.pattern,
            separator_every=config.separator_every,
            progress=progress,
            guard=guard,
        )
        return dict(model.labels, **rec, seconds=round(time.perf_counter() - t1, 1))

    # the models not finished before, measured one at a time as the record takes them
    measured = (measure(model) for model in grid if model.name not in done)
    record = record_grid(
        grid, measured, path, block, done=done, on_model=on_model, kind=CollapseModel
    )
    figure = _plots.plot_collapse(record, os.path.join(out_dir, "collapse.png"))
    return StudyResult(jsonio.as_record(CollapseRecord, record), path, figure)
