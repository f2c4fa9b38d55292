"""One training run (:class:`~.specs.RunSpec`): the model, data and optimizer it builds, its
training and summary, the sweep of many.

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
from transformer_theory.params import ModelParams
from transformer_theory.sweeps.specs import RunSpec
from transformer_theory.sweeps.tables import aggregate
from transformer_theory.train import (
    TaskData,
    TrainSettings,
    paper_init,
    random_init,
    restore_params,
    train,
)

__all__ = [
    "sweep",
    "RunSummary",
    "build_data",
    "build_model",
    "build_run",
    "execute",
    "trained_params",
]


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
    return _train_one(spec, out_root, progress)[0]


def _train_one(
    spec: RunSpec, out_root: str | None, progress: bool
) -> tuple[RunSummary, ModelParams]:
    """:func:`execute`'s row and the run's final parameters (those its last checkpoint holds:
    :func:`~transformer_theory.train.train` checkpoints at the end, and before a diverging
    update)."""
    params, data, tc, meta = build_run(spec)
    out_dir = None if out_root is None else os.path.join(out_root, spec.name)
    t0 = time.perf_counter()
    res = train(
        params, data, tc, out_dir, meta=meta, progress=progress, early_stop=spec.setup.early_stop
    )
    last = res.metrics[-1]
    diverged = res.diverged_step is not None
    row = RunSummary(
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
    return row, res.params


def trained_params(spec: RunSpec, out_root: str) -> ModelParams:
    """The parameters of the latest checkpoint of ``spec``'s run under ``out_root``."""
    return restore_params(os.path.join(out_root, spec.name), build_model(spec), spec.train_config)


def sweep(
    specs: Sequence[RunSpec],
    out: str,
    progress: bool = True,
    on_result: Callable[[int, RunSpec, RunSummary], None] | None = None,
    keep: RunSpec | None = None,
) -> tuple[list[RunSummary], ModelParams | None]:
    """Train every spec (resuming or continuing its directory), write ``summary.*`` and
    ``aggregate.csv``; ``on_result(i, spec, row)`` is called after each run. Returns the rows
    and the final parameters of the run ``keep`` names (``None`` without one): what its last
    checkpoint holds, so the caller draws it without reading it back (:func:`trained_params`
    reads it from a directory)."""
    if keep is not None and keep.name not in {spec.name for spec in specs}:
        raise ValueError(f"keep: {keep.name!r} is not one of the runs")
    os.makedirs(out, exist_ok=True)
    rows, kept = [], None
    for i, spec in enumerate(specs):
        row, params = _train_one(spec, out, progress)
        if keep is not None and spec.name == keep.name:
            kept = params
        rows.append(row)
        if on_result is not None:
            on_result(i, spec, row)
    write_json(os.path.join(out, "summary.json"), rows)
    if rows:
        write_csv(os.path.join(out, "summary.csv"), rows, list(rows[0]))
        write_csv(os.path.join(out, "aggregate.csv"), aggregate(rows))
    return rows, kept
