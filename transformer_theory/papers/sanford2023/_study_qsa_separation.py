"""The study of Sanford, Hsu & Telgarsky 2023's ``qsa_separation`` experiment: train every run of
its settings (:class:`.experiments.qsa_separation.QSASeparationSettings`, read by their fields:
this module imports no experiment and no option), record each to ``records.json`` as it
finishes, then draw.
"""

from __future__ import annotations

import os
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.sanford2023 import _plots
from transformer_theory.papers.sanford2023._models_separations import (
    qsa_trained_record,
    run_and_save,
)
from transformer_theory.papers.sanford2023._records import QSATrainedRecord

__all__ = ["run"]


def run(config: Any, out_dir: str, *, progress: bool = True) -> list[QSATrainedRecord]:
    """Train every (model, width) of ``config`` (:func:`qsa_trained_record`), writing
    ``out_dir/records.json`` after each run and the figure ``out_dir/qsa_separation.png``.
    Returns the records typed (:class:`~._records.QSATrainedRecord`)."""
    rates = dict(config.learning_rates)
    runs = [(model, w) for model, widths in config.widths for w in widths]
    records = run_and_save(
        runs,
        lambda model, width: qsa_trained_record(
            model,
            config.seq_len,
            config.q,
            config.dim,
            width,
            steps=config.steps,
            batch=config.batch,
            learning_rate=rates[model],
            seed=config.seed,
            held_out=config.held_out,
        ),
        out_dir,
        desc="qSA models",
        progress=progress,
    )
    if records:
        _plots.qsa_separation(records, os.path.join(out_dir, "qsa_separation.png"))
    return [jsonio.as_record(QSATrainedRecord, r) for r in records]
