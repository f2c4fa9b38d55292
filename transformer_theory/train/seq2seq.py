"""Teacher-forced training of an encoder-decoder (Conti 2024, §1.2.5) with Optax, on any pairs.

The decoder reads the shifted target ``[<bos>, y_0, ..., y_{T-2}]`` and is trained to predict
``y_0, ..., y_{T-1}`` at every position at once (teacher forcing), with the mean cross-entropy
over positions. The step goes through Flax NNX's functional loop (``nnx.split -> jax.jit ->
nnx.merge``) and is driven by :mod:`.runner`: the batch of step ``s`` comes from ``fold_in(key,
s)``, so a resumed run sees the batches an uninterrupted one would; Ctrl-C, checkpoints and
divergence behave as in :func:`transformer_theory.train.train`.

The data are generic: a :class:`Seq2SeqData` holds source / target arrays, the ``bos`` token and
what they were drawn from; :func:`split_pairs` splits a task's ``all_pairs()``. A paper's task
(e.g. :mod:`transformer_theory.papers.conti2024.experiments.encdec_translation`) builds its
split and passes it in.

A run directory has the layout of :mod:`transformer_theory.train.rundir` (``run.json`` with the
settings and fingerprints, ``metrics.{json,csv}`` with ``train_acc`` / ``eval_acc`` the
teacher-forced token accuracies, ``checkpoints/``), so the same checks refuse to resume a run with
other settings.

Shapes: ``B`` sentences, ``N`` source positions, ``T`` target positions.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from transformer_theory import _validate
from transformer_theory.core import beam, encdec
from transformer_theory.nn.encdec import EncoderDecoder, Seq2SeqConfig, to_params
from transformer_theory.train import rundir, runner
from transformer_theory.train.loop import TrainSettings, make_optimizer

__all__ = [
    "BOS",
    "PairSplit",
    "Seq2SeqData",
    "decode_all",
    "decoder_inputs",
    "make_optimizer",
    "restore_seq2seq",
    "settings",
    "split_pairs",
    "teacher_forcing_loss",
    "train_seq2seq",
]

# The default start token: id 1, as in the library's synthetic seq2seq tasks (PAD, BOS, EOS = 0, 1,
# 2). Pass ``bos`` for a vocabulary laid out otherwise.
BOS = 1


@dataclasses.dataclass(frozen=True)
class PairSplit:
    """How a run's pairs were split: the ``data.*`` fields of its settings (:mod:`.rundir`)."""

    holdout: float
    eval_size: int


@dataclasses.dataclass(frozen=True)
class Seq2SeqData:
    """A train / held-out split of source-target pairs.

    Attributes:
      task: what the pairs come from: its ``repr`` is a run setting, its ``vocab_size`` must be the
        model's.
      split: how they were split (a dataclass; its fields are the run's ``data.*`` settings).
      src_train_BxN, tgt_train_BxT: the training pairs.
      src_eval_BxN, tgt_eval_BxT: the held-out pairs.
      bos: the decoder's start token.
    """

    task: Any
    split: Any
    src_train_BxN: np.ndarray
    tgt_train_BxT: np.ndarray
    src_eval_BxN: np.ndarray
    tgt_eval_BxT: np.ndarray
    bos: int = BOS

    @property
    def holdout(self) -> float:
        return self.split.holdout

    def batch(self, key: jax.Array, size: int) -> tuple[jax.Array, jax.Array]:
        """``size`` training pairs drawn uniformly with replacement."""
        idx = jax.random.randint(key, (size,), 0, self.src_train_BxN.shape[0])
        return jnp.asarray(self.src_train_BxN)[idx], jnp.asarray(self.tgt_train_BxT)[idx]


def split_pairs(task: Any, key: jax.Array, holdout: float = 0.2, *, bos: int = BOS) -> Seq2SeqData:
    """Every pair of ``task.all_pairs()`` (``(src_BxN, tgt_BxT)``), a random ``holdout`` fraction
    held out (a function of ``key``)."""
    if not 0 < holdout < 1:
        raise ValueError(f"holdout: expected a fraction in (0, 1), got {holdout}")
    src, tgt = map(np.asarray, task.all_pairs())
    size = src.shape[0]
    order = np.asarray(jax.random.permutation(key, size))
    cut = int(round(size * (1 - holdout)))
    tr, ev = order[:cut], order[cut:]
    split = PairSplit(holdout, int(ev.shape[0]))
    return Seq2SeqData(task, split, src[tr], tgt[tr], src[ev], tgt[ev], bos=int(bos))


def decoder_inputs(tgt_BxT: jax.Array, bos: int = BOS) -> jax.Array:
    """Teacher forcing's decoder input ``[bos, y_0, ..., y_{T-2}]`` for every row."""
    return jnp.concatenate([jnp.full_like(tgt_BxT[:, :1], bos), tgt_BxT[:, :-1]], axis=1)


def teacher_forcing_loss(
    model: EncoderDecoder, src_BxN: jax.Array, tgt_BxT: jax.Array, bos: int = BOS
) -> tuple[jax.Array, jax.Array]:
    """``(mean cross-entropy, token accuracy)`` over every target position."""
    logits = model(src_BxN, decoder_inputs(tgt_BxT, bos))
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, tgt_BxT).mean()
    acc = jnp.mean((jnp.argmax(logits, axis=-1) == tgt_BxT).astype(jnp.float32))
    return loss, acc


