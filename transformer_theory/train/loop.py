"""The Optax training loop: cross-entropy on the last position (Chen & Zou 2024, §9.1), SGD or Adam.

The step is jit-compiled through Flax NNX's functional loop (``nnx.split -> jax.jit -> nnx.merge``):
the model's ``nnx.State`` and the optimizer state are plain pytrees passed in and out of one
jitted function. Batch keys come from ``fold_in(data_key, step)``, so step ``s`` sees the same
batch whether or not the run was interrupted; with checkpoints every ``checkpoint_every`` steps a
killed run resumes from the last one and reproduces the uninterrupted run bit for bit (on CPU).

Outputs in ``out_dir``: ``metrics.csv`` and ``metrics.json`` (one row per logging step: step,
train batch loss/accuracy, held-out loss/accuracy, seconds), ``checkpoints/`` (Orbax).

A run that DIVERGES -- an update whose batch loss or resulting parameters are not finite (NaN or
inf) -- stops at that update: :func:`train` checks every step inside the jitted step (a non-finite
update is never applied, and no later one is), reads the flag every :data:`WATCH_EVERY` steps, one
step behind, so the host does not wait on the device, and records ``status: "diverged"`` with
the step in ``metrics.json`` (and its last row), ``metrics.csv`` (a ``status`` column),
``run.json`` and :class:`TrainResult`. The parameters kept are those before the diverging update
(also checkpointed); a re-run of a diverged run directory reports the divergence again without
training.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import os
import sys
import time

import jax
import jax.numpy as jnp
import optax
from flax import nnx
from tqdm.auto import tqdm

from transformer_theory import _validate
from transformer_theory.jsonio import write_json
from transformer_theory.nn import Transformer, from_params, to_params
from transformer_theory.nn.fast import batch_logits
from transformer_theory.params import ModelParams
from transformer_theory.train import rundir
from transformer_theory.train.checkpoint import Checkpointer
from transformer_theory.train.checkpoint import latest_step as checkpoint_latest_step
from transformer_theory.train.data import TaskData


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Optimization settings (hashable).

    Attributes:
      steps: number of parameter updates.
      batch_size: examples per step (the whole training set if it is smaller: full-batch GD).
      learning_rate: step size.
      optimizer: ``"sgd"`` (Chen & Zou 2024, §9.1) or ``"adam"``.
      momentum: SGD momentum (0 = plain SGD).
      grad_clip: clip the global gradient norm to this value (None = off).
      log_every: evaluate and write a metrics row every this many steps (and at step 0 and the end).
      checkpoint_every: checkpoint every this many steps (and at the end).
      seed: the run's seed; the batch key of step ``s`` is ``fold_in(fold_in(key(seed), 1), s)``.
    """

    steps: int = 1000
    batch_size: int = 64
    learning_rate: float = 0.1
    optimizer: str = "sgd"
    momentum: float = 0.0
    grad_clip: float | None = None
    log_every: int = 50
    checkpoint_every: int = 500
    seed: int = 0

    def __post_init__(self):
        for name in ("steps", "batch_size", "log_every", "checkpoint_every"):
            _validate.check_positive(name, getattr(self, name))
        _validate.check_choice("optimizer", self.optimizer, ("sgd", "adam"))
        if not self.learning_rate > 0:
            raise ValueError(
                f"learning_rate: expected a positive step size, got {self.learning_rate}"
            )

    def replace(self, **changes) -> TrainConfig:
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass(frozen=True)
class EarlyStop:
    """When to stop a run before ``TrainConfig.steps``, judged on the held-out metric rows.

    Two rules; a run stops when either fires (its reason names which):

    - ``"accuracy"``: held-out accuracy has been ``>= threshold`` at ``patience`` consecutive
      evaluations;
    - ``"plateau"``: the best held-out accuracy has not improved for ``plateau_steps`` steps
      (None: this rule is off).

    Attributes:
      threshold: the held-out accuracy of the ``"accuracy"`` rule.
      patience: consecutive evaluations at ``>= threshold``.
      plateau_steps: steps without a new best held-out accuracy (None: off).
    """

    threshold: float = 0.99
    patience: int = 3
    plateau_steps: int | None = None

    def __post_init__(self):
        _validate.check_positive("patience", self.patience)
        if self.plateau_steps is not None:
            _validate.check_positive("plateau_steps", self.plateau_steps)
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"threshold: expected an accuracy in (0, 1], got {self.threshold}")

    def reason(self, rows: list[dict]) -> str | None:
        """``"accuracy"``, ``"plateau"`` or None (go on) for the metric rows so far."""
        evals = [r for r in rows if r["step"] > 0]
        tail = evals[-self.patience :]
        if len(tail) == self.patience and all(r["eval_acc"] >= self.threshold for r in tail):
            return "accuracy"
        if self.plateau_steps is not None and evals:
            best = max(r["eval_acc"] for r in rows)
            first_best = next(r["step"] for r in rows if r["eval_acc"] == best)
            if evals[-1]["step"] - first_best >= self.plateau_steps:
                return "plateau"
        return None


