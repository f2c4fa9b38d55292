"""The one training runner: run directory, resume bit for bit, Ctrl-C, metrics, checkpoints,
divergence -- for any model whose train step it is given.

:func:`run` drives a jitted, *guarded* train step (:func:`guard`) from a training state to
``config.steps`` updates. The trainers only build their state and steps:
:func:`transformer_theory.train.train` (last-position classification, Chen & Zou 2024, §9.1) and
:func:`transformer_theory.train.seq2seq.train_seq2seq` (teacher forcing).

- **Batches**: the batch of step ``s`` is ``batch(fold_in(fold_in(key(seed), 1), s), batch_size)``,
  a function of ``s`` alone, so an interrupted run sees the batches an uninterrupted one would.
- **Run directory** (:mod:`.rundir`): ``run.json`` (settings and fingerprints, compared before any
  training), ``metrics.json`` / ``metrics.csv`` (:func:`write_metrics`), ``checkpoints/``
  (:mod:`.checkpoint`, every ``config.checkpoint_every`` steps and at the end). A directory that
  holds this run RESUMES from its latest checkpoint and reproduces the uninterrupted run bit for
  bit (on one device).
- **Ctrl-C**: the last completed step is checkpointed, then :class:`TrainingInterrupted`.
- **Divergence**: an update whose batch loss or resulting parameters are not finite is never
  applied, nor any later one (checked on the device by the guarded step); the host reads the flag
  every :data:`WATCH_EVERY` steps, one step behind, and at every logging or checkpoint step. The
  run then stops and records ``status: "diverged"`` in ``metrics.json`` (and its last row),
  ``metrics.csv`` (a ``status`` column), ``run.json`` and :class:`RunResult`; a re-run of a
  diverged directory reports the divergence again without training.

Shapes: ``state`` / ``opt_state`` are pytrees of arrays (an ``nnx.State`` and an Optax state).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import jax
import jax.numpy as jnp

from transformer_theory.jsonio import write_csv, write_json
from transformer_theory.progress import tqdm
from transformer_theory.train import rundir
from transformer_theory.train.checkpoint import Checkpointer
from transformer_theory.train.checkpoint import latest_step as checkpoint_latest_step

__all__ = [
    "WATCH_EVERY",
    "RunResult",
    "Schedule",
    "TrainingInterrupted",
    "guard",
    "new_watch",
    "read_rows",
    "restore",
    "run",
    "write_metrics",
]

# Steps between reads of the divergence flag outside logging and checkpoint steps. Reading it every
# step cost ~0.3 ms per 1 ms quick-size step (a device-to-host wait); every 8 steps the guarded loop
# ran as fast as the unguarded one (0.47-0.70 vs 0.49-0.66 ms, reasoning quick, 2-core CPU,
# 2026-11-24). A diverged run therefore stops at most 8 (no-op) steps after the bad update; the
# update itself is never applied.
WATCH_EVERY = 8


class Schedule(Protocol):
    """What :func:`run` reads of a training config (:class:`~transformer_theory.train.TrainSettings`
    has these fields)."""

    steps: int
    batch_size: int
    log_every: int
    checkpoint_every: int
    seed: int


class StopRule(Protocol):
    """An early-stopping rule (:class:`~transformer_theory.train.EarlyStop`)."""

    def reason(self, rows: list[dict]) -> str | None: ...


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during training; the progress since the last checkpoint was saved first.

    A ``KeyboardInterrupt``, so code that does not know it still stops. Attributes: ``step``
    (parameter updates done), ``checkpoint_step`` (the latest checkpoint on disk, None if there is
    none), ``out_dir``; :meth:`message` says how to go on.
    """

    def __init__(self, step: int, checkpoint_step: int | None, out_dir: str | None):
        self.step, self.checkpoint_step, self.out_dir = step, checkpoint_step, out_dir
        super().__init__(self.message())

    def message(self) -> str:
        if self.out_dir is None:
            return f"interrupted at step {self.step}; nothing was saved (no out_dir)"
        if self.checkpoint_step is None:
            return (
                f"interrupted at step {self.step}; no checkpoint was written; run the same "
                "command to start again"
            )
        return (
            f"interrupted at step {self.step}; the last checkpoint is step "
            f"{self.checkpoint_step}; run the same command to resume"
        )


