"""The upper-bound rows of Strobl et al. 2024's table (Hahn 2020) as an experiment: small
transformers trained on PARITY, Dyck-1 and Dyck-(2, 3) at short lengths, WITH the attention of
the row (:mod:`.hard_training`), evaluated at longer ones beside the constructed recognizers
(:mod:`.constructions`, :mod:`.dyck_k`).

What is trained (the same masking as the construction of the row; the depth, width, positional
code and schedule are the config's; Adam on fresh balanced samples of the training lengths at
every step; labels from the membership references, the Dyck-2 ones from the stack of
:func:`.dyck_k.is_member`; Dyck-2 evaluation strings half members, half the HARD non-members of
:func:`.dyck_k.sample`, so "always no" scores 0.5):

- ``softmax``: a softmax transformer;
- ``leftmost-hard (straight-through)``: a leftmost-hard transformer, trained with the
  straight-through estimator -- the forward pass IS leftmost-hard attention, the backward pass
  uses the softmax gradient of the same scores; evaluated with ``attention="hard_leftmost"``;
- ``leftmost-hard (annealed softmax then straight-through)``: softmax at a temperature lowered
  geometrically, then the straight-through leftmost-hard forward for the last steps (so the
  final model is the hard one, its final loss the hard model's); evaluated leftmost-hard;
- ``average-hard (straight-through)`` (optional mode): the same with average-hard attention;
- ``softmax weights read with leftmost-hard (soft-then-hard)``: the softmax model's weights
  evaluated with leftmost-hard attention, a model nobody trained, kept for comparison only;
- ``constructed``: the recognizer built by hand (PARITY: Chiang & Cholak 2022, softmax; Dyck-1:
  average-hard after Yao et al. 2021; Dyck-(2, 3): :func:`.dyck_k.build`, average-hard layer 1
  then layers where leftmost-hard gives the same output).

What this shows and does not: Hahn 2020 proves that for every leftmost-hard transformer, PARITY and
Dyck-1 are misrecognized at SOME length (an asymptotic statement about every parameter setting);
bounded-depth Dyck-(2, 3) is star-free and is not covered. A trained model that fails at length 64
is one parameter setting found by one optimizer; it neither confirms the theorem (the failure may
be the optimizer's) nor could a success refute it (the theorem allows any finite range of lengths
to be right). The experiment shows what these training runs reach, by length, next to
constructions that do not break.

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
from transformer_theory.papers.formal_languages import constructions, dyck_k, hard_training, plots

__all__ = [
    "LABELS",
    "SOFT_THEN_HARD",
    "GeneralizationConfig",
    "constructed",
    "run",
    "table",
]

LABELS = {
    "softmax": "softmax (trained)",
    "straight_through_leftmost": "leftmost-hard (trained, straight-through)",
    "straight_through_average": "average-hard (trained, straight-through)",
    "annealed_leftmost": "leftmost-hard (trained, annealed softmax then straight-through)",
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
      schedule, final_temperature, hard_fraction, width, layers: :func:`.hard_training.train`'s
        (``hard_fraction`` for the ``"annealed_leftmost"`` mode only).
      positional: ``(language, kind)`` pairs overriding :func:`.hard_training.model_config`'s
        positional code of a language.
      small: :func:`.hard_training.model_config`'s one-head model (the smoke size's).
    """

    size: str = "default"
    modes: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("parity", ("softmax", "straight_through_leftmost", "annealed_leftmost")),
        ("dyck1", ("softmax", "straight_through_leftmost", "annealed_leftmost")),
        ("dyck2", ("softmax", "straight_through_leftmost", "annealed_leftmost")),
    )
    seeds: tuple[int, ...] = (0,)
    steps: int = 300
    batch: int = 32
    learning_rate: float = 3e-3
    schedule: str = "cosine"
    final_temperature: float = 0.1
    hard_fraction: float = 0.3
    width: int = 16
    layers: int = 2
    positional: tuple[tuple[str, str], ...] = ()
    train_lengths: tuple[int, ...] = (4, 8, 12, 16)
    eval_lengths: tuple[int, ...] = (8, 16, 32, 64, 128, 256)
    samples: int = 128
    small: bool = False

    def __post_init__(self) -> None:
        for language, modes in self.modes:
            _validate.check_choice("modes", language, hard_training.LANGUAGES)
            for mode in modes:
                _validate.check_choice("modes", mode, tuple(LABELS))
        for name in ("steps", "batch", "samples"):
            _validate.check_int_arg(name, getattr(self, name))
        for seed in self.seeds:
            _validate.check_int_arg("seeds", seed, minimum=0)
        if not self.seeds:
            raise ValueError("seeds: expected at least one seed")
        _validate.check_positive("learning_rate", self.learning_rate)
        _validate.check_choice("schedule", self.schedule, hard_training.SCHEDULES)
        _validate.check_positive("final_temperature", self.final_temperature)
        if not 0.0 <= self.hard_fraction <= 1.0:
            raise ValueError(
                f"hard_fraction: expected a number in [0, 1], got {self.hard_fraction}"
            )
        _validate.check_int_arg("width", self.width, minimum=4)
        _validate.check_int_arg("layers", self.layers, minimum=1)
        for language, kind in self.positional:
            _validate.check_choice("positional", language, hard_training.LANGUAGES)
            hard_training.model_config(language, positional=kind)  # names a bad kind
        for language, _ in self.modes:
            for n in (*self.train_lengths, *self.eval_lengths):
                if not hard_training.has_both_classes(language, n):
                    raise ValueError(f"train_lengths/eval_lengths: {language} has none at {n}")


def _accuracies(
    model, language: str, config: GeneralizationConfig, built: bool = False
) -> list[float]:
    # Seed 1000 + n: the same evaluation strings for every model and seed.
    if built and language == "dyck2":  # the Dyck-(2, D) recognizer reads dyck_k.embed's code
        out = []
        for n in config.eval_lengths:
            strings, labels = hard_training.sample(language, n, config.samples, 1000 + n)
            out.append(float(np.mean((dyck_k.decision_margins(model, strings) > 0) == labels)))
        return out
    return [
        hard_training.accuracy(model, language, n, config.samples, 1000 + n)
        for n in config.eval_lengths
    ]


def constructed(language: str) -> object:
    """The construction beside the trained models: PARITY Chiang & Cholak 2022 (softmax, float32),
    Dyck-1 average-hard after Yao et al. 2021 (float32), Dyck-2 the Dyck-(2,
    :data:`.hard_training.DYCK2_DEPTH`) recognizer of :func:`.dyck_k.build` (average-hard layer 1,
    then layers where leftmost-hard gives the same output); all float32 (the experiment runs
    without JAX's 64-bit mode)."""
    _validate.check_choice("language", language, hard_training.LANGUAGES)
    if language == "dyck2":
        return dyck_k.build(2, hard_training.DYCK2_DEPTH, "hard", dtype=jnp.float32)
    return constructions.build(language, dtype=jnp.float32)


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
            "accuracy": _accuracies(model, language, config, built=name == "constructed"),
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
                    final_temperature=config.final_temperature,
                    hard_fraction=config.hard_fraction if mode == "annealed_leftmost" else 0.0,
                    schedule=config.schedule,
                    width=config.width,
                    layers=config.layers,
                    positional=dict(config.positional).get(language),
                    small=config.small,
                )
                add(language, LABELS[mode], hard_training.deployed(params, mode), seed, losses)
                if mode == "softmax":
                    hard = hard_training.deployed(params, "straight_through_leftmost")
                    add(language, SOFT_THEN_HARD, hard, seed, None)
        add(language, "constructed", constructed(language), None, None)
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