@dataclasses.dataclass
class TrainResult:
    """What :func:`train` returns: the final parameters, the metric rows, steps done, compile
    seconds, and why it stopped (``"steps"``, the :class:`EarlyStop` rule that fired, or
    ``"diverged"``).

    A diverged run (``diverged_step`` is not None) has no result to report: update
    ``diverged_step`` gave a non-finite loss or parameters; ``params`` are those after
    ``steps_done = diverged_step - 1`` updates, and the last metrics row (step ``diverged_step``)
    has ``status: "diverged"`` and no held-out figures.
    """

    params: ModelParams
    metrics: list[dict]
    steps_done: int
    compile_seconds: float
    stop_reason: str = "steps"
    diverged_step: int | None = None

    @property
    def diverged(self) -> bool:
        return self.diverged_step is not None


def make_optimizer(config: TrainConfig) -> optax.GradientTransformation:
    """SGD (optionally with momentum) or Adam, optionally after global-norm clipping."""
    if config.optimizer == "sgd":
        tx = optax.sgd(config.learning_rate, momentum=config.momentum or None)
    else:
        tx = optax.adam(config.learning_rate)
    if config.grad_clip is not None:
        tx = optax.chain(optax.clip_by_global_norm(config.grad_clip), tx)
    return tx


def cross_entropy(logits_BxC: jax.Array, labels_B: jax.Array) -> jax.Array:
    """Mean of Chen & Zou 2024, §9.1's ``-log softmax(o)[y]`` over the batch."""
    return optax.softmax_cross_entropy_with_integer_labels(logits_BxC, labels_B).mean()


@functools.lru_cache(maxsize=32)
def cached_steps(
    graphdef,
    optimizer: str,
    learning_rate: float,
    momentum: float,
    grad_clip: float | None,
    fast: bool = True,
    microbatches: int | None = None,
    guard: bool = False,
):
    """:func:`make_steps` memoized on the (hashable) graph definition and optimizer settings, so
    repeated :func:`train` calls in one process (seeds, resumes, sweeps) reuse the compiled
    steps."""
    cfg = TrainConfig(
        optimizer=optimizer, learning_rate=learning_rate, momentum=momentum, grad_clip=grad_clip
    )
    return make_steps(
        graphdef, make_optimizer(cfg), fast=fast, microbatches=microbatches, guard=guard
    )


# A microbatch's ``(b, N, D)`` stream of about a core's L2 cache (1 MiB on the development machine's
# AMD EPYC; 1-2 MiB on current x86 server cores). Chosen by measurement: of 1, 2, 4 and 8
# microbatches at both paper sizes the fastest were 2 for reasoning (1.19 MB) and 4 for contextual
# (1.17 MB); 8 was slower at both.
MICROBATCH_BYTES = 5 * 2**20 // 4
MIN_MICROBATCH = 16


