"""The study of Sanford, Hsu & Telgarsky 2023's ``match_width`` experiment: train every run of its
settings (:class:`.experiments.match_width.MatchWidthSettings`, read by their fields: this
module imports no experiment and no option), record each to ``records.json`` as it finishes,
then draw.
"""

from __future__ import annotations

import os
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.sanford2023 import _plots
from transformer_theory.papers.sanford2023._models_match import DEPTHS, train_match_model
from transformer_theory.papers.sanford2023._models_separations import run_and_save
from transformer_theory.papers.sanford2023._records import MatchTrainedRecord
from transformer_theory.papers.sanford2023._tasks import match_training_data

__all__ = ["run"]


def run(config: Any, out_dir: str, *, progress: bool = True) -> list[MatchTrainedRecord]:
    """Train every (task, heads, width) of ``config`` (:func:`train_match_model` on the data of
    :func:`.._tasks.match_training_data`), writing
    ``out_dir/records.json`` after each run and the figure ``out_dir/match_width.png``. Returns
    the records typed (:class:`~._records.MatchTrainedRecord`)."""
    runs = [(t, DEPTHS[t], h, w) for t in config.tasks for h in config.heads for w in config.widths]
    records = run_and_save(
        runs,
        lambda task, depth, h, width: train_match_model(
            task,
            config.seq_len,
            config.modulus,
            depth,
            width,
            h,
            config.steps,
            seed=config.seed,
            data=match_training_data(
                task, config.seed, config.batch, config.seq_len, config.modulus
            ),
        ),
        out_dir,
        desc="Match models",
        progress=progress,
    )
    if records:
        _plots.match_width(records, os.path.join(out_dir, "match_width.png"))
    return [jsonio.as_record(MatchTrainedRecord, r) for r in records]
