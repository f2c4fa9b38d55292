"""The study of Peng, Narayanan & Papadimitriou 2024's ``composition_bound`` experiment: train
every run of its settings (:class:`.experiments.composition_bound.CompositionBoundSettings`,
read by their fields: this module imports no experiment and no option), record each to
``records.json`` as it finishes, then draw.
"""

from __future__ import annotations

import os
from typing import Any

from transformer_theory.papers.peng2024 import _plots as plots
from transformer_theory.papers.peng2024._models_cot import bound_records
from transformer_theory.papers.peng2024._models_training import _sweep
from transformer_theory.papers.peng2024._study_composition_cot import cell_record

__all__ = ["run"]


def run(config: Any, out_dir: str, *, progress: bool = True) -> list[dict]:
    """Theorem 1 in table form: every ``ns x cells`` model answers the ``K``-fold composition in
    ONE pass (stride ``K``; ``config.strides`` is ignored), trained and evaluated like
    :func:`._study_composition_cot.run`; the records (:func:`bound_records`: error beside the
    bound) go to ``out_dir/records.json`` after each run, the figure to
    ``out_dir/composition_bound.png``."""
    runs = [(n, c) for n in config.ns for c in config.cells]
    records = _sweep(
        runs,
        lambda n, cell: bound_records([cell_record(config, n, cell, config.functions)]),
        out_dir,
        desc="one-pass composition models",
        progress=progress,
    )
    if records:
        plots.composition_depth(records, os.path.join(out_dir, "composition_bound.png"))
    return records
