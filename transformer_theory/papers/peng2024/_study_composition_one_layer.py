"""The study of Peng, Narayanan & Papadimitriou 2024's ``composition_one_layer`` experiment: train
every run of its settings (:class:`.experiments.composition_one_layer.OneLayerSettings`, read by
their fields: this module imports no experiment and no option), record each to ``records.json``
as it finishes, then draw.
"""

from __future__ import annotations

import os
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.peng2024 import _plots as plots
from transformer_theory.papers.peng2024._models_training import _sweep, one_layer_records
from transformer_theory.papers.peng2024._records import OneLayerRecord

__all__ = ["run"]


def run(config: Any, out_dir: str, *, progress: bool = True) -> list[OneLayerRecord]:
    """Train every ``(depth, width)`` of ``config`` (:func:`one_layer_records`), writing
    ``out_dir/records.json`` after each and the figure ``out_dir/composition.png``. Returns the
    records typed (:class:`~._records.OneLayerRecord`)."""
    runs = [(depth, width) for depth in config.depths for width in config.widths]
    records = _sweep(
        runs,
        lambda depth, width: one_layer_records(
            config.n, depth, width, config.heads, config.steps, config.batch, config.seed
        ),
        out_dir,
        desc="composition models",
        progress=progress,
    )
    if records:
        plots.one_layer(records, os.path.join(out_dir, "composition.png"))
    return [jsonio.as_record(OneLayerRecord, r) for r in records]
