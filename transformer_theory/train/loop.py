"""The Optax training loop: cross-entropy on the last position (Chen & Zou 2024, §9.1), SGD or Adam.

This module builds the model's steps; :mod:`.runner` drives them (run directory, resume bit for
bit, Ctrl-C, metrics, checkpoints, divergence). The step is jit-compiled through Flax NNX's
functional loop (``nnx.split -> jax.jit -> nnx.merge``): the model's ``nnx.State`` and the
optimizer state are plain pytrees passed in and out of one jitted function. Batch keys come from
``fold_in(data_key, step)``, so step ``s`` sees the same batch whether or not the run was
interrupted; with checkpoints every ``checkpoint_every`` steps a killed run resumes from the last
one and reproduces the uninterrupted run bit for bit (on CPU).

Outputs in ``out_dir``: ``metrics.csv`` and ``metrics.json`` (one row per logging step: step,
train batch loss/accuracy, held-out loss/accuracy, seconds), ``checkpoints/`` (Orbax).

A run that DIVERGES -- an update whose batch loss or resulting parameters are not finite (NaN or
inf) -- stops at that update: :func:`train` checks every step inside the jitted step (a non-finite
update is never applied, and no later one is), reads the flag every
:data:`~.runner.WATCH_EVERY` steps, one step behind, so the host does not wait on the device, and
records ``status: "diverged"`` with the step in ``metrics.json`` (and its last row),
``metrics.csv`` (a ``status`` column), ``run.json`` and :class:`TrainResult`. The parameters kept
are those before the diverging update (also checkpointed); a re-run of a diverged run directory
reports the divergence again without training.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax import nnx

from transformer_theory import _validate
from transformer_theory.nn import Transformer, from_params, to_params
from transformer_theory.nn.fast import batch_logits
from transformer_theory.params import ModelParams
from transformer_theory.train import rundir, runner
from transformer_theory.train.data import TaskData

__all__ = [
    "EarlyStop",
    "MICROBATCH_BYTES",
    "MIN_MICROBATCH",
    "TrainSettings",
    "TrainResult",
    "auto_microbatches",
    "cached_steps",
    "cross_entropy",
    "make_optimizer",
    "make_steps",
    "restore_params",
    "train",
]


@dataclasses.dataclass(frozen=True)
class TrainSettings:
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
        _validate.check_seed("seed", self.seed)
        if not self.learning_rate > 0:
            raise ValueError(
                f"learning_rate: expected a positive step size, got {self.learning_rate}"
            )

    def replace(self, **changes: Any) -> TrainSettings:
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass(frozen=True)
class EarlyStop:
    """When to stop a run before ``TrainSettings.steps``, judged on the held-out metric rows.

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


def make_optimizer(config: TrainSettings) -> optax.GradientTransformation:
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
    graphdef: nnx.GraphDef,
    optimizer: str,
    learning_rate: float,
    momentum: float,
    grad_clip: float | None,
    fast: bool = True,
    microbatches: int | None = None,
    guard: bool = False,
) -> tuple[Callable, Callable]:
    """:func:`make_steps` memoized on the (hashable) graph definition and optimizer settings, so
    repeated :func:`train` calls in one process (seeds, resumes, sweeps) reuse the compiled
    steps."""
    cfg = TrainSettings(
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
    graphdef: nnx.GraphDef,
    tx: optax.GradientTransformation,
    *,
    fast: bool = True,
    microbatches: int | None = None,
    guard: bool = False,
) -> tuple[Callable, Callable]:
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

    ``guard``: ``train_step`` is :func:`.runner.guard`'s form of it: it takes and returns one more
    argument, a :func:`~.runner.new_watch` dict, and applies an update only if its batch loss and
    every resulting parameter are finite and no earlier update failed.
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

    train_step = jax.jit(runner.guard(plain_step) if guard else plain_step)
    eval_step = jax.jit(weighted_eval)
    return train_step, eval_step


def train(
    model: Transformer | ModelParams,
    data: TaskData,
    config: TrainSettings,
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
    opt_state = make_optimizer(config).init(state)
    train_step, eval_step = cached_steps(
        graphdef,
        config.optimizer,
        config.learning_rate,
        config.momentum,
        config.grad_clip,
        guard=True,
    )
    fingerprints = {
        "initial_params_sha256": rundir.fingerprint(state),
        "heldout_sha256": rundir.fingerprint((data.eval_tokens_BxN, data.eval_labels_B)),
    }
    out = runner.run(
        state,
        opt_state,
        train_step=train_step,
        eval_step=lambda s: eval_step(
            s, data.eval_tokens_BxN, data.eval_labels_B, data.eval_weights_B
        ),
        batch=data.batch,
        config=config,
        out_dir=out_dir,
        settings=rundir.run_settings(cfg_model, data.task, data.config, config, meta),
        fingerprints=fingerprints,
        meta=dict(meta or {}, train_config=dataclasses.asdict(config)),
        stop_after=stop_after,
        progress=progress,
        early_stop=early_stop,
        desc=(meta or {}).get("name", "train"),
    )
    return TrainResult(
        params=to_params(nnx.merge(graphdef, out.state)),
        metrics=out.rows,
        steps_done=out.steps_done,
        compile_seconds=out.compile_seconds,
        stop_reason=out.stop_reason,
        diverged_step=out.diverged_step,
    )


def restore_params(
    out_dir: str, model: Transformer | ModelParams, config: TrainSettings, step: int | None = None
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
    state, _ = runner.restore(out_dir, template, config.checkpoint_every, step)
    return to_params(nnx.merge(graphdef, state))
