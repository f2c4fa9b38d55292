"""Teacher-forced training of the encoder-decoder (Conti 2024, §1.2.5) with Optax.

The decoder reads the shifted target ``[<bos>, y_0, ..., y_{T-2}]`` and is trained to predict
``y_0, ..., y_{T-1}`` at every position at once (teacher forcing), with the mean cross-entropy
over positions. The step goes through Flax NNX's functional loop (``nnx.split -> jax.jit ->
nnx.merge``); the batch of step ``s`` comes from ``fold_in(key, s)``, so a resumed run sees the
batches an uninterrupted one would.

A run directory has the layout of :mod:`transformer_theory.train.rundir` (``run.json`` with the
settings and fingerprints, ``metrics.{json,csv}`` with ``train_acc`` / ``eval_acc`` the
teacher-forced token accuracies, ``checkpoints/``), so the same checks refuse to resume a run with
other settings.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx
from tqdm.auto import tqdm

from transformer_theory import _validate
from transformer_theory.core import beam, encdec
from transformer_theory.nn.encdec import EncoderDecoder, Seq2SeqConfig, to_params
from transformer_theory.papers.conti2024.tasks import BOS, Translation
from transformer_theory.train import rundir
from transformer_theory.train.checkpoint import Checkpointer
from transformer_theory.train.checkpoint import latest_step as checkpoint_latest_step
from transformer_theory.train.loop import (
    TrainConfig,
    TrainingInterrupted,
    _write_metrics,
    make_optimizer,
)


@dataclasses.dataclass(frozen=True)
class Seq2SeqData:
    """A train / held-out split of a :class:`~transformer_theory.tasks.Translation` task.

    Built by :func:`split_translation`. Arrays: ``src_*_BxN`` sources, ``tgt_*_BxT`` targets.
    """

    task: Translation
    holdout: float
    src_train_BxN: np.ndarray
    tgt_train_BxT: np.ndarray
    src_eval_BxN: np.ndarray
    tgt_eval_BxT: np.ndarray

    def batch(self, key: jax.Array, size: int) -> tuple[jax.Array, jax.Array]:
        """``size`` training pairs drawn uniformly with replacement."""
        idx = jax.random.randint(key, (size,), 0, self.src_train_BxN.shape[0])
        return jnp.asarray(self.src_train_BxN)[idx], jnp.asarray(self.tgt_train_BxT)[idx]


def split_translation(task: Translation, key: jax.Array, holdout: float = 0.2) -> Seq2SeqData:
    """Every pair of ``task``, a random ``holdout`` fraction held out (a function of ``key``)."""
    if not 0 < holdout < 1:
        raise ValueError(f"holdout: expected a fraction in (0, 1), got {holdout}")
    src, tgt = map(np.asarray, task.all_pairs())
    order = np.asarray(jax.random.permutation(key, task.size))
    cut = int(round(task.size * (1 - holdout)))
    tr, ev = order[:cut], order[cut:]
    return Seq2SeqData(task, holdout, src[tr], tgt[tr], src[ev], tgt[ev])


def decoder_inputs(tgt_BxT: jax.Array, bos: int = BOS) -> jax.Array:
    """Teacher forcing's decoder input ``[bos, y_0, ..., y_{T-2}]`` for every row."""
    return jnp.concatenate([jnp.full_like(tgt_BxT[:, :1], bos), tgt_BxT[:, :-1]], axis=1)


def teacher_forcing_loss(model: EncoderDecoder, src_BxN, tgt_BxT) -> tuple[jax.Array, jax.Array]:
    """``(mean cross-entropy, token accuracy)`` over every target position."""
    logits = model(src_BxN, decoder_inputs(tgt_BxT))
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, tgt_BxT).mean()
    acc = jnp.mean((jnp.argmax(logits, axis=-1) == tgt_BxT).astype(jnp.float32))
    return loss, acc


