"""The study of Sanford, Hsu & Telgarsky 2023's ``qsa_bits_attention`` and ``qsa_bits_rnn``
experiments: train every run of their settings
(:class:`.experiments.qsa_bits_attention.QSABitsSettings`,
:class:`.experiments.qsa_bits_rnn.QSABitsRNNSettings`, read by their fields: this module imports
no experiment and no option), record each to ``records.json`` as it finishes, then draw.
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
    """Train ``config.model`` at every (width, bits) (:func:`qsa_trained_record` with ``bits``),
    writing ``out_dir/records.json`` after each run and the figure ``out_dir/qsa_bits.png``.
    Returns the records typed (:class:`~._records.QSATrainedRecord`)."""
    runs = [(w, b) for b in config.bits for w in config.widths]
    records = run_and_save(
        runs,
        lambda w, b: qsa_trained_record(
            config.model,
            config.seq_len,
            config.q,
            1,
            w,
            steps=config.steps,
            batch=config.batch,
            learning_rate=config.learning_rate,
            seed=config.seed,
            held_out=config.held_out,
            bits=b,
        ),
        out_dir,
        desc=f"{config.model} x bits",
        progress=progress,
    )
    if records:
        _plots.qsa_bits(records, os.path.join(out_dir, "qsa_bits.png"))
    return [jsonio.as_record(QSATrainedRecord, r) for r in records]
