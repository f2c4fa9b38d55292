"""The upper-bound rows of Strobl et al. 2024's table (Hahn 2020) as an experiment: small
transformers trained on PARITY and Dyck-1 at short lengths, WITH the attention of the row
(:mod:`.hard_training`), evaluated at longer ones beside the constructed recognizers
(:mod:`.constructions`).

What is trained (two layers of two heads, an MLP of 32, the same positional code and masking as
the construction of the row; Adam on fresh balanced samples of the training lengths at every
step):

- ``softmax``: a softmax transformer;
- ``leftmost-hard (straight-through)``: a leftmost-hard transformer, trained with the
  straight-through estimator -- the forward pass IS leftmost-hard attention, the backward pass
  uses the softmax gradient of the same scores; evaluated with ``attention="hard_leftmost"``;
- ``average-hard (straight-through)`` (Dyck-1 only, whose construction is average-hard): the same
  with average-hard attention;
- ``softmax weights read with leftmost-hard (soft-then-hard)``: the softmax model's weights
  evaluated with leftmost-hard attention, a model nobody trained, kept for comparison only;
- ``constructed``: the recognizer built by hand (PARITY: Chiang & Cholak 2022, softmax; Dyck-1:
  average-hard after Yao et al. 2021).

What this shows and does not: Hahn 2020 proves that for every leftmost-hard transformer, PARITY and
Dyck-1 are misrecognized at SOME length (an asymptotic statement about every parameter setting).
A trained model that fails at length 64 is one parameter setting found by one optimizer in a few
hundred steps; it neither confirms the theorem (the failure may be the optimizer's) nor could a
success refute it (the theorem allows any finite range of lengths to be right). The experiment
shows what these training runs reach, by length, next to constructions that do not break.

:class:`GeneralizationConfig` is the experiment's settings (the configs of :mod:`.configs` make
them); :func:`run` trains and evaluates, writing ``languages_generalization.json`` after every
finished model and the figure ``languages_generalization.png`` at the end.
"""

from __future__ import annotations

import dataclasses
import os
import time

import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate
from transformer_theory.jsonio import write_json
from transformer_theory.papers.formal_languages import constructions, hard_training, plots

__all__ = [
    "LABELS",
    "SOFT_THEN_HARD",
    "GeneralizationConfig",
    "run",
    "table",
]

LABELS = {
    "softmax": "softmax (trained)",
    "straight_through_leftmost": "leftmost-hard (trained, straight-through)",
    "straight_through_average": "average-hard (trained, straight-through)",
}
SOFT_THEN_HARD = "softmax weights read with leftmost-hard (soft-then-hard, not trained)"


@dataclasses.dataclass(frozen=True)
class GeneralizationConfig:
    """One run of the experiment.

    Attributes:
      size: the config's size name (``"smoke"``, ``"default"``), recorded with the results.
      modes: per language, the training modes of :data:`.hard_training.TRAINING_MODES` (a
        ``"softmax"`` run is also read with leftmost-hard attention: soft-then-hard).
      seeds: training seeds; every (language, mode, seed) is one model.
      steps, batch, learning_rate: Adam's steps, strings per step and step size.
      train_lengths: the lengths a step draws from; eval_lengths: where accuracy is measured.
      samples: balanced evaluation strings per length (the same strings for every seed).
      small: :func:`.hard_training.model_config`'s one-head model (the smoke size's).
    """

    size: str = "default"
    modes: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("parity", ("softmax", "straight_through_leftmost")),
        ("dyck1", ("softmax", "straight_through_leftmost", "straight_through_average")),
    )
    seeds: tuple[int, ...] = (0,)
    steps: int = 300
    batch: int = 32
    learning_rate: float = 3e-3
    train_lengths: tuple[int, ...] = (4, 8, 12, 16)
    eval_lengths: tuple[int, ...] = (8, 16, 32, 64, 128, 256)
    samples: int = 128
    small: bool = False

    def __post_init__(self) -> None:
        for language, modes in self.modes:
            _validate.check_choice("modes", language, ("parity", "dyck1"))
            for mode in modes:
                _validate.check_choice("modes", mode, tuple(LABELS))
        for name in ("steps", "batch", "samples"):
            _validate.check_int_arg(name, getattr(self, name))
        for seed in self.seeds:
            _validate.check_int_arg("seeds", seed, minimum=0)
        if not self.seeds:
            raise ValueError("seeds: expected at least one seed")
        _validate.check_positive("learning_rate", self.learning_rate)


