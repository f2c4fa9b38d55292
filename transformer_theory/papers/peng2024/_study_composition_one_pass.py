"""The study of Peng, Narayanan & Papadimitriou 2024's ``composition_one_pass`` experiment: train
every run of its settings (:class:`.experiments.composition_one_pass.OnePassSettings`, read by
their fields: this module imports no experiment and no option), record each to ``records.json``
as it finishes; then the hand-built model's budget at each ``n``, its prompts made first
(:mod:`._tasks`) and handed to the construction (:mod:`._constructions`); then draw.
"""

from __future__ import annotations

import os
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.peng2024 import _constructions as construction
from transformer_theory.papers.peng2024 import _plots as plots
from transformer_theory.papers.peng2024 import _tasks as tasks
from transformer_theory.papers.peng2024._models_one_pass import one_pass_record
from transformer_theory.papers.peng2024._models_training import _sweep
from transformer_theory.papers.peng2024._records import OnePassRecord

__all__ = ["run"]


def run(config: Any, out_dir: str, *, progress: bool = True) -> list[OnePassRecord]:
    """Train every model of ``config`` (:func:`one_pass_record`), writing ``out_dir/records.json``
    after each; then the construction's budget at each ``n`` (:func:`._constructions.budget_row`
    on :func:`._tasks.checking_prompts`) to ``out_dir/construction.json`` and the figure
    ``out_dir/composition_one_pass.png``. Returns the records typed
    (:class:`~._records.OnePassRecord`)."""
    runs = [(n, c) for n in config.ns for c in config.cells]

    def train(n, cell):
        heads, width, bits = cell
        return [
            one_pass_record(
                n,
                heads,
                width,
                None if bits == 32 else bits,
                steps=config.steps,
                batch=config.batch,
                learning_rate=config.learning_rate,
                aux=config.aux,
                seed=config.seed,
                held_out=config.held_out,
            )
        ]

    records = _sweep(runs, train, out_dir, desc="one-pass models", progress=progress)
    prompts = [(n, *tasks.checking_prompts(n, config.construction_samples)) for n in config.ns]
    built = [construction.budget_row(n, x, y, every) for n, x, y, every in prompts]
    jsonio.write_json(os.path.join(out_dir, "construction.json"), built)
    if records:
        plots.one_pass(records, built, os.path.join(out_dir, "composition_one_pass.png"))
    return [jsonio.as_record(OnePassRecord, r) for r in records]
