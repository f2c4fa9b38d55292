"""The study of Peng, Narayanan & Papadimitriou 2024's ``composition_one_pass`` experiment, its
settings (:class:`.experiments.composition_one_pass.OnePassSettings`) read by their fields (this
module imports no experiment and no option), a stage at a time: the hand-built model's weights at
each ``n`` (:mod:`._constructions`); every prompt, the construction's and each training run's
(:mod:`._tasks`); the runs that train and evaluate the one-pass models (:mod:`._models_one_pass`)
and the construction's fewest exact bits (:mod:`._models`); Theorem 1's bound at each run and the
construction's budget (:mod:`._theory`); the training sweep, each record written to
``records.json`` as it finishes (:mod:`._models_training`); then the figure (:mod:`._plots`).
"""

from __future__ import annotations

import functools
import os
from typing import Any

from transformer_theory import jsonio
from transformer_theory.papers.peng2024 import _constructions as construction
from transformer_theory.papers.peng2024 import _models as models
from transformer_theory.papers.peng2024 import _models_one_pass as one_pass
from transformer_theory.papers.peng2024 import _plots as plots
from transformer_theory.papers.peng2024 import _tasks as tasks
from transformer_theory.papers.peng2024 import _theory as theory
from transformer_theory.papers.peng2024._models_training import _sweep
from transformer_theory.papers.peng2024._records import OnePassRecord

__all__ = ["run"]


def run(config: Any, out_dir: str, *, progress: bool = True) -> list[OnePassRecord]:
    """The construction's weights at each ``n`` (:func:`._constructions.weights`); its prompts
    (:func:`._tasks.checking_prompts`) and each run's (:func:`._tasks.one_pass_data`); its fewest
    exact bits (:func:`._models.fewest_exact_bits`); the bound of every run
    (:func:`._theory.one_pass_bounds`) and the construction's budget
    (:func:`._theory.budget_row`); every model of ``config`` trained and evaluated
    (:func:`._models_one_pass.one_pass_run`), ``out_dir/records.json`` written after each; then
    ``out_dir/construction.json`` and the figure ``out_dir/composition_one_pass.png``. Returns
    the records typed (:class:`~._records.OnePassRecord`)."""
    runs = [(n, c) for n in config.ns for c in config.cells]
    # the construction: its width and weights at each n
    widths = {n: construction.construction_width(n) for n in config.ns}
    weights = {n: construction.weights(n) for n in config.ns}
    # the prompts: the construction's, each n's held-out prompts and training batches
    checking = {n: tasks.checking_prompts(n, config.construction_samples) for n in config.ns}
    data = {
        n: tasks.one_pass_data(
            n, batch=config.batch, aux=config.aux, seed=config.seed, held_out=config.held_out
        )
        for n in config.ns
    }

    # the runs: each model trained and evaluated (by the sweep below, beside its bound)
    def train(n, cell):
        heads, width, bits = cell
        vocab, tokens, answers, sample = data[n]
        return [
            one_pass.one_pass_run(
                vocab,
                n,
                heads,
                width,
                None if bits == 32 else bits,
                tokens,
                answers,
                sample,
                bounds[n, cell],
                steps=config.steps,
                learning_rate=config.learning_rate,
                aux=config.aux,
                seed=config.seed,
            )
        ]

    found = [
        models.fewest_exact_bits(n, functools.partial(models.from_weights, weights[n]), x, y, every)
        for n, (x, y, every) in checking.items()
    ]
    # the theory: Theorem 1 at every run's (n, H, d, p), the construction's budget
    bounds = {(n, c): theory.one_pass_bounds(n, *c) for n, c in runs}
    built = [theory.budget_row(f, construction.HEADS, widths[f["n"]]) for f in found]
    # the records: the sweep trains every run, writing each record as it finishes
    records = _sweep(runs, train, out_dir, desc="one-pass models", progress=progress)
    jsonio.write_json(os.path.join(out_dir, "construction.json"), built)
    if records:
        plots.one_pass(records, built, os.path.join(out_dir, "composition_one_pass.png"))
    return [jsonio.as_record(OnePassRecord, r) for r in records]