def _accuracies(model, language: str, config: GeneralizationConfig) -> list[float]:
    # Seed 1000 + n: the same evaluation strings for every model and seed.
    return [
        hard_training.accuracy(model, language, n, config.samples, 1000 + n)
        for n in config.eval_lengths
    ]


def run(config: GeneralizationConfig, out_dir: str, *, progress: bool = True) -> dict:
    """Train every (language, mode, seed) of ``config``, evaluate each model (and each softmax
    model's weights read with leftmost-hard attention, and the construction) at
    ``config.eval_lengths``.

    Args:
      config: the settings (:func:`.configs.languages_generalization.get_config`).
      out_dir: a directory (created if missing); ``languages_generalization.json`` is rewritten
        after every finished model, ``languages_generalization.png`` drawn at the end.
      progress: print one line per finished model.

    Returns:
      ``{"records", "seconds", "settings"}`` (what the JSON file holds): one record per model,
      ``{language, model, seed, train_lengths, eval_lengths, accuracy: [per eval length],
      final_loss (mean of the last 20 steps; None for untrained models), steps}``.
    """
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "languages_generalization.json")
    settings = dataclasses.asdict(config)
    records: list[dict] = []
    start = time.time()

    def add(language: str, name: str, model, seed: int | None, losses: list | None) -> None:
        rec = {
            "language": language,
            "model": name,
            "seed": seed,
            "train_lengths": list(config.train_lengths),
            "eval_lengths": list(config.eval_lengths),
            "accuracy": _accuracies(model, language, config),
            "final_loss": None if losses is None else float(np.mean(losses[-20:])),
            "steps": None if losses is None else len(losses),
        }
        records.append(rec)
        write_json(path, {"records": records, "seconds": time.time() - start, "settings": settings})
        if progress:
            accs = " ".join(f"{a:.2f}" for a in rec["accuracy"])
            print(f"{language} | {name} | seed {seed}: accuracy {accs}", flush=True)

    for language, modes in config.modes:
        for seed in config.seeds:
            for mode in modes:
                params, losses = hard_training.train(
                    language,
                    mode,
                    steps=config.steps,
                    batch=config.batch,
                    seed=seed,
                    lengths=config.train_lengths,
                    learning_rate=config.learning_rate,
                    small=config.small,
                )
                add(language, LABELS[mode], hard_training.deployed(params, mode), seed, losses)
                if mode == "softmax":
                    hard = hard_training.deployed(params, "straight_through_leftmost")
                    add(language, SOFT_THEN_HARD, hard, seed, None)
        add(language, "constructed", constructions.build(language, dtype=jnp.float32), None, None)
    result = {"records": records, "seconds": time.time() - start, "settings": settings}
    write_json(path, result)
    plots.generalization(records, os.path.join(out_dir, "languages_generalization.png"))
    return result


def table(records: list[dict]) -> list[dict]:
    """The records as table rows: language, model, seed, final loss, then the accuracy at each
    evaluation length (one column per length)."""
    return [
        {
            "language": r["language"],
            "model": r["model"],
            "seed": r["seed"],
            "final loss": r["final_loss"],
            **{f"L={n}": f"{a:.2f}" for n, a in zip(r["eval_lengths"], r["accuracy"])},
        }
        for r in records
    ]
