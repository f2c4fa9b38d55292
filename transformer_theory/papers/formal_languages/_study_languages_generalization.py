"""The study of the ``languages_generalization`` experiment (Hahn 2020's rows of Strobl et al.
2024's table): train every (language, mode, seed) of its settings
(:class:`.experiments.languages_generalization.GeneralizationSettings`, read by their fields: this
module imports no experiment and no option), evaluate each model, each softmax model's weights
read with leftmost-hard attention and the construction at the evaluation lengths, record after
every model, then draw. What is trained and what the result shows: the experiment's docstring.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from transformer_theory.jsonio import to_jsonable, write_json
from transformer_theory.papers.formal_languages import (
    _constructions,
    _constructions_dyck_k,
    _models,
    _plots,
)
from transformer_theory.papers.formal_languages._records import (
    GeneralizationRecord,
    GeneralizationResult,
)

__all__ = ["LABELS", "SOFT_THEN_HARD", "run", "table"]

LABELS = {
    "softmax": "softmax (trained)",
    "straight_through_leftmost": "leftmost-hard (trained, straight-through)",
    "straight_through_average": "average-hard (trained, straight-through)",
    "annealed_leftmost": "leftmost-hard (trained, annealed softmax then straight-through)",
}
SOFT_THEN_HARD = "softmax weights read with leftmost-hard (soft-then-hard, not trained)"


def run(config: Any, out_dir: str, *, progress: bool = True) -> GeneralizationResult:
    """Train every (language, mode, seed) of ``config``, evaluate each model (and each softmax
    model's weights read with leftmost-hard attention, and the construction) at
    ``config.eval_lengths``.

    Args:
      config: the settings (:func:`get_config`).
      out_dir: a directory (created if missing); ``languages_generalization.json`` is rewritten
        after every finished model, ``languages_generalization.png`` drawn at the end.
      progress: print one line per finished model.

    Returns:
      a :class:`.._records.GeneralizationResult` (what the JSON file holds): one
      :class:`.._records.GeneralizationRecord` per model, the seconds, the settings.
    """
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "languages_generalization.json")
    records: list[GeneralizationRecord] = []
    start = time.time()

    def add(language: str, name: str, accuracy, seed: int | None, losses: list | None) -> None:
        rec = GeneralizationRecord(
            language=language,
            model=name,
            seed=seed,
            train_lengths=tuple(config.train_lengths),
            eval_lengths=tuple(config.eval_lengths),
            accuracy=tuple(accuracy),
            final_loss=None if losses is None else float(np.mean(losses[-20:])),
            steps=None if losses is None else len(losses),
        )
        records.append(rec)
        write_json(path, GeneralizationResult(tuple(records), time.time() - start, config))
        if progress:
            accs = " ".join(f"{a:.2f}" for a in rec.accuracy)
            print(f"{language} | {name} | seed {seed}: accuracy {accs}", flush=True)

    for language, modes in config.modes:
        # The task, resolved once: its sampler draws every training batch, and (seed 1000 + n)
        # the same evaluation strings for every model and seed.
        draw = _models.sampler(language)
        evals = [draw(n, config.samples, 1000 + n) for n in config.eval_lengths]
        for seed in config.seeds:
            for mode in modes:
                params, losses = _models.train_hard_attention(
                    language,
                    mode,
                    steps=config.steps,
                    batch=config.batch,
                    seed=seed,
                    lengths=config.train_lengths,
                    learning_rate=config.learning_rate,
                    final_temperature=config.final_temperature,
                    hard_fraction=config.hard_fraction if mode == "annealed_leftmost" else 0.0,
                    schedule=config.schedule,
                    width=config.width,
                    layers=config.layers,
                    positional=dict(config.positional).get(language),
                    small=config.small,
                    draw=draw,
                )
                model = _models.deployed(params, mode)
                accuracy = [_models.accuracy_on(model, language, x, y) for x, y in evals]
                add(language, LABELS[mode], accuracy, seed, losses)
                if mode == "softmax":
                    hard = _models.deployed(params, "straight_through_leftmost")
                    accuracy = [_models.accuracy_on(hard, language, x, y) for x, y in evals]
                    add(language, SOFT_THEN_HARD, accuracy, seed, None)
        # The construction beside the trained models, float32 (the experiment runs without JAX's
        # 64-bit mode), scored by the sign of its decision margin on the same strings: Dyck-2 the
        # Dyck-(2, DYCK2_DEPTH) recognizer (average-hard layer 1, then layers where leftmost-hard
        # gives the same output; it reads dyck_k_embed's code), PARITY Chiang & Cholak 2022
        # (softmax), Dyck-1 average-hard after Yao et al. 2021 (o_1 - o_0 after BOS).
        if language == "dyck2":
            built = _constructions_dyck_k.dyck_k_recognizer(
                2, _models.DYCK2_DEPTH, "hard", dtype=jnp.float32
            )
            margins = [_constructions_dyck_k.decision_margins(built, x) for x, _ in evals]
        else:
            built = _constructions.build(language, dtype=jnp.float32)
            margins = [_constructions.decision_margins(built, x) for x, _ in evals]
        accuracy = [float(np.mean((m > 0) == y)) for m, (_, y) in zip(margins, evals)]
        add(language, "constructed", accuracy, None, None)
    result = GeneralizationResult(tuple(records), time.time() - start, config)
    write_json(path, result)
    drawn = to_jsonable(result.records)[0]  # the figure reads records as the file holds them
    _plots.generalization(drawn, os.path.join(out_dir, "languages_generalization.png"))
    return result


def table(records: Sequence[GeneralizationRecord]) -> list[dict]:
    """The records as table rows: language, model, seed, final loss, then the accuracy at each
    evaluation length (one column per length)."""
    return [
        {
            "language": r.language,
            "model": r.model,
            "seed": r.seed,
            "final loss": r.final_loss,
            **{f"L={n}": f"{a:.2f}" for n, a in zip(r.eval_lengths, r.accuracy)},
        }
        for r in records
    ]
