"""The study of Peng, Narayanan & Papadimitriou 2024's ``composition_bound`` experiment: train
every run of its settings (:class:`.experiments.composition_bound.CompositionBoundSettings`,
read by their fields: this module imports no experiment and no option), record each to
``records.json`` as it finishes, then draw.
"""

from __future__ import annotations

import os
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.peng2024 import _plots as plots
from transformer_theory.papers.peng2024 import _tasks as tasks
from transformer_theory.papers.peng2024._models import causal_one_layer, param_count
from transformer_theory.papers.peng2024._models_cot import cot_model_record
from transformer_theory.papers.peng2024._models_training import _sweep
from transformer_theory.papers.peng2024._records import BoundRecord
from transformer_theory.papers.peng2024._theory import bound_records

__all__ = ["run"]


def run(config: Any, out_dir: str, *, progress: bool = True) -> list[BoundRecord]:
    """Theorem 1 in table form: every ``ns x cells`` model answers the ``K``-fold composition in ONE
    pass (stride ``K``; ``config.strides`` is ignored), trained and evaluated like
    :func:`._study_composition_cot.run` (the model built here, then
    :func:`._models_cot.cot_model_record`); the records (:func:`._theory.bound_records`: error
    beside the bound) go to ``out_dir/records.json`` after each run, the figure to
    ``out_dir/composition_bound.png``. Returns the records typed
    (:class:`~._records.BoundRecord`)."""
    runs = [(n, c) for n in config.ns for c in config.cells]
    k = config.functions  # stride K: the answer in one pass

    def train(n, cell):
        heads, width, bits = cell
        bits = None if bits == 32 else bits
        vocab, length = tasks.cot_vocab(n, k), tasks.cot_length(n, k, k)
        net = causal_one_layer(vocab, length, width, heads, bits, config.seed)
        size = param_count(net)
        record = cot_model_record(
            net,
            n,
            k,
            k,
            heads,
            width,
            bits,
            size=size,
            steps=config.steps,
            batch=config.batch,
            learning_rate=config.learning_rate,
            seed=config.seed,
            held_out=config.held_out,
        )
        return bound_records([record])

    records = _sweep(runs, train, out_dir, desc="one-pass composition models", progress=progress)
    if records:
        plots.composition_depth(records, os.path.join(out_dir, "composition_bound.png"))
    return [jsonio.as_record(BoundRecord, r) for r in records]
