"""How each of Chen & Zou's four tasks is built and trained, one table per size.

A :class:`TaskSetup` holds the task instance, the data split, the optimizer and the
initialization choices of one task at one size. :data:`QUICK` and :data:`PAPER` are the two
tables; :data:`SETUPS` maps a size name to its table, and an
:class:`~transformer_theory.sweeps.ExperimentSettings` may bring its own tables (a new size, a
changed task) in the same form.

Sizes:

- ``quick``: small datasets that a 2-core CPU trains in seconds per run (all four tasks x depths
  1-4 x 3 seeds in a few minutes);
- ``paper``: Chen & Zou 2024, §9.1's sizes (``d1 = 500``, ``n = 6`` for memorization; 100 questions
  and 100 answers for reasoning; 210 symbols for generalization; 100 symbols, 100 answers,
  ``l = 5`` for contextual generalization). §9.1 does not give ``k``, the template sets, the
  number of memorized examples ``e``, the learning rate or the step count; our choices are written
  next to each entry.

Initialization (both sizes; :func:`transformer_theory.train.paper_init`, Chen & Zou 2024, §9.1):
``W_QK`` uniform in ``[0, 1)``, the first layer's ``W_QK`` set to the constructed pattern for the
three non-memorization tasks, the classifier uniform in ``[0, 1)``; ``W_V`` = identity (our reading
of "W_V ... with a value of 1"; the all-ones reading, ``w_v="ones"``, stalls the two-layer
reasoning model in the quick budget); the ``W_QK`` of layers 2.. are scaled to uniform
``[0, 0.1)`` (memorization, whose first layer is not a sparse pattern: ``[0, 0.01)``, at paper
size ``[0, 0.001)``) -- §9.1 leaves them open for the pattern-initialized tasks and says uniform
``[0, 1)`` for memorization, but uniform ``[0, 1)`` makes 4-layer ReLU streams overflow float32
(memorization at depth 4: initial loss ~1e36, then NaN).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from transformer_theory import _validate
from transformer_theory import tasks as tasklib
from transformer_theory.train import DataSettings, EarlyStop, TrainSettings

__all__ = [
    "PAPER",
    "PAPER_CLAIMS",
    "QUICK",
    "SETUPS",
    "SIZES",
    "TASK_NAMES",
    "TaskSetup",
]

TASK_NAMES = ("memorization", "reasoning", "generalization", "contextual")
# What Chen & Zou 2024 claim for each task (§6.1); written into aggregate.csv beside the numbers.
PAPER_CLAIMS = {
    "memorization": "1 layer memorizes (Thm 1)",
    "reasoning": "1 layer fails, at chance (Thm 2); 2 layers reason (Thm 3)",
    "generalization": "1 layer fails, at chance (Thm 4); 2 layers generalize (Thm 5)",
    "contextual": "1-2 layers at chance (Thm 2, §6.1); 3 layers succeed (Thm 6)",
}


@dataclasses.dataclass(frozen=True)
class TaskSetup:
    """How one task is built and trained at one size.

    Attributes:
      task: the task instance (a frozen dataclass of the tasks API; its repr identifies the run).
      data: the training / held-out split.
      train: optimizer, batch size, step count, logging and checkpoint intervals (its ``seed`` is
        replaced by each run's seed).
      extra_width: padding coordinates beyond ``d + n`` (Theorem 6 needs ``l + 2``).
      w_v: ``"identity"`` or ``"ones"`` (:func:`~transformer_theory.train.paper_init`).
      later_qk_scale: factor on the uniform ``[0, 1)`` ``W_QK`` of layers 2.. (§9.1 leaves it
        open; 1.0 diverges at depth 4).
      early_stop: stop a run before ``train.steps`` when this rule fires (None: never).
    """

    task: tasklib.Task
    data: DataSettings
    train: TrainSettings
    extra_width: int = 0
    w_v: str = "identity"
    later_qk_scale: float = 0.1
    early_stop: EarlyStop | None = None

    def __post_init__(self):
        if not isinstance(self.task, tasklib.Task):
            raise ValueError(
                f"task: expected a task of transformer_theory.tasks, got {self.task!r}"
            )
        _validate.check_positive("extra_width", self.extra_width, allow_zero=True)
        _validate.check_choice("w_v", self.w_v, ("identity", "ones"))
        if not self.later_qk_scale > 0:
            raise ValueError(
                f"later_qk_scale: expected a positive factor, got {self.later_qk_scale}"
            )

    @property
    def width(self) -> int:
        """The residual width ``d' = d + n + extra_width``."""
        return self.task.vocab_size + self.task.seq_len + self.extra_width

    def replace(self, **changes: Any) -> TaskSetup:
        return dataclasses.replace(self, **changes)


_SGD = TrainSettings(optimizer="sgd", learning_rate=0.1, grad_clip=1.0)
_QUICK_TRAIN = dict(batch_size=64, log_every=50, checkpoint_every=500)
_PAPER_TRAIN = dict(batch_size=256, log_every=500, checkpoint_every=5000)
_HELD_OUT = DataSettings(holdout=0.2, eval_size=1024)
_BALANCED = DataSettings(holdout=0.2, eval_size=1024, balance_classes=True)

QUICK: dict[str, TaskSetup] = {
    # 64 random length-3 sequences over 8 symbols, 64 distinct labels; full-batch GD. §9.1 puts
    # every W_QK of the memorization model uniform in [0, 1); at depth 4 that gives an initial loss
    # ~1e36 and then NaN (measured), and even [0, 0.1) in layers 2.. starts at ~1e24 and never
    # moves. Layers 2.. get [0, 0.01) (initial loss ~1e11 at depth 4, memorized in 1000 steps).
    "memorization": TaskSetup(
        task=tasklib.SequenceClassification(8, 3, 64, seed=0),
        data=DataSettings(eval_on_train=True),
        train=_SGD.replace(steps=1000, **_QUICK_TRAIN),
        later_qk_scale=0.01,
    ),
    # 6 questions, 6 answers, k = 2 pairs (1800 sequences, 360 held out).
    "reasoning": TaskSetup(
        task=tasklib.InContextQA(6, 6, 2),
        data=_HELD_OUT,
        train=_SGD.replace(steps=2000, **_QUICK_TRAIN),
    ),
    # All 5 equality patterns of length 3 over 10 symbols (1000 sequences, 200 held out),
    # class-balanced: the all-distinct template owns 72% of the sequences.
    "generalization": TaskSetup(
        task=tasklib.TemplateMatching(10, tasklib.all_templates(3)),
        data=_BALANCED,
        train=_SGD.replace(steps=2000, **_QUICK_TRAIN),
    ),
    # 6 symbols, 4 answers, the 2 patterns of length l = 2, k = 2 (155520 sequences, 1024 held
    # out); width d + n + l + 2 as in Theorem 6 (without the l + 2 spare dims, 3 layers stall at
    # 1/k).
    "contextual": TaskSetup(
        task=tasklib.InContextTemplateMatching(6, 4, tasklib.all_templates(2), 2),
        data=_HELD_OUT,
        train=_SGD.replace(steps=3000, **_QUICK_TRAIN),
        extra_width=2 + 2,
    ),
}

PAPER: dict[str, TaskSetup] = {
    # §9.1: d1 = 500, n = 6 (+ CLS); e = 1000 examples (our choice; §9.1 leaves e open). Layers
    # 2.. get W_QK uniform in [0, 0.001): with [0, 0.01) the 4-layer model starts at loss 4.8e20
    # and does not move in 1,600 Adam steps (accuracy 0, seed 2); with [0, 0.001) it starts at
    # 4e8 and has memorized by step 50 (measured).
    "memorization": TaskSetup(
        task=tasklib.SequenceClassification(500, 6, 1000, seed=0),
        data=DataSettings(eval_on_train=True),
        train=_SGD.replace(steps=20000, **(_PAPER_TRAIN | dict(batch_size=1000))),
        later_qk_scale=0.001,
    ),
    # §9.1: 100 questions and 100 answers; k = 3 (our choice).
    "reasoning": TaskSetup(
        task=tasklib.InContextQA(100, 100, 3),
        data=_HELD_OUT,
        train=_SGD.replace(steps=20000, **_PAPER_TRAIN),
    ),
    # §9.1: 210 symbols; all 15 patterns of length l = 4 (our choice); class-balanced (the
    # all-distinct template owns > 97% of the sequences).
    "generalization": TaskSetup(
        task=tasklib.TemplateMatching(210, tasklib.all_templates(4)),
        data=_BALANCED,
        train=_SGD.replace(steps=20000, **_PAPER_TRAIN),
    ),
    # §9.1: 100 symbols, 100 answers, l = 5 (all 52 patterns), k = 2 (our choice); width
    # d + n + l + 2.
    "contextual": TaskSetup(
        task=tasklib.InContextTemplateMatching(100, 100, tasklib.all_templates(5), 2),
        data=_HELD_OUT,
        train=_SGD.replace(steps=40000, **_PAPER_TRAIN),
        extra_width=5 + 2,
    ),
}

SETUPS: dict[str, dict[str, TaskSetup]] = {"quick": QUICK, "paper": PAPER}
SIZES = tuple(SETUPS)