@functools.lru_cache(maxsize=16)
def _steps(graphdef, config: TrainSettings, bos: int):
    """``(guarded train_step, eval_step)`` jitted for the model ``graphdef``, memoized on the
    (hashable) graph definition, optimizer settings and start token so a process compiles them
    once."""
    tx = make_optimizer(config)

    def loss_fn(state, src, tgt):
        return teacher_forcing_loss(nnx.merge(graphdef, state), src, tgt, bos)

    def train_step(state, opt_state, src, tgt):
        (loss, acc), grads = jax.value_and_grad(loss_fn, has_aux=True)(state, src, tgt)
        updates, opt_state = tx.update(grads, opt_state, state)
        return optax.apply_updates(state, updates), opt_state, loss, acc

    return jax.jit(runner.guard(train_step)), jax.jit(loss_fn)


def settings(
    config: Seq2SeqConfig, data: Seq2SeqData, train_config: TrainSettings, meta: dict | None = None
) -> dict:
    """The run's settings as :func:`~transformer_theory.train.rundir.run_settings` lays them out."""
    return rundir.run_settings(config, data.task, data.split, train_config, meta)


def train_seq2seq(
    model: EncoderDecoder,
    data: Seq2SeqData,
    config: TrainSettings,
    out_dir: str | None = None,
    *,
    meta: dict | None = None,
    progress: bool = True,
    stop_after: int | None = None,
) -> tuple[encdec.Seq2SeqParams, list[dict]]:
    """Train ``model`` with teacher forcing; resume from ``out_dir`` when it holds this run.

    Args:
      model: the INITIAL model (also when resuming: it fixes the run's fingerprint).
      data: the split.
      config: optimizer, steps, batch size, logging and checkpoint intervals, seed.
      out_dir: the run directory (None: nothing written).
      meta: JSON-able description stored with the settings.
      progress: a tqdm bar on a terminal.
      stop_after: stop (after checkpointing) once this many steps are done.
    Returns:
      ``(final Seq2SeqParams, metric rows)``; a run that diverged keeps the parameters before the
      diverging update and its last row has ``status: "diverged"`` (:mod:`.runner`).
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
    opt_only = TrainSettings(
        optimizer=config.optimizer,
        learning_rate=config.learning_rate,
        momentum=config.momentum,
        grad_clip=config.grad_clip,
    )
    train_step, eval_step = _steps(graphdef, opt_only, int(data.bos))
    meta = dict(meta or {})
    src_ev, tgt_ev = jnp.asarray(data.src_eval_BxN), jnp.asarray(data.tgt_eval_BxT)
    out = runner.run(
        state,
        make_optimizer(config).init(state),
        train_step=train_step,
        eval_step=lambda s: eval_step(s, src_ev, tgt_ev),
        batch=data.batch,
        config=config,
        out_dir=out_dir,
        settings=settings(model.config, data, config, meta),
        fingerprints={
            "initial_params_sha256": rundir.fingerprint(state),
            "heldout_sha256": rundir.fingerprint((data.src_eval_BxN, data.tgt_eval_BxT)),
        },
        meta=meta,
        stop_after=stop_after,
        progress=progress,
        desc=meta.get("name", "seq2seq"),
    )
    return to_params(nnx.merge(graphdef, out.state)), out.rows


def restore_seq2seq(
    out_dir: str, model: EncoderDecoder, config: TrainSettings
) -> encdec.Seq2SeqParams:
    """The parameters of the latest checkpoint in ``out_dir``; ``model`` and ``config`` give the
    structure of the saved state. Raises ``RunDirectoryError`` when there is none."""
    graphdef, state = nnx.split(model)
    template = (state, make_optimizer(config).init(state))
    state, _ = runner.restore(out_dir, template, config.checkpoint_every)
    return to_params(nnx.merge(graphdef, state))


@functools.partial(jax.jit, static_argnums=(2, 3, 4, 5))
def _decode_batch(params, src_BxN, length: int, beam_size: int, norm: str, bos: int):
    def one(src):
        toks, lps = beam.beam_decode(params, src, bos, length, beam_size, norm=norm)
        return toks[0], lps[0]

    return jax.vmap(one)(src_BxN)


def decode_all(
    params: encdec.Seq2SeqParams,
    src_BxN: np.ndarray | jax.Array,
    length: int,
    *,
    beam_size: int = 1,
    norm: str = "layernorm_sigma",
    chunk: int = 512,
    bos: int = BOS,
) -> tuple[np.ndarray, np.ndarray]:
    """Decode every source (greedy when ``beam_size == 1``, else the best beam), in chunks of
    ``chunk`` sentences (one compiled program per chunk shape, shared across models of one
    shape), the decoder starting from ``bos``. Returns ``(tokens_BxT, logprobs_B)`` on the host."""
    _validate.check_positive("chunk", chunk)
    _validate.check_positive("beam_size", beam_size)
    src = np.asarray(src_BxN)
    toks, lps = [], []
    for i in range(0, src.shape[0], chunk):
        t, lp = _decode_batch(
            params, jnp.asarray(src[i : i + chunk]), length, beam_size, norm, int(bos)
        )
        toks.append(np.asarray(t))
        lps.append(np.asarray(lp))
    return np.concatenate(toks), np.concatenate(lps)