def new_watch(start: int = 0) -> dict[str, jax.Array]:
    """The divergence watch of a guarded train step (:func:`guard`) at update ``start``."""
    return dict(
        count=jnp.asarray(start, jnp.int32),
        bad=jnp.asarray(-1, jnp.int32),
        bad_loss=jnp.asarray(0.0, jnp.float32),
    )


def guard(step: Callable[..., tuple]) -> Callable[..., tuple]:
    """The guarded form of ``step(state, opt_state, *batch) -> (state, opt_state, loss, acc)``.

    The guarded step takes and returns one more argument, a :func:`new_watch` dict ``{"count",
    "bad", "bad_loss"}`` of device scalars, and applies an update only if its batch loss and every
    resulting parameter are finite and no earlier update failed; ``bad`` becomes the 1-based
    number of the first failing update (``-1`` while none has), ``bad_loss`` its batch loss. The
    check runs on the device, so the host reads it when it likes (:func:`run`: one step behind)
    without stalling the pipeline. Jit the result.
    """

    def guarded(state, opt_state, *args):
        *batch, watch = args
        new_state, new_opt, loss, acc = step(state, opt_state, *batch)
        finite = jnp.isfinite(loss)
        for leaf in jax.tree.leaves(new_state):
            finite = finite & jnp.all(jnp.isfinite(leaf))
        first_bad = (watch["bad"] < 0) & ~finite
        ok = (watch["bad"] < 0) & finite

        def keep(new, old):
            return jnp.where(ok, new, old)

        count = watch["count"] + 1
        watch = dict(
            count=count,
            bad=jnp.where(first_bad, count, watch["bad"]),
            bad_loss=jnp.where(first_bad, loss.astype(watch["bad_loss"].dtype), watch["bad_loss"]),
        )
        return (
            jax.tree.map(keep, new_state, state),
            jax.tree.map(keep, new_opt, opt_state),
            loss,
            acc,
            watch,
        )

    return guarded


def write_metrics(
    out_dir: str,
    rows: Sequence[dict],
    meta: dict,
    status: dict | None = None,
    *,
    target_steps: int | None = None,
    finished: bool | None = None,
) -> None:
    """``metrics.json`` (strict JSON: a non-finite loss is ``null``, named under ``nonfinite``) and
    ``metrics.csv`` (its ``status`` column is ``ok`` or ``diverged``). ``target_steps`` and
    ``finished`` (when given) say whether the run reached its target, stopped early or diverged
    (``finished: true``) or was cut short (``false``: written at a checkpoint while training, or
    on Ctrl-C), for whoever reads the run later (:func:`.rundir.unfinished`)."""
    record: dict[str, Any] = {"meta": meta, "status": "ok" if status is None else status["state"]}
    if status is not None:
        record["diverged_step"] = status["step"]
    if target_steps is not None:
        record["target_steps"] = int(target_steps)
    if finished is not None:
        record["finished"] = bool(finished)
    record["rows"] = list(rows)
    write_json(os.path.join(out_dir, rundir.METRICS_FILE), record)
    write_csv(
        os.path.join(out_dir, "metrics.csv"),
        [{**r, "status": r.get("status", "ok")} for r in rows],
        (*rundir.METRIC_FIELDS, "status"),
    )


def read_rows(out_dir: str) -> list[dict]:
    """The metric rows of ``out_dir/metrics.json`` (none when there is no such file)."""
    path = os.path.join(out_dir, rundir.METRICS_FILE)
    return rundir.read_metrics(path)["rows"] if os.path.exists(path) else []


