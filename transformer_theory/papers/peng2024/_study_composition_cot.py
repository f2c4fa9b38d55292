"""The study of Peng, Narayanan & Papadimitriou 2024's ``composition_cot`` experiment: train every
run of its settings (:class:`.experiments.composition_cot.CoTSettings`, read by their fields:
this module imports no experiment and no option), record each to ``records.json`` as it
finishes, then draw.
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
from transformer_theory.papers.peng2024._records import CoTRecord
from transformer_theory.papers.peng2024._theory import steps_needed

__all__ = ["run"]


def run(config: Any, out_dir: str, *, progress: bool = True) -> list[CoTRecord]:
    """Train every run of ``config``, writing ``out_dir/records.json`` after each, then
    ``out_dir/summary.json`` (:func:`._theory.steps_needed`) and the figure
    ``out_dir/composition_cot.png``. A run: its model sized for the prompts
    (:func:`._tasks.cot_vocab`, :func:`._tasks.cot_length`) and built (one causal layer, seeded
    ``config.seed``), then trained and evaluated (:func:`._models_cot.cot_model_record`, what
    :func:`._models_cot.cot_record` does). Returns the records typed
    (:class:`~._records.CoTRecord`)."""
    runs = [(n, c, s) for n in config.ns for c in config.cells for s in config.strides]

    def train(n, cell, stride):
        heads, width, bits = cell
        bits = None if bits == 32 else bits
        vocab = tasks.cot_vocab(n, config.functions)
        length = tasks.cot_length(n, config.functions, stride)
        net = causal_one_layer(vocab, length, width, heads, bits, config.seed)
        size = param_count(net)
        return [
            cot_model_record(
                net,
                n,
                config.functions,
                stride,
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
        ]

    records = _sweep(runs, train, out_dir, desc="CoT models", progress=progress)
    summary = steps_needed(records, config.target)
    jsonio.write_json(os.path.join(out_dir, "summary.json"), summary)
    if records:
        plots.composition_cot(summary, os.path.join(out_dir, "composition_cot.png"))
    return [jsonio.as_record(CoTRecord, r) for r in records]
