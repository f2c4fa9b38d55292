"""One training run described, before anything is built: :class:`RunSpec` (the task, heads per
layer, seed and setup), its directory name, training settings, model config and the settings a
resume is compared against. What a run builds and trains is :mod:`.runs`.

A run's keys all derive from its seed: ``root = key(seed)``; initialization ``fold_in(root, 0)``;
data split / held-out sample ``fold_in(root, 2)``; the batch of step ``s``
``fold_in(fold_in(root, 1), s)`` (:func:`transformer_theory.train.train`). So a run is reproduced
exactly by its spec, and a killed run resumes on the same batches.
"""

from __future__ import annotations

import dataclasses

from transformer_theory.params import ModelConfig
from transformer_theory.sweeps.setups import SETUPS, TaskSetup
from transformer_theory.train import TrainSettings, run_settings

__all__ = ["RunSpec"]


@dataclasses.dataclass(frozen=True)
class RunSpec:
    """One training run: ``task`` with ``heads`` per layer and ``seed``, trained as ``setup`` says.

    Attributes:
      task: the task's name (a key of the setup tables).
      heads: heads per layer; ``len(heads)`` is the depth.
      seed: the run's seed (see the module docstring).
      size: the setup table's name (a label of the run; ``setup`` holds what it means).
      steps: train to this many steps (None: the setup's count).
      init: ``"paper"`` (Chen & Zou 2024, §9.1) or ``"random"``.
      optimizer, learning_rate: override the setup's (None: keep).
      setup: the :class:`~.setups.TaskSetup` (None: ``SETUPS[size][task]``).
    """

    task: str
    heads: tuple[int, ...]
    seed: int
    size: str = "quick"
    steps: int | None = None
    init: str = "paper"
    optimizer: str | None = None
    learning_rate: float | None = None
    setup: TaskSetup | None = None

    def __post_init__(self):
        object.__setattr__(self, "heads", tuple(int(h) for h in self.heads))
        if self.setup is None:
            if self.size not in SETUPS:
                raise ValueError(f"size: expected one of {tuple(SETUPS)}, got {self.size!r}")
            if self.task not in SETUPS[self.size]:
                raise ValueError(
                    f"task: expected one of {tuple(SETUPS[self.size])}, got {self.task!r}"
                )
            object.__setattr__(self, "setup", SETUPS[self.size][self.task])
        if self.init not in ("paper", "random"):
            raise ValueError(f"init: expected 'paper' or 'random', got {self.init!r}")

    @property
    def name(self) -> str:
        """The run directory's name, e.g. ``reasoning_heads1-1_seed0`` (``_adam_lr0.001`` when the
        optimizer or learning rate is overridden)."""
        h = "-".join(str(x) for x in self.heads)
        opt = "" if self.optimizer is None else f"_{self.optimizer}"
        lr = "" if self.learning_rate is None else f"_lr{self.learning_rate:g}"
        return f"{self.task}_heads{h}_seed{self.seed}{opt}{lr}"

    @property
    def train_config(self) -> TrainSettings:
        """The setup's :class:`~transformer_theory.train.TrainSettings` with this run's seed and
        overrides (``steps`` also caps the logging and checkpoint intervals)."""
        tc = self.setup.train.replace(seed=self.seed)
        if self.steps is not None:
            tc = tc.replace(
                steps=self.steps,
                log_every=min(tc.log_every, self.steps),
                checkpoint_every=min(tc.checkpoint_every, self.steps),
            )
        if self.optimizer is not None:
            tc = tc.replace(optimizer=self.optimizer)
        if self.learning_rate is not None:
            tc = tc.replace(learning_rate=self.learning_rate)
        return tc

    @property
    def model_config(self) -> ModelConfig:
        return self.setup.task.model_config(heads=self.heads, width=self.setup.width)

    @property
    def meta(self) -> dict:
        """What the run's ``metrics.json`` says about it (also part of its settings)."""
        stop = self.setup.early_stop
        early = {} if stop is None else {"early_stop": dataclasses.asdict(stop)}
        return dict(
            name=self.name,
            task=self.task,
            heads=list(self.heads),
            depth=len(self.heads),
            seed=self.seed,
            size=self.size,
            init=self.init,
            w_v=self.setup.w_v,
            later_qk_scale=self.setup.later_qk_scale,
            chance=1.0 / self.setup.task.num_classes,
            **early,
        )

    def settings(self) -> dict:
        """The run's settings (:func:`transformer_theory.train.run_settings`), computed without
        building the model or the data -- what a resume is compared against."""
        s = self.setup
        return run_settings(self.model_config, s.task, s.data, self.train_config, self.meta)