@dataclasses.dataclass
class RunResult:
    """What :func:`run` returns.

    Attributes:
      state, opt_state: the final training state (a diverged run: the state after
        ``diverged_step - 1`` updates, the last finite one).
      rows: the metric rows (step, train loss/accuracy, held-out loss/accuracy, seconds; a
        diverged run's last row has ``status: "diverged"`` and no held-out figures).
      steps_done: parameter updates in ``state``.
      compile_seconds: seconds of the first step of this call (compiling it).
      stop_reason: ``"steps"``, the early-stopping rule that fired, or ``"diverged"``.
      diverged_step: the update that was not finite (None: none).
    """

    state: Any
    opt_state: Any
    rows: list[dict]
    steps_done: int
    compile_seconds: float
    stop_reason: str = "steps"
    diverged_step: int | None = None


def restore(out_dir: str, template: Any, every: int, step: int | None = None) -> Any:
    """Checkpoint ``step`` (default: the latest) of the run in ``out_dir``, in the structure of
    ``template`` (e.g. ``(state, opt_state)``). Raises
    :class:`~transformer_theory.train.rundir.RunDirectoryError` when there is no checkpoint."""
    directory = os.path.join(out_dir, "checkpoints")
    if step is None:
        step = checkpoint_latest_step(directory)
    if step is None:
        raise rundir.RunDirectoryError(f"{out_dir}: no checkpoint to restore")
    with Checkpointer(directory, every=every) as ckpt:
        return _restore(ckpt, out_dir, step, template)


def _restore(ckpt: Checkpointer, out_dir: str, step: int, template: Any) -> Any:
    """``ckpt.restore(step, template)``; a checkpoint that cannot be read (truncated or corrupted
    files: orbax raises a variety of errors) is a :class:`~.rundir.RunDirectoryError` in one line
    naming the run directory, not a traceback from inside orbax."""
    try:
        return ckpt.restore(step, template)
    except Exception as err:  # noqa: BLE001 -- any unreadable checkpoint is the directory's fault
        first = str(err).strip().splitlines()[0][:200] if str(err).strip() else ""
        raise rundir.RunDirectoryError(
            f"{out_dir}: checkpoint {step} cannot be read ({type(err).__name__}: {first}); "
            f"remove {out_dir} to train this run again"
        ) from None


def _read_diverged(out_dir: str, state, opt_state, every: int, status: dict) -> RunResult:
    """A diverged run directory read back: its rows, its last finite checkpoint, its step."""
    latest = checkpoint_latest_step(os.path.join(out_dir, "checkpoints"))
    if latest is not None:
        state, opt_state = restore(out_dir, (state, opt_state), every, latest)
    return RunResult(
        state=state,
        opt_state=opt_state,
        rows=read_rows(out_dir),
        steps_done=int(latest or 0),
        compile_seconds=0.0,
        stop_reason="diverged",
        diverged_step=int(status["step"]),
    )


