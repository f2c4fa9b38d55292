"""Copy-first, copy-last and count-ones, trained small and evaluated long, at every precision,
with and without separators (Barbero et al. 2024, §4): :class:`CollapseTaskSettings` and
``get_config(size)``; the study is :mod:`.._study_collapse_tasks` (its ``run`` trains each
task, evaluates it long, records and plots).
Command::

    transformer-theory experiment collapse_tasks --out results/collapse_tasks
    python experiments/collapse_tasks.py --size smoke --out /tmp/smoke   # under a minute

(``--config collapse_tasks`` / ``--config smoke``, the script's older names for the two sizes,
still work.) Writes ``<name>.json`` (after each finished run; per task and separator setting: the
training log, and per precision the accuracy, the distance between the confusable pair's final
representations, whether they are bit-identical, and the first length where both inputs get one
prediction) and ``<name>.png`` (accuracy against length beside those lengths); ``<name>`` is
``collapse_tasks`` (default) or ``smoke``.

Result: not yet measured at the ``"default"`` size (1,500 Adam steps per task, evaluation to
length 2,048 at three precisions: longer than the 2-core machine could spare in the session that
wrote it; the smoke size runs in the tests and in notebook 07). Run the command above and record
the numbers here.

A reduced run, measured 2026-11-22 on 2 shared CPU cores in 295 s: the ``"default"`` config
with ``tasks=("copy_first", "copy_last"), steps=300, eval_max_len=512, eval_points=8,
collapse_pattern=None`` (``get_config().replace(...)`` passed to ``run``). Every run reaches
training accuracy 1.00 (lengths 2-16) in every precision; accuracy at the evaluated lengths 2, 4,
10, 22, 48, 105, 232, 512: copy-first 1.0 up to 22 and 0.5 (chance) from 48; copy-last 1.0 up to
48 and chance from 105; separators every 3 tokens change neither (bfloat16 copy-last with
separators drops to chance already at 48). The pair never became bit-identical up to 512 in any
precision: these small models fail by not generalizing in length (RoPE, trained to 16) long
before representational collapse could be the cause, so at this size the separators' predicted
effect on the collapse length cannot be seen in accuracy. (Measured with the hand-written Adam
loop that :func:`~transformer_theory.train.fit.fit` replaced: the same optimizer, batches and
steps.)
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.papers.barbero2024._models import POSITIONAL
from transformer_theory.papers.barbero2024._tasks import TASKS
from transformer_theory.precision import PRECISIONS

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = ["SIZES", "CollapseTaskSettings", "get_config"]

SIZES = ("smoke", "default")


@dataclasses.dataclass(frozen=True)
class CollapseTaskSettings:
    """One experiment: which tasks, which model, how it trains, where it is evaluated.

    Attributes:
      name: names the output files.
      tasks: names from :data:`~.._tasks.TASKS`.
      separators: for each entry a run: ``None`` (plain) or ``k`` (a separator after every ``k``
        content tokens, Barbero et al. 2024's remedy).
      positional: the model's positional code (:data:`~.._models.POSITIONAL`).
      depth, heads, width: the model.
      train_min_len, train_max_len: content lengths the copying tasks train on.
      count_max_len: ``count_ones`` trains on ``1 .. count_max_len`` ones and is evaluated at
        every count ``1 .. count_max_len - 1`` (the pair ``n, n + 1`` must both have a class; a
        count beyond the trained ones has none); its classes are ``0 .. count_max_len``.
      eval_max_len, eval_points: evaluation lengths (geometric from ``train_min_len``).
      precisions: evaluation precisions.
      collapse_pattern: also measure the trained model's collapse on this pattern with its last
        token repeated (:func:`~.._theory_collapse.model_record`, lengths up to
        ``eval_max_len``), for the runs without separators; None: skip.
      steps, batch_size, learning_rate: Adam on float32 parameters.
      seed: initialization and batches.
    """

    name: str
    tasks: tuple[str, ...] = TASKS
    separators: tuple[int | None, ...] = (None, 3)
    positional: str = "rope"
    depth: int = 2
    heads: int = 1
    width: int = 32
    train_min_len: int = 2
    train_max_len: int = 16
    count_max_len: int = 48
    eval_max_len: int = 2048
    eval_points: int = 20
    precisions: tuple[str, ...] = PRECISIONS
    collapse_pattern: str | None = "ones_zero"
    steps: int = 1500
    batch_size: int = 64
    learning_rate: float = 1e-3
    seed: int = 0

    def __post_init__(self) -> None:
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        for name in ("learning_rate", "train_min_len", "count_max_len"):
            _validate.check_positive(name, getattr(self, name))
        if self.train_max_len < self.train_min_len:
            raise ValueError(
                f"train_max_len: expected at least train_min_len = {self.train_min_len}, got "
                f"{self.train_max_len}"
            )
        for t in self.tasks:
            _validate.check_choice("tasks", t, TASKS)
        for p in self.precisions:
            _validate.check_choice("precisions", p, PRECISIONS)
        for k in self.separators:
            if k is not None:
                _validate.check_positive("separators", k)
        _validate.check_choice("positional", self.positional, POSITIONAL)
        for name in ("depth", "heads", "width", "steps", "batch_size", "eval_points"):
            _validate.check_positive(name, getattr(self, name))
        if self.eval_max_len < self.train_max_len:
            raise ValueError(
                f"eval_max_len: expected at least train_max_len = {self.train_max_len}, got "
                f"{self.eval_max_len}"
            )

    def replace(self, **changes: object) -> CollapseTaskSettings:
        return dataclasses.replace(self, **changes)


def get_config(size: str = "default") -> CollapseTaskSettings:
    """The config of ``size`` (:data:`SIZES`): ``"smoke"`` (one task, 20 steps, bfloat16 only:
    seconds of work, the test) or ``"default"`` (the run quoted above)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    if size == "smoke":
        return CollapseTaskSettings(
            name="smoke",
            tasks=("count_ones",),
            separators=(None, 2),
            depth=1,
            width=24,
            count_max_len=3,
            eval_points=2,
            precisions=("bfloat16",),
            collapse_pattern=None,
            steps=20,
            batch_size=8,
        )
    return CollapseTaskSettings(name="collapse_tasks")