@functools.lru_cache(maxsize=16)
def _steps(graphdef, config: TrainConfig):
    """``(train_step, eval_step)`` jitted for the model ``graphdef``, memoized on the (hashable)
    graph definition and optimizer settings so a process compiles them once."""
    tx = make_optimizer(config)

    def loss_fn(state, src, tgt):
        return teacher_forcing_loss(nnx.merge(graphdef, state), src, tgt)

    @jax.jit
    def train_step(state, opt_state, src, tgt):
        (loss, acc), grads = jax.value_and_grad(loss_fn, has_aux=True)(state, src, tgt)
        updates, opt_state = tx.update(grads, opt_state, state)
        return optax.apply_updates(state, updates), opt_state, loss, acc

    return train_step, jax.jit(loss_fn)


@dataclasses.dataclass(frozen=True)
class _Split:
    """How a run's data was split (the ``data.*`` fields of its settings)."""

    holdout: float
    eval_size: int


def settings(config: Seq2SeqConfig, data: Seq2SeqData, train_config: TrainConfig, meta=None):
    """The run's settings as :func:`~transformer_theory.train.rundir.run_settings` lays them out."""
    split = _Split(data.holdout, int(data.src_eval_BxN.shape[0]))
    return rundir.run_settings(config, data.task, split, train_config, meta)


def train_seq2seq(
    model: EncoderDecoder,
    data: Seq2SeqData,
    config: TrainConfig,
    out_dir: str | None = None,
    *,
    meta: dict | None = None,
    progress: bool = True,
) -> tuple[encdec.Seq2SeqParams, list[dict]]:
    """Train ``model`` with teacher forcing; resume from ``out_dir`` when it holds this run.

    Args:
      model: the INITIAL model (also when resuming: it fixes the run's fingerprint).
      data: the split.
      config: optimizer, steps, batch size, logging and checkpoint intervals, seed.
      out_dir: the run directory (None: nothing written).
      meta: JSON-able description stored with the settings.
      progress: a tqdm bar on a terminal.
    Returns:
      ``(final Seq2SeqParams, metric rows)``.
    Raises:
      RunDirectoryError: ``out_dir`` holds another run (before any training).
      TrainingInterrupted: Ctrl-C, after checkpointing the last completed step.
    """
    if not isinstance(model, EncoderDecoder):
        raise ValueError(f"model: expected an EncoderDecoder, got {type(model).__name__}")
    if not isinstance(data, Seq2SeqData):
        raise ValueError(f"data: expected a Seq2SeqData, got {type(data).__name__}")
    if data.task.vocab_size != model.config.vocab_size:
        raise ValueError(
            f"data: the task has {data.task.vocab_size} tokens, the model {model.config.vocab_size}"
        )
    graphdef, state = nnx.split(model)
    tx = make_optimizer(config)
    opt_state = tx.init(state)
    opt_only = TrainConfig(
        optimizer=config.optimizer,
        learning_rate=config.learning_rate,
        momentum=config.momentum,
        grad_clip=config.grad_clip,
    )
    train_step, eval_step = _steps(graphdef, opt_only)
    key = jax.random.fold_in(jax.random.key(config.seed), 1)
    meta = dict(meta or {})
    rows, start, ckpt = [], 0, None
    if out_dir is not None:
        fingerprints = {
            "initial_params_sha256": rundir.fingerprint(state),
            "heldout_sha256": rundir.fingerprint((data.src_eval_BxN, data.tgt_eval_BxT)),
        }
        run_settings = settings(model.config, data, config, meta)
        last = rundir.check_run_dir(out_dir, run_settings, config.steps, fingerprints)
        os.makedirs(out_dir, exist_ok=True)
        if rundir.read_run_file(out_dir) is None:
            rundir.write_run_file(out_dir, run_settings, fingerprints)
        if last is not None:
            path = os.path.join(out_dir, rundir.METRICS_FILE)
            rows = [r for r in rundir.read_metrics(path)["rows"] if r["step"] <= last]
        ckpt = Checkpointer(os.path.join(out_dir, "checkpoints"), every=config.checkpoint_every)
        if last is not None:
            state, opt_state = ckpt.restore(last, (state, opt_state))
            start = int(last)
    src_ev, tgt_ev = jnp.asarray(data.src_eval_BxN), jnp.asarray(data.tgt_eval_BxT)
    t0 = time.perf_counter()

    def evaluate(step, loss, acc):
        ev_loss, ev_acc = eval_step(state, src_ev, tgt_ev)
        rows.append(
            dict(
                step=int(step),
                train_loss=None if loss is None else float(loss),
                train_acc=None if acc is None else float(acc),
                eval_loss=float(ev_loss),
                eval_acc=float(ev_acc),
                seconds=round(time.perf_counter() - t0, 3),
            )
        )

    def save(step):
        ckpt.save(step, (state, opt_state))
        _write_metrics(out_dir, [r for r in rows if r["step"] <= step], meta)

    done = start
    try:
        if start == 0:
            evaluate(0, None, None)
        bar = tqdm(
            total=config.steps,
            initial=start,
            disable=not (progress and sys.stderr.isatty()),
            desc=meta.get("name", "seq2seq"),
        )
        for step in range(start, config.steps):
            src, tgt = data.batch(jax.random.fold_in(key, step), config.batch_size)
            state, opt_state, loss, acc, done = (*train_step(state, opt_state, src, tgt), step + 1)
            bar.update(1)
            if done % config.log_every == 0 or done == config.steps:
                evaluate(done, loss, acc)
                bar.set_postfix(eval_acc=f"{rows[-1]['eval_acc']:.3f}")
            if ckpt is not None and (ckpt.should_save(done) or done == config.steps):
                save(done)
        bar.close()
    except KeyboardInterrupt:
        saved = None
        if ckpt is not None:
            try:
                if done > (ckpt.latest_step() or 0):
                    save(done)
            except (Exception, KeyboardInterrupt):  # a second Ctrl-C, a failed write
                pass
            saved = ckpt.latest_step()
        raise TrainingInterrupted(done, saved, out_dir) from None
    finally:
        if ckpt is not None:
            ckpt.close()
    if out_dir is not None:
        _write_metrics(out_dir, rows, meta)
    return to_params(nnx.merge(graphdef, state)), rows