def run(
    state: Any,
    opt_state: Any,
    *,
    train_step: Callable[..., tuple],
    eval_step: Callable[[Any], tuple[jax.Array, jax.Array]],
    batch: Callable[[jax.Array, int], tuple],
    config: Schedule,
    out_dir: str | None = None,
    settings: dict | None = None,
    fingerprints: dict | None = None,
    meta: dict | None = None,
    stop_after: int | None = None,
    progress: bool = True,
    early_stop: StopRule | None = None,
    desc: str = "train",
) -> RunResult:
    """Train from ``(state, opt_state)`` to ``config.steps`` updates (see the module docstring).

    Args:
      state, opt_state: the INITIAL training state (also when resuming: a checkpoint is restored
        into its structure).
      train_step: the jitted guarded step (:func:`guard`), ``train_step(state, opt_state, *batch,
        watch) -> (state, opt_state, loss, acc, watch)``; loss and accuracy of the batch BEFORE the
        update.
      eval_step: ``eval_step(state) -> (held-out loss, held-out accuracy)``.
      batch: ``batch(key, size) -> tuple of arrays``, the training batch of a key.
      config: steps, batch size, logging and checkpoint intervals, seed
        (:class:`~transformer_theory.train.TrainSettings`).
      out_dir: the run directory (None: nothing written).
      settings, fingerprints: the run's settings and fingerprints (:mod:`.rundir`), compared with
        ``out_dir``'s ``run.json`` before training; required with ``out_dir``.
      meta: stored in ``metrics.json``.
      stop_after: stop (after checkpointing) once this many steps are done -- simulates a killed
        run.
      progress: a tqdm bar (only on a terminal), titled ``desc``.
      early_stop: stop before ``config.steps`` when its ``reason(rows)`` is not None (checked at
        every evaluation, and on resume: a stopped run stays stopped).

    Returns:
      A :class:`RunResult`.

    Raises:
      RunDirectoryError: ``out_dir`` holds another run (before any training).
      TrainingInterrupted: on Ctrl-C, after checkpointing the last completed step.
    """
    meta = dict(meta or {})
    start, rows, ckpt = 0, [], None
    if out_dir is not None:
        if settings is None or fingerprints is None:
            raise ValueError("settings: a run directory needs the run's settings and fingerprints")
        last = rundir.check_run_dir(out_dir, settings, config.steps, fingerprints)
        os.makedirs(out_dir, exist_ok=True)
        record = rundir.read_run_file(out_dir)
        if record is None:
            rundir.write_run_file(out_dir, settings, fingerprints)
        elif isinstance(record.get("status"), dict) and record["status"].get("state") == "diverged":
            # A diverged run stays diverged: the same settings diverge at the same step again.
            return _read_diverged(
                out_dir, state, opt_state, config.checkpoint_every, record["status"]
            )
        rows = [] if last is None else [r for r in read_rows(out_dir) if r["step"] <= last]
        ckpt = Checkpointer(os.path.join(out_dir, "checkpoints"), every=config.checkpoint_every)
        if last is not None:
            state, opt_state = _restore(ckpt, out_dir, last, (state, opt_state))
            start = int(last)

    data_key = jax.random.fold_in(jax.random.key(config.seed), 1)
    t0 = time.perf_counter()
    compile_seconds = 0.0

    def evaluate(step, train_loss, train_acc):
        ev_loss, ev_acc = eval_step(state)
        rows.append(
            dict(
                step=int(step),
                train_loss=None if train_loss is None else float(train_loss),
                train_acc=None if train_acc is None else float(train_acc),
                eval_loss=float(ev_loss),
                eval_acc=float(ev_acc),
                seconds=round(time.perf_counter() - t0, 3),
            )
        )

    def save(step):
        ckpt.save(step, (state, opt_state))
        rows_saved = [r for r in rows if r["step"] <= step]
        write_metrics(out_dir, rows_saved, meta, target_steps=config.steps, finished=False)

    def diverged_at() -> int | None:
        bad = int(watch["bad"])  # waits for the step that wrote it
        return None if bad < 0 else bad

    def record_divergence(bad: int) -> dict:
        """The row, files and status of a run whose update ``bad`` was not finite; the state
        (never updated since) is that after ``bad - 1`` updates."""
        loss = float(watch["bad_loss"])
        status = {
            "state": "diverged",
            "step": bad,
            "train_loss": "nan" if loss != loss else repr(loss),
            "reason": f"update {bad} gave a non-finite batch loss or parameters "
            f"(batch loss {loss:g}); the parameters kept are those after update {bad - 1}",
        }
        rows[:] = [r for r in rows if r["step"] < bad]
        rows.append(
            dict(
                step=bad,
                train_loss=loss,
                train_acc=None,
                eval_loss=None,
                eval_acc=None,
                seconds=round(time.perf_counter() - t0, 3),
                status="diverged",
            )
        )
        if ckpt is not None:
            latest = ckpt.latest_step()
            if latest is None or bad - 1 > latest:
                ckpt.save(bad - 1, (state, opt_state))
            rundir.write_run_file(out_dir, settings, fingerprints, status=status)
            write_metrics(out_dir, rows, meta, status, target_steps=config.steps, finished=True)
        return status

    # `done` counts the updates applied to `state`. They change in ONE assignment: Python raises
    # KeyboardInterrupt at calls and loop jumps, never between the stores of one statement, and an
    # interrupted `train_step` call assigns nothing -- so a Ctrl-C checkpoint is always consistent.
    # A diverging update is not applied (the guarded step keeps the state), so `done` runs ahead
    # of the state by the no-op steps until the flag is read: every read of the state (evaluate,
    # save, Ctrl-C) first reads the flag.
    done = start
    stop_reason = "steps"
    watch = new_watch(start)
    diverged = None
    try:
        if start == 0:
            evaluate(0, None, None)
        end = config.steps if stop_after is None else min(config.steps, int(stop_after))
        fired = None if early_stop is None else early_stop.reason(rows)
        if fired is not None:  # resuming a run that had stopped early
            end, stop_reason = start, fired
        bar = tqdm(
            total=config.steps,
            initial=start,
            disable=not (progress and sys.stderr.isatty()),
            desc=desc,
        )
        lagged = None  # the previous step's flag, read every WATCH_EVERY steps while this one runs
        for step in range(start, end):
            args = batch(jax.random.fold_in(data_key, step), config.batch_size)
            tc = time.perf_counter()
            state, opt_state, loss, acc, watch, done = (
                *train_step(state, opt_state, *args, watch),
                step + 1,
            )
            if step == start:
                jax.block_until_ready(loss)
                compile_seconds = time.perf_counter() - tc
            bar.update(1)
            logs = done % config.log_every == 0 or done == config.steps
            saves = ckpt is not None and (ckpt.should_save(done) or done == config.steps)
            polled = lagged is not None and done % WATCH_EVERY == 0 and int(lagged) >= 0
            if polled or logs or saves or done == end:
                diverged = diverged_at()
                if diverged is not None:
                    done = diverged - 1
                    break
            lagged = watch["bad"]
            if logs:
                evaluate(done, loss, acc)
                bar.set_postfix(
                    loss=f"{rows[-1]['train_loss']:.3g}", eval_acc=f"{rows[-1]['eval_acc']:.3f}"
                )
                fired = None if early_stop is None else early_stop.reason(rows)
                if fired is not None:
                    end, stop_reason = done, fired
            if ckpt is not None and (saves or done == end):
                save(done)
            if done == end:
                break
        bar.close()
        if diverged is not None:
            stop_reason = "diverged"
            record_divergence(diverged)
            steps_done = done
        else:
            steps_done = max(start, end)
    except KeyboardInterrupt:
        saved = None
        try:
            bad = diverged if diverged is not None else diverged_at()
            if bad is not None:
                done = bad - 1
                record_divergence(bad)
            elif ckpt is not None and done > (ckpt.latest_step() or 0):
                save(done)
        except (Exception, KeyboardInterrupt):  # a second Ctrl-C, a failed write: keep the last
            pass
        if ckpt is not None:
            try:
                saved = ckpt.latest_step()
            except (Exception, KeyboardInterrupt):
                pass
        raise TrainingInterrupted(done, saved, out_dir) from None
    finally:
        if ckpt is not None:
            ckpt.close()
    if out_dir is not None and diverged is None:
        # stop_after cuts a run short as a kill would: it stays unfinished
        finished = stop_reason != "steps" or steps_done >= config.steps
        write_metrics(out_dir, rows, meta, target_steps=config.steps, finished=finished)
    return RunResult(
        state=state,
        opt_state=opt_state,
        rows=rows,
        steps_done=steps_done,
        compile_seconds=compile_seconds,
        stop_reason=stop_reason,
        diverged_step=diverged,
    )