def auto_microbatches(batch: int, seq_len: int, width: int, itemsize: int = 4) -> int:
    """How many microbatches :func:`make_steps` splits a CPU train step into by default.

    On a CPU the paper-size train steps are bound by memory traffic, not arithmetic: every
    ``(B, N, D)`` intermediate (4.7 MB at the contextual size) streams from DRAM, which this
    machine reads and writes at ~4-5 GB/s. Split into microbatches whose stream is at most
    :data:`MICROBATCH_BYTES`, the intermediates of one microbatch stay in cache: the contextual
    3-layer step went from 72 to 36 ms, the 4-layer one from 111 to 63 ms. Returns the
    smallest divisor ``c`` of ``batch`` with ``(batch / c) N D itemsize <= MICROBATCH_BYTES`` whose
    microbatches keep at least :data:`MIN_MICROBATCH` examples (1: no split).
    """
    best = 1
    for c in range(1, batch + 1):
        if batch % c or batch // c < MIN_MICROBATCH:
            continue
        best = c
        if (batch // c) * seq_len * width * itemsize <= MICROBATCH_BYTES:
            break
    return best


def make_steps(
    graphdef,
    tx: optax.GradientTransformation,
    *,
    fast: bool = True,
    microbatches: int | None = None,
    guard: bool = False,
):
    """``(train_step, eval_step)`` jitted through NNX's functional loop for the model ``graphdef``.

    ``fast``: compute logits with :func:`transformer_theory.nn.fast.batch_logits`'s fast path (the
    first layer as a lookup, the last layer for the last query only) where the model allows; False
    runs the general dense path (``core.forward`` vmapped). Both give the same logits up to float
    rounding (``tests/nn/test_fast.py``).

    ``microbatches``: the train step's loss and gradient are means over this many equal slices of
    the batch, computed one after another (``lax.scan``) and averaged: the same numbers up to
    float rounding, with a smaller working set. None: :func:`auto_microbatches` on a CPU backend,
    1 (no split) on GPUs and TPUs, which want the whole batch at once. A count that does not
    divide the batch size raises ``ValueError`` when the step is first called.

    ``train_step(state, opt_state, tokens_BxN, labels_B) -> (state, opt_state, loss, acc)`` (loss
    and accuracy of the batch BEFORE the update); ``eval_step(state, tokens_BxN, labels_B,
    weights_B) -> (loss, acc)`` (weighted means; weights sum to 1).

    ``guard``: ``train_step`` takes and returns one more argument, a :func:`new_watch` dict
    ``{"count", "bad", "bad_loss"}`` of device scalars, and applies an update only if its batch
    loss and every resulting parameter are finite and no earlier update failed; ``bad`` becomes
    the 1-based number of the first failing update (``-1`` while none has), ``bad_loss`` its batch
    loss. The check runs on the device, so the host reads it when it likes (:func:`train` one step
    behind) without stalling the pipeline.
    """
    if microbatches is not None:
        _validate.check_positive("microbatches", microbatches)

    def loss_fn(state, tokens, labels):
        logits = batch_logits(to_params(nnx.merge(graphdef, state)), tokens, fast=fast)
        acc = jnp.mean((jnp.argmax(logits, axis=-1) == labels).astype(jnp.float32))
        return cross_entropy(logits, labels), acc

    def weighted_eval(state, tokens, labels, weights):
        logits = batch_logits(to_params(nnx.merge(graphdef, state)), tokens, fast=fast)
        losses = optax.softmax_cross_entropy_with_integer_labels(logits, labels)
        hits = (jnp.argmax(logits, axis=-1) == labels).astype(weights.dtype)
        return jnp.sum(weights * losses), jnp.sum(weights * hits)

    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

    def mean_grad(state, tokens, labels):
        b, n = tokens.shape
        c = microbatches
        if c is None and jax.default_backend() == "cpu":
            p = to_params(nnx.merge(graphdef, state))
            c = auto_microbatches(b, n, p.config.width, p.w_o.dtype.itemsize)
        c = c or 1
        if b % c:
            raise ValueError(f"microbatches: {c} does not divide the batch size {b}")
        if c == 1:
            return grad_fn(state, tokens, labels)
        # Strided slices (example k goes to microbatch k % c): a batch sharded in contiguous
        # blocks over devices keeps its sharding on the leading axis of every slice.
        tok = jnp.swapaxes(tokens.reshape(b // c, c, n), 0, 1)
        lab = labels.reshape(b // c, c).T

        def body(total, batch):
            out = grad_fn(state, *batch)
            return jax.tree.map(jnp.add, total, out), None

        shapes = jax.eval_shape(grad_fn, state, tok[0], lab[0])
        zero = jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), shapes)
        total, _ = jax.lax.scan(body, zero, (tok, lab))
        return jax.tree.map(lambda x: x / c, total)

    def plain_step(state, opt_state, tokens, labels):
        (loss, acc), grads = mean_grad(state, tokens, labels)
        updates, opt_state = tx.update(grads, opt_state, state)
        return optax.apply_updates(state, updates), opt_state, loss, acc

    def guarded_step(state, opt_state, tokens, labels, watch):
        new_state, new_opt, loss, acc = plain_step(state, opt_state, tokens, labels)
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

    train_step = jax.jit(guarded_step if guard else plain_step)
    eval_step = jax.jit(weighted_eval)
    return train_step, eval_step


def new_watch(start: int = 0) -> dict:
    """The divergence watch of a guarded ``train_step`` (:func:`make_steps`) at update ``start``."""
    return dict(
        count=jnp.asarray(start, jnp.int32),
        bad=jnp.asarray(-1, jnp.int32),
        bad_loss=jnp.asarray(0.0, jnp.float32),
    )


def _write_metrics(out_dir: str, rows: list[dict], meta: dict, status: dict | None = None) -> None:
    """``metrics.json`` (strict JSON: a non-finite loss is ``null``, named under ``nonfinite``) and
    ``metrics.csv`` (its ``status`` column is ``ok`` or ``diverged``)."""
    record = {"meta": meta, "status": "ok" if status is None else status["state"]}
    if status is not None:
        record["diverged_step"] = status["step"]
    record["rows"] = rows
    write_json(os.path.join(out_dir, rundir.METRICS_FILE), record)
    tmp = os.path.join(out_dir, ".metrics.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=(*rundir.METRIC_FIELDS, "status"), restval="ok")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, os.path.join(out_dir, "metrics.csv"))


def _read_rows(out_dir: str) -> list[dict]:
    path = os.path.join(out_dir, rundir.METRICS_FILE)
    return rundir.read_metrics(path)["rows"] if os.path.exists(path) else []


# Steps between reads of the divergence flag outside logging and checkpoint steps. Reading it every
# step cost ~0.3 ms per 1 ms quick-size step (a device-to-host wait); every 8 steps the guarded loop
# ran as fast as the unguarded one (0.47-0.70 vs 0.49-0.66 ms, reasoning quick, 2-core CPU,
# 2026-11-24). A diverged run therefore stops at most 8 (no-op) steps after the bad update; the
# update itself is never applied.
WATCH_EVERY = 8


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`train`; the progress since the last checkpoint was saved first.

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


def train(
    model: Transformer | ModelParams,
    data: TaskData,
    config: TrainConfig,
    out_dir: str | None = None,
    *,
    meta: dict | None = None,
    stop_after: int | None = None,
    progress: bool = True,
    early_stop: EarlyStop | None = None,
) -> TrainResult:
    """Train ``model`` on ``data`` with cross-entropy on the last position (Chen & Zou 2024, §9.1).

    Args:
      model: a :class:`~transformer_theory.nn.Transformer` or a ``ModelParams`` (e.g. a
        construction): the INITIAL model of the run (also when resuming).
      data: training batches and the held-out set.
      config: optimization settings; ``config.steps`` is the step count to reach.
      out_dir: where ``run.json``, metrics and checkpoints go (:mod:`.rundir`). If it holds this
        run, training RESUMES from its latest checkpoint and continues to ``config.steps`` (the
        same metrics and parameters as an uninterrupted run). If it holds a run with other
        settings, or more steps than ``config.steps``, raises
        :class:`~transformer_theory.train.rundir.RunDirectoryError` before training. None: nothing
        written.
      meta: JSON-able description of the run (task, heads, seed, ...), stored with the metrics and
        part of the run's settings (a resume must give the same).
      stop_after: stop (after checkpointing) once this many steps are done -- simulates a killed
        run.
      progress: show a tqdm bar (only on a terminal).
      early_stop: stop before ``config.steps`` when this rule fires (checked at every
        evaluation, and on resume: a stopped run stays stopped). Give it in ``meta`` too when it
        must be part of the run's settings.

    Returns:
      A :class:`TrainResult` with the final ``ModelParams`` and the metric rows.

    Raises:
      TrainingInterrupted: on Ctrl-C, after checkpointing the last completed step.
    """
    if isinstance(model, ModelParams):
        model = from_params(model)
    if not isinstance(model, Transformer):
        raise ValueError(
            f"model: expected a Transformer or ModelParams, got {type(model).__name__}"
        )
    if not isinstance(data, TaskData):
        raise ValueError(f"data: expected a TaskData, got {type(data).__name__}")
    cfg_model = model.config
    if data.eval_tokens_BxN.shape[1] != cfg_model.seq_len:
        raise ValueError(
            f"data: sequences of length {data.eval_tokens_BxN.shape[1]} but the model "
            f"expects {cfg_model.seq_len}"
        )
    graphdef, state = nnx.split(model)
    tx = make_optimizer(config)
    opt_state = tx.init(state)
    train_step, eval_step = cached_steps(
        graphdef,
        config.optimizer,
        config.learning_rate,
        config.momentum,
        config.grad_clip,
        guard=True,
    )
    data_key = jax.random.fold_in(jax.random.key(config.seed), 1)
    settings = rundir.run_settings(cfg_model, data.task, data.config, config, meta)
    meta = dict(meta or {}, train_config=dataclasses.asdict(config))

    start, rows = 0, []
    ckpt = None
    if out_dir is not None:
        fingerprints = {
            "initial_params_sha256": rundir.fingerprint(state),
            "heldout_sha256": rundir.fingerprint((data.eval_tokens_BxN, data.eval_labels_B)),
        }
        last = rundir.check_run_dir(out_dir, settings, config.steps, fingerprints)
        os.makedirs(out_dir, exist_ok=True)
        record = rundir.read_run_file(out_dir)
        if record is None:
            rundir.write_run_file(out_dir, settings, fingerprints)
        elif isinstance(record.get("status"), dict) and record["status"].get("state") == "diverged":
            # A diverged run stays diverged: the same settings diverge at the same step again.
            return _diverged_result(out_dir, graphdef, state, opt_state, config, record["status"])
        rows = [] if last is None else [r for r in _read_rows(out_dir) if r["step"] <= last]
        ckpt = Checkpointer(os.path.join(out_dir, "checkpoints"), every=config.checkpoint_every)
        if last is not None:
            state, opt_state = ckpt.restore(last, (state, opt_state))
            start = int(last)

    t0 = time.perf_counter()
    compile_seconds = 0.0

    def evaluate(step, train_loss, train_acc):
        ev_loss, ev_acc = eval_step(
            state, data.eval_tokens_BxN, data.eval_labels_B, data.eval_weights_B
        )
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
        _write_metrics(out_dir, [r for r in rows if r["step"] <= step], meta)

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
            _write_metrics(out_dir, rows, meta, status)
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
            desc=meta.get("name", "train"),
        )
        lagged = None  # the previous step's flag, read every WATCH_EVERY steps while this one runs
        for step in range(start, end):
            tokens, labels = data.batch(jax.random.fold_in(data_key, step), config.batch_size)
            tc = time.perf_counter()
            state, opt_state, loss, acc, watch, done = (
                *train_step(state, opt_state, tokens, labels, watch),
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
        _write_metrics(out_dir, rows, meta)
    final = nnx.merge(graphdef, state)
    return TrainResult(
        params=to_params(final),
        metrics=rows,
        steps_done=steps_done,
        compile_seconds=compile_seconds,
        stop_reason=stop_reason,
        diverged_step=diverged,
    )


def _diverged_result(out_dir, graphdef, state, opt_state, config, status) -> TrainResult:
    """A diverged run directory read back: its rows, its last finite checkpoint, its step."""
    path = os.path.join(out_dir, "checkpoints")
    latest = checkpoint_latest_step(path)
    if latest is not None:
        with Checkpointer(path, every=config.checkpoint_every) as ckpt:
            state, _ = ckpt.restore(latest, (state, opt_state))
    return TrainResult(
        params=to_params(nnx.merge(graphdef, state)),
        metrics=_read_rows(out_dir),
        steps_done=int(latest or 0),
        compile_seconds=0.0,
        stop_reason="diverged",
        diverged_step=int(status["step"]),
    )


def restore_params(
    out_dir: str, model: Transformer | ModelParams, config: TrainConfig, step: int | None = None
) -> ModelParams:
    """The parameters of checkpoint ``step`` (default: the latest) of the run in ``out_dir``.

    ``model`` (the run's initial model) and ``config`` (its optimizer) give the structure of the
    saved state. Raises :class:`~transformer_theory.train.rundir.RunDirectoryError` when there is
    no checkpoint.
    """
    if isinstance(model, ModelParams):
        model = from_params(model)
    graphdef, state = nnx.split(model)
    template = (state, make_optimizer(config).init(state))
    directory = os.path.join(out_dir, "checkpoints")
    if step is None:
        step = checkpoint_latest_step(directory)
    if step is None:
        raise rundir.RunDirectoryError(f"{out_dir}: no checkpoint to restore")
    with Checkpointer(directory, every=config.checkpoint_every) as ckpt:
        state, _ = ckpt.restore(step, template)
    return to_params(nnx.merge(graphdef, state))
