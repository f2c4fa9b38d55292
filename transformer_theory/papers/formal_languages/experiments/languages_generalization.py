"""Hahn 2020's rows of Strobl et al. 2024's table as an experiment: PARITY, Dyck-1 and Dyck-(2, 3)
models trained on lengths 4-16 with softmax and with leftmost-hard attention (straight-through;
an annealed-softmax curriculum ending straight-through), evaluated at lengths 8-256 beside the
constructed recognizers (what each model is: below).

The settings (:class:`GeneralizationSettings`) and the sizes (:func:`get_config`); the study that
trains, evaluates, records and plots is :mod:`.._study_languages_generalization` (its ``run``,
found by :func:`transformer_theory.papers.study_of`).

Command (one seed; the result below ran ``--seeds 0``, ``1`` and ``2`` separately, one at a
time)::

    python experiments/languages_generalization.py --out results/languages_generalization

Writes ``languages_generalization.json`` (``records``: per model its accuracy at every evaluation
length and its final loss, the mean of the last 20 steps' losses; ``seconds``; ``settings``: this
config), rewritten after every finished model, and ``languages_generalization.png`` (accuracy
against length, one panel per language). The three seeds' records are committed as
``experiments/results/languages_generalization_seeds012.json`` (the constructed rows once).

The default (2026-11-25): 4 layers of two heads, width 32, MLP 64; 4000 Adam steps of 32 fresh
balanced strings, learning rate 3e-3 with a cosine decay to 3e-4; Dyck-1 with the core's
``(i/n, (-1)^i)`` code (Dyck-2's default code, :func:`.._models.model_config`), PARITY its
construction's; the curriculum anneals the temperature from 1 to 0.03 over the first 80% of the
steps, then trains the leftmost-hard forward (straight-through) for the last 20%. Took 407 s,
387 s and 352 s for seeds 0, 1, 2 on the 2-core CPU shared with other helpers' jobs (timings
noisy); the smoke size (``--size smoke`` or ``--smoke``) a few seconds.

Result (accuracy on 128 balanced strings per length, the same strings for every seed):
("straight-thr.": straight-through; "curriculum": annealed softmax then straight-through;
loss: the final loss, for the leftmost-hard models the hard model's own)::

    model                              seed   loss    8   16   32   64  128  256
    PARITY softmax                        0  0.030 1.00 0.94 0.35 0.56 0.40 0.48
    PARITY softmax                        1  0.655 0.61 0.44 0.55 0.51 0.52 0.43
    PARITY softmax                        2  0.391 0.97 0.67 0.38 0.57 0.47 0.46
    PARITY soft-then-hard                 0        0.53 0.48 0.46 0.52 0.56 0.52
    PARITY soft-then-hard                 1        0.48 0.51 0.55 0.51 0.50 0.50
    PARITY soft-then-hard                 2        0.52 0.46 0.48 0.50 0.50 0.50
    PARITY leftmost, straight-thr.        0  0.665 0.47 0.51 0.49 0.54 0.45 0.48
    PARITY leftmost, straight-thr.        1  0.678 0.51 0.53 0.52 0.50 0.50 0.50
    PARITY leftmost, straight-thr.        2  0.660 0.47 0.52 0.53 0.51 0.49 0.48
    PARITY leftmost, curriculum           0  0.648 0.49 0.49 0.54 0.45 0.54 0.52
    PARITY leftmost, curriculum           1  0.696 0.54 0.43 0.53 0.48 0.49 0.51
    PARITY leftmost, curriculum           2  0.650 0.53 0.50 0.48 0.50 0.50 0.50
    PARITY constructed                    -        1.00 1.00 1.00 1.00 1.00 1.00
    Dyck-1 softmax                        0  2e-06 1.00 1.00 0.91 0.69 0.57 0.62
    Dyck-1 softmax                        1  1e-06 1.00 1.00 0.77 0.66 0.56 0.61
    Dyck-1 softmax                        2  4e-06 1.00 1.00 0.94 0.70 0.57 0.63
    Dyck-1 soft-then-hard                 0        0.60 0.49 0.50 0.50 0.49 0.50
    Dyck-1 soft-then-hard                 1        0.70 0.54 0.51 0.50 0.50 0.50
    Dyck-1 soft-then-hard                 2        0.50 0.50 0.50 0.50 0.50 0.50
    Dyck-1 leftmost, straight-thr.        0  0.133 1.00 0.84 0.62 0.48 0.50 0.50
    Dyck-1 leftmost, straight-thr.        1  0.219 0.95 0.73 0.65 0.54 0.50 0.50
    Dyck-1 leftmost, straight-thr.        2  0.158 1.00 0.82 0.59 0.52 0.52 0.52
    Dyck-1 leftmost, curriculum           0  0.372 0.72 0.58 0.53 0.51 0.50 0.50
    Dyck-1 leftmost, curriculum           1  0.464 0.81 0.68 0.56 0.56 0.52 0.47
    Dyck-1 leftmost, curriculum           2  0.439 0.81 0.69 0.51 0.53 0.50 0.50
    Dyck-1 constructed                    -        1.00 1.00 1.00 1.00 1.00 1.00
    Dyck-(2,3) softmax                    0  5e-05 1.00 1.00 0.93 0.80 0.63 0.49
    Dyck-(2,3) softmax                    1  0.002 1.00 1.00 0.98 0.79 0.62 0.52
    Dyck-(2,3) softmax                    2  1e-04 1.00 1.00 0.94 0.73 0.59 0.55
    Dyck-(2,3) soft-then-hard             0        0.45 0.45 0.48 0.50 0.50 0.50
    Dyck-(2,3) soft-then-hard             1        0.51 0.50 0.50 0.50 0.50 0.50
    Dyck-(2,3) soft-then-hard             2        0.50 0.49 0.50 0.50 0.50 0.50
    Dyck-(2,3) leftmost, straight-thr.    0  0.020 1.00 0.98 0.83 0.56 0.52 0.50
    Dyck-(2,3) leftmost, straight-thr.    1  0.047 1.00 0.94 0.71 0.52 0.50 0.50
    Dyck-(2,3) leftmost, straight-thr.    2  0.110 0.99 0.95 0.73 0.59 0.52 0.51
    Dyck-(2,3) leftmost, curriculum       0  0.242 0.91 0.77 0.62 0.54 0.54 0.49
    Dyck-(2,3) leftmost, curriculum       1  0.427 0.85 0.69 0.61 0.54 0.50 0.54
    Dyck-(2,3) leftmost, curriculum       2  0.398 0.88 0.71 0.48 0.52 0.48 0.56
    Dyck-(2,3) constructed                -        1.00 1.00 1.00 1.00 1.00 1.00

What it shows: with this recipe the straight-through leftmost-hard Dyck-(2, 3) model fits its
training lengths (final loss 0.020-0.11; 0.99-1.00 at length 8, 0.94-0.98 at 16), and Dyck-1's
nearly does (loss 0.13-0.22; 0.95-1.00 at 8, 0.73-0.84 at 16); both are at chance by length 128
(0.50-0.52). The softmax Dyck models fit lengths 8 and 16 exactly (1.00) and fall to 0.49-0.63
at 256; the constructions are right (1.00) at every length. The curriculum is WORSE than plain
straight-through in every case (at length 16: Dyck-2 0.69-0.77, Dyck-1 0.58-0.69): what the
low-temperature softmax learns first does not carry over to leftmost-hard attention. No
leftmost-hard PARITY model fits (final loss 0.65-0.70, accuracy 0.43-0.54 at every length); the
softmax PARITY model fits its range for seed 0 only (1.00 / 0.94 at 8 / 16; seed 2 0.97 / 0.67,
seed 1 0.61 / 0.44). Soft-then-hard is near chance (0.45-0.70).

What it does not show: Hahn 2020's theorem is about every parameter setting at unbounded length;
a PARITY hard model that fails at lengths 4-16 failed in the optimizer or the architecture, at
lengths where the theorem forbids nothing, so it is no evidence for the theorem. Dyck-(2, 3) is
bounded-depth and not covered by it; the fitted hard models' collapse at long lengths is what
these runs found, not an impossibility. A leftmost-hard recognizer of the training lengths
exists for Dyck in the strict-masking model of Yang, Chiang & Angluin 2024 (see
:func:`.._models.model_config`); whether one exists for PARITY at lengths 4-16 in these
4-layer models is not known here.

Recipe search (seed 0, one model each, 128 strings per length, accuracy at lengths 8 / 16,
2026-11-25, several at once on the shared CPU): the old default (2 layers, width 16, 300 steps,
constant rate) left the hard models at chance-level losses (PARITY 0.67-0.69, Dyck-1 0.53-0.62).
2 layers, 1500 steps, cosine: Dyck-2 straight-through loss 0.43 (0.82 / 0.66), curriculum to
T = 0.1 with 30% hard 0.39 (0.85 / 0.79); Dyck-1 without a positional code 0.62 for both (0.59 /
0.58); PARITY 0.68-0.69. 2 layers, 3000 steps: Dyck-1 with the ``(i/n, (-1)^i)`` code 0.39
(0.84 / 0.75), curriculum 0.44; Dyck-2 curricula T = 0.3 / 50% hard 0.42 (0.80 / 0.69) and
T = 0.03 / 20% hard 0.36 (0.88 / 0.78). 4 layers, width 32, 3000 steps: Dyck-2 straight-through
0.11 (1.00 / 0.90), curriculum T = 0.1 / 30% 0.38 (0.85 / 0.73); Dyck-1 0.22 (0.98 / 0.83); PARITY
0.66 (0.51 / 0.55). 6 layers, width 32, 4000 steps: Dyck-1 0.12 (1.00 / 0.86). After the
seeds ran, Dyck-1 straight-through at 4 layers, width 32: 8000 steps 0.094 (1.00 / 0.88), 4000
steps of 128 strings 0.11 (1.00 / 0.81) -- still short of fitting length 16. Depth was what
mattered most; the default takes 4 layers and 4000 steps to stay under ~7 min a seed.

What is trained (the same masking as the construction of the row; the depth, width, positional
code and schedule are the config's; Adam on fresh balanced samples of the training lengths at
every step; labels from the membership references, the Dyck-2 ones from the stack of
:func:`.._tasks_dyck_k.is_dyck_k_member`; Dyck-2 evaluation strings half members, half the HARD
non-members of :func:`.._tasks_dyck_k.dyck_k_sample`, so "always no" scores 0.5):

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
  average-hard after Yao et al. 2021; Dyck-(2, 3):
  :func:`.._constructions_dyck_k.dyck_k_recognizer`,
  average-hard layer 1 then layers where leftmost-hard gives the same output).

What this shows and does not: Hahn 2020 proves that for every leftmost-hard transformer, PARITY and
Dyck-1 are misrecognized at SOME length (an asymptotic statement about every parameter setting);
bounded-depth Dyck-(2, 3) is star-free and is not covered. A trained model that fails at length 64
is one parameter setting found by one optimizer; it neither confirms the theorem (the failure may
be the optimizer's) nor could a success refute it (the theorem allows any finite range of lengths
to be right). The experiment shows what these training runs reach, by length, next to
constructions that do not break.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.papers.formal_languages import _models

__all__ = ["SIZES", "GeneralizationSettings", "get_config"]

SIZES = ("smoke", "default")


@dataclasses.dataclass(frozen=True)
class GeneralizationSettings:
    """One run of the experiment.

    Attributes:
      size: the config's size name (``"smoke"``, ``"default"``), recorded with the results.
      modes: per language, the training modes of :data:`.._models.TRAINING_MODES` (a
        ``"softmax"`` run is also read with leftmost-hard attention: soft-then-hard).
      seeds: training seeds; every (language, mode, seed) is one model.
      steps, batch, learning_rate: Adam's steps, strings per step and step size.
      train_lengths: the lengths a step draws from; eval_lengths: where accuracy is measured.
      samples: balanced evaluation strings per length (the same strings for every seed).
      schedule, final_temperature, hard_fraction, width, layers: the arguments of
        :func:`.._models.train_hard_attention` (``hard_fraction`` for the
        ``"annealed_leftmost"`` mode only).
      positional: ``(language, kind)`` pairs overriding :func:`.._models.model_config`'s
        positional code of a language.
      small: :func:`.._models.model_config`'s one-head model (the smoke size's).
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
            _validate.check_choice("modes", language, _models.LANGUAGES)
            for mode in modes:
                _validate.check_choice("modes", mode, _models.TRAINING_MODES)
        for name in ("steps", "batch", "samples"):
            _validate.check_int_arg(name, getattr(self, name))
        for seed in self.seeds:
            _validate.check_int_arg("seeds", seed, minimum=0)
        if not self.seeds:
            raise ValueError("seeds: expected at least one seed")
        _validate.check_positive("learning_rate", self.learning_rate)
        _validate.check_choice("schedule", self.schedule, _models.SCHEDULES)
        _validate.check_positive("final_temperature", self.final_temperature)
        if not 0.0 <= self.hard_fraction <= 1.0:
            raise ValueError(
                f"hard_fraction: expected a number in [0, 1], got {self.hard_fraction}"
            )
        _validate.check_int_arg("width", self.width, minimum=4)
        _validate.check_int_arg("layers", self.layers, minimum=1)
        for language, kind in self.positional:
            _validate.check_choice("positional", language, _models.LANGUAGES)
            _models.model_config(language, positional=kind)  # names a bad kind
        for language, _ in self.modes:
            for n in (*self.train_lengths, *self.eval_lengths):
                if not _models.has_both_classes(language, n):
                    raise ValueError(f"train_lengths/eval_lengths: {language} has none at {n}")


def get_config(size: str = "default") -> GeneralizationSettings:
    """The experiment at ``size``: ``"default"`` (the result above: 4000 Adam steps of 32
    strings, seed 0, four layers of two heads, width 32) or ``"smoke"`` (two steps of the
    one-head model, Dyck-2's softmax model only, one length; a few seconds)."""
    if size == "default":
        return GeneralizationSettings(
            steps=4000,
            batch=32,
            learning_rate=3e-3,
            schedule="cosine",
            final_temperature=0.03,
            hard_fraction=0.2,
            width=32,
            layers=4,
            positional=(("dyck1", "chiang_cholak"),),
        )
    if size == "smoke":
        # One training (the straight-through loop has its own smoke test in
        # tests/papers/formal_languages/test_hard_training.py).
        return GeneralizationSettings(
            size="smoke",
            modes=(("dyck2", ("softmax",)),),
            seeds=(0,),
            steps=2,
            batch=8,
            train_lengths=(4,),
            eval_lengths=(4,),
            samples=8,
            small=True,
        )
    raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")
