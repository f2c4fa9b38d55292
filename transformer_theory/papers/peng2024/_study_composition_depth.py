"""The study of Peng, Narayanan & Papadimitriou 2024's ``composition_depth`` experiment: train
every run of its settings (:class:`.experiments.composition_depth.CompositionDepthSettings`,
read by their fields: this module imports no experiment and no option), record each to
``records.json`` as it finishes, then draw.
"""

from __future__ import annotations

import os
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.peng2024 import _plots as plots
from transformer_theory.papers.peng2024._models_training import _sweep, composition_trained_record
from transformer_theory.papers.peng2024._records import DepthRecord

__all__ = ["run"]


def run(config: Any, out_dir: str, *, progress: bool = True) -> list[DepthRecord]:
    """Train every run of ``config`` (:func:`composition_trained_record`), writing
    ``out_dir/records.json`` after each and the figure ``out_dir/composition_depth.png``. Returns
    the records typed (:class:`~._records.DepthRecord`)."""
    records = _sweep(
        config.grid(),
        lambda layers, d, p: [
            composition_trained_record(
                config.n,
                layers,
                config.heads,
                d,
                None if p == 32 else p,
                steps=config.steps,
                seed=config.seed,
                held_out=config.held_out,
            )
        ],
        out_dir,
        desc="composition models",
        progress=progress,
    )
    if records:
        plots.composition_depth(records, os.path.join(out_dir, "composition_depth.png"))
    return [jsonio.as_record(DepthRecord, r) for r in records]
