"""One training run: its spec, the model, data and optimizer it builds, and its settings.

A run's keys all derive from its seed: ``root = key(seed)``; initialization ``fold_in(root, 0)``;
data split / held-out sample ``fold_in(root, 2)``; the batch of step ``s``
``fold_in(fold_in(root, 1), s)`` (:func:`transformer_theory.train.train`). So a run is reproduced
exactly by its spec, and a killed run resumes on the same batches.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import jax

from transformer_theory.jsonio import write_csv, write_json
from transformer_theory.params import ModelConfig, ModelParams
from transformer_theory.sweeps.setups import SETUPS, TaskSetup
from transformer_theory.sweeps.tables import aggregate
from transformer_theory.train import (
    TaskData,
    TrainSettings,
    paper_init,
    random_init,
    restore_params,
    run_settings,
    train,
)

__all__ = [
    "sweep",
    "RunSpec",
    "RunSummary",
    "build_data",
    "build_model",
    "build_run",
    "execute",
    "trained_params",
]


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


def build_model(spec: RunSpec) -> ModelParams:
    """The run's initial parameters."""
    key = jax.random.fold_in(jax.random.key(spec.seed), 0)
    if spec.init == "paper":
        return paper_init(
            key,
            spec.model_config,
            spec.setup.task,
            w_v=spec.setup.w_v,
            later_qk_scale=spec.setup.later_qk_scale,
        )
    return random_init(key, spec.model_config)


def build_data(spec: RunSpec) -> TaskData:
    """The run's training batches and held-out set."""
    return TaskData(
        spec.setup.task, jax.random.fold_in(jax.random.key(spec.seed), 2), spec.setup.data
    )


def build_run(spec: RunSpec) -> tuple[ModelParams, TaskData, TrainSettings, dict]:
    """``(params, data, train_config, meta)`` of ``spec`` -- everything :func:`train` needs."""
    return build_model(spec), build_data(spec), spec.train_config, spec.meta


@dataclasses.dataclass(frozen=True)
class RunSummary(Mapping):
    """One finished run of a sweep (a row of ``summary.json``): its name, task, heads (``1-1``),
    depth, seed, optimizer and learning rate, the steps taken, ``status`` (``"ok"`` or
    ``"diverged"``, then ``diverged_step`` names the update that was not finite and the final
    held-out accuracy and loss are None), the held-out loss at step 0, chance level, why it
    stopped and the seconds its training took.

    Also a read-only mapping of its fields (``row["task"]``), so the sweep's tables read these
    rows and the rows of a ``summary.json`` read back alike."""

    run: str
    task: str
    heads: str
    depth: int
    seed: int
    optimizer: str
    learning_rate: float
    steps: int
    status: str
    diverged_step: int | None
    final_eval_acc: float | None
    final_eval_loss: float | None
    initial_eval_loss: float
    chance: float
    stop_reason: str | None
    seconds: float

    def __getitem__(self, key: str) -> Any:
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dataclass_fields__)

    def __len__(self) -> int:
        return len(self.__dataclass_fields__)

    @property
    def diverged(self) -> bool:
        return self.status == "diverged"


def execute(spec: RunSpec, out_root: str | None, progress: bool = True) -> RunSummary:
    """Train one run (resuming or continuing it from its directory); returns its summary row.

    The row's ``status`` is ``"ok"`` or ``"diverged"``; a diverged run's ``final_eval_acc`` and
    ``final_eval_loss`` are None and ``diverged_step`` names the update that was not finite.
    """
    params, data, tc, meta = build_run(spec)
    out_dir = None if out_root is None else os.path.join(out_root, spec.name)
    t0 = time.perf_counter()
    res = train(
        params, data, tc, out_dir, meta=meta, progress=progress, early_stop=spec.setup.early_stop
    )
    last = res.metrics[-1]
    diverged = res.diverged_step is not None
    return RunSummary(
        run=spec.name,
        task=spec.task,
        heads="-".join(map(str, spec.heads)),
        depth=len(spec.heads),
        seed=spec.seed,
        optimizer=tc.optimizer,
        learning_rate=tc.learning_rate,
        steps=res.steps_done,
        # A diverged run has no held-out result: its accuracy would be that of non-finite
        # parameters (argmax of NaN logits), not a finding.
        status="diverged" if diverged else "ok",
        diverged_step=res.diverged_step,
        final_eval_acc=None if diverged else last["eval_acc"],
        final_eval_loss=None if diverged else last["eval_loss"],
        initial_eval_loss=res.metrics[0]["eval_loss"],
        chance=meta["chance"],
        stop_reason=res.stop_reason,
        # The seconds its training took (since its last resume), as its metrics rows keep them:
        # a finished run read back reports those, not the ~0.1 s the read took (a maximum of the
        # two read the read's time whenever a warm training was shorter than the read).
        seconds=round(
            last["seconds"] if last.get("seconds") is not None else time.perf_counter() - t0, 2
        ),
    )


def trained_params(spec: RunSpec, out_root: str) -> ModelParams:
    """The parameters of the latest checkpoint of ``spec``'s run under ``out_root``."""
    return restore_params(os.path.join(out_root, spec.name), build_model(spec), spec.train_config)


def sweep(
    specs: Sequence[RunSpec],
    out: str,
    progress: bool = True,
    on_result: Callable[[int, RunSpec, RunSummary], None] | None = None,
) -> list[RunSummary]:
    """Train every spec (resuming or continuing its directory), write ``summary.*`` and
    ``aggregate.csv``; ``on_result(i, spec, row)`` is called after each run."""
    os.makedirs(out, exist_ok=True)
    rows = []
    for i, spec in enumerate(specs):
        row = execute(spec, out, progress=progress)
        rows.append(row)
        if on_result is not None:
            on_result(i, spec, row)
    write_json(os.path.join(out, "summary.json"), rows)
    if rows:
        write_csv(os.path.join(out, "summary.csv"), rows, list(rows[0]))
        write_csv(os.path.join(out, "aggregate.csv"), aggregate(rows))
    return rows