def restore_seq2seq(
    out_dir: str, model: EncoderDecoder, config: TrainConfig
) -> encdec.Seq2SeqParams:
    """The parameters of the latest checkpoint in ``out_dir``; ``model`` and ``config`` give the
    structure of the saved state. Raises ``RunDirectoryError`` when there is none."""
    graphdef, state = nnx.split(model)
    directory = os.path.join(out_dir, "checkpoints")
    step = checkpoint_latest_step(directory)
    if step is None:
        raise rundir.RunDirectoryError(f"{out_dir}: no checkpoint to restore")
    with Checkpointer(directory, every=config.checkpoint_every) as ckpt:
        state, _ = ckpt.restore(step, (state, make_optimizer(config).init(state)))
    return to_params(nnx.merge(graphdef, state))


@functools.partial(jax.jit, static_argnums=(2, 3, 4))
def _decode_batch(params, src_BxN, length: int, beam_size: int, norm: str):
    def one(src):
        toks, lps = beam.beam_decode(params, src, BOS, length, beam_size, norm=norm)
        return toks[0], lps[0]

    return jax.vmap(one)(src_BxN)


def decode_all(
    params: encdec.Seq2SeqParams,
    src_BxN,
    length: int,
    *,
    beam_size: int = 1,
    norm: str = "layernorm_sigma",
    chunk: int = 512,
) -> tuple[np.ndarray, np.ndarray]:
    """Decode every source (greedy when ``beam_size == 1``, else the best beam), in chunks of
    ``chunk`` sentences (one compiled program per chunk shape, shared across models of one
    shape). Returns ``(tokens_BxT, logprobs_B)`` on the host."""
    _validate.check_positive("chunk", chunk)
    _validate.check_positive("beam_size", beam_size)
    src = np.asarray(src_BxN)
    toks, lps = [], []
    for i in range(0, src.shape[0], chunk):
        t, lp = _decode_batch(params, jnp.asarray(src[i : i + chunk]), length, beam_size, norm)
        toks.append(np.asarray(t))
        lps.append(np.asarray(lp))
    return np.concatenate(toks), np.concatenate(lps)


__all__ = [
    "Seq2SeqData",
    "decode_all",
    "decoder_inputs",
    "restore_seq2seq",
    "split_translation",
    "teacher_forcing_loss",
    "train_seq2seq",
]
