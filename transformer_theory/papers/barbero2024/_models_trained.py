"""The small trained models of the copy / count tasks (Barbero et al. 2024, §4): a causal Pre-LN
transformer (Flax NNX, Optax Adam, float32) trained on one task of :mod:`._tasks` at short
content lengths (every length in one left-padded, masked batch).

- :func:`model_config`: the model a task trains (:func:`~._models.causal_pre_ln_config` with the
  task's vocabulary and classes);
- :func:`train_task`: the training (:func:`transformer_theory.train.fit.fit`).

The experiment that trains them and evaluates them long is
:mod:`.experiments.collapse_tasks`; the evaluation is :func:`~._theory_collapse.evaluate`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx

from transformer_theory.core.forward import forward
from transformer_theory.core.positional import embed_long
from transformer_theory.nn import Transformer, to_params
from transformer_theory.papers.barbero2024 import _tasks as copying
from transformer_theory.papers.barbero2024._models import causal_pre_ln_config
from transformer_theory.params import ModelConfig, ModelParams
from transformer_theory.train.fit import fit
from transformer_theory.train.loop import TrainSettings, cross_entropy, make_optimizer

__all__ = ["model_config", "train_task"]


def model_config(
    task: copying.CopyingTask, *, depth: int, heads: int, positional: str, width: int
) -> ModelConfig:
    """The model :func:`train_task` trains on ``task``: :func:`~._models.causal_pre_ln_config` of
    ``depth`` layers of ``heads`` heads, ``width`` wide, with ``positional`` encodings and the
    task's vocabulary and classes."""
    return causal_pre_ln_config(
        depth,
        heads,
        positional,
        width=width,
        vocab_size=task.vocab_size,
        num_classes=task.num_classes,
    )


def train_task(
    task: copying.CopyingTask,
    *,
    depth: int,
    heads: int,
    positional: str,
    width: int,
    steps: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    progress: bool = False,
) -> tuple[ModelParams, list[dict], int | None]:
    """Train a model (:func:`model_config`) on ``task`` for ``steps`` Adam steps of
    ``batch_size`` examples at ``learning_rate`` (:func:`~transformer_theory.train.fit.fit`, with
    gradient clipping at 1; the weights from ``seed``, batches drawn on device from
    ``fold_in(key(seed + 1), step)``).

    Returns:
      ``(params, rows, diverged_step)``: the float32 parameters, the training loss and accuracy
      logged every tenth of the run (and at the last step), and the step whose loss or gradient
      was not finite (None: none was).
    """
    mcfg = model_config(task, depth=depth, heads=heads, positional=positional, width=width)
    model = Transformer(mcfg, rngs=nnx.Rngs(seed))
    tx = make_optimizer(TrainSettings(optimizer="adam", learning_rate=learning_rate, grad_clip=1.0))

    def logits_of(params: ModelParams, tokens_N: jax.Array, valid_N: jax.Array) -> jax.Array:
        emb = embed_long(mcfg, tokens_N, dtype=jnp.float32, valid_N=valid_N)
        return forward(params, emb, copying.attention_mask(valid_N))

    def loss_fn(module: Transformer, key: jax.Array) -> tuple[jax.Array, dict]:
        tokens_BxN, valid_BxN, labels_B = task.sample(key, batch_size)
        params = to_params(module)
        logits_BxC = jax.vmap(lambda t, v: logits_of(params, t, v))(tokens_BxN, valid_BxN)
        acc = jnp.mean(jnp.argmax(logits_BxC, -1) == labels_B)
        return cross_entropy(logits_BxC, labels_B), dict(acc=acc)

    root = jax.random.fold_in(jax.random.key(seed), 1)
    result = fit(
        model,
        loss_fn,
        lambda s: (jax.random.fold_in(root, s),),
        optimizer=tx,
        steps=steps,
        has_aux=True,
        log_every=max(1, steps // 10),
        progress=f"train {task.name}" if progress else None,
    )
    return to_params(result.params), result.rows, result.diverged_step
