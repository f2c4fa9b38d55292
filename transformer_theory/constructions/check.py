"""Check a construction on a task: every example (exhaustive, streamed in chunks) or a sample.

The forward pass is ``jax.jit(jax.vmap(forward))`` over a chunk in the params' dtype (float64 for
the constructions); the margin of an example is its correct logit minus its best wrong logit, so
the model classifies the example iff the margin is positive (ties count as errors).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from transformer_theory import _validate
from transformer_theory.core.forward import forward
from transformer_theory.params import ModelParams, validate_params


def margins(params: ModelParams, tokens_BxN, labels_B) -> jax.Array:
    """Per-example margins ``o[y] - max_{c != y} o[c]`` (jit it at the call site for speed)."""
    _validate.check_ndim("tokens_BxN", tokens_BxN, 2)
    _validate.check_shape("labels_B", labels_B, (tokens_BxN.shape[0],))
    logits = jax.vmap(forward, in_axes=(None, 0))(params, tokens_BxN)
    correct = jnp.take_along_axis(logits, labels_B[:, None], axis=1)[:, 0]
    wrong = jnp.where(jax.nn.one_hot(labels_B, logits.shape[1], dtype=bool), -jnp.inf, logits)
    return correct - wrong.max(axis=1)


@jax.jit
def _chunk_stats(params: ModelParams, tokens_BxN: jax.Array, labels_B: jax.Array):
    margin_B = margins(params, tokens_BxN, labels_B)
    return jnp.sum(margin_B > 0), jnp.min(margin_B)


def check_construction(
    params: ModelParams,
    task,
    chunk_size: int = 4096,
    *,
    samples: int | None = None,
    key: jax.Array | None = None,
    progress: bool = False,
) -> dict:
    """Accuracy and minimum margin of ``params`` on ``task``.

    Args:
      params: one model whose config matches the task (vocab, length, classes).
      task: any task of ``transformer_theory.tasks``.
      chunk_size: examples per device call.
      samples: ``None`` -- every example of the exhaustive dataset, in index order; an int -- that
        many examples drawn uniformly (with replacement) by ``task.sample``.
      key: PRNG key for sampled mode (default ``PRNGKey(0)``); chunk ``i`` uses ``fold_in(key, i)``.
      progress: tqdm bar over chunks.
    Returns:
      ``dict(examples=int, accuracy=float, min_margin=float, mode="exhaustive"|"sampled")``.
    """
    validate_params(params)
    if params.batch_shape:
        raise ValueError(f"params: expected one model, got a batch of shape {params.batch_shape}")
    cfg = params.config
    for attr, want in (
        ("vocab_size", cfg.vocab_size),
        ("seq_len", cfg.seq_len),
        ("num_classes", cfg.num_classes),
    ):
        if getattr(task, attr) != want:
            raise ValueError(
                f"task: {attr} = {getattr(task, attr)} does not match params.config.{attr} = {want}"
            )
    if not isinstance(chunk_size, (int, np.integer)) or chunk_size <= 0:
        raise ValueError(f"chunk_size: expected a positive int, got {chunk_size!r}")
    if samples is None:
        total = int(task.size)
        chunks = task.chunks(int(chunk_size))
        mode = "exhaustive"
    else:
        if not isinstance(samples, (int, np.integer)) or samples <= 0:
            raise ValueError(f"samples: expected a positive int, got {samples!r}")
        total = int(samples)
        base = jax.random.PRNGKey(0) if key is None else key
        sizes = [min(chunk_size, total - lo) for lo in range(0, total, chunk_size)]
        chunks = (task.sample(jax.random.fold_in(base, i), m) for i, m in enumerate(sizes))
        mode = "sampled"
    n_chunks = -(-total // chunk_size)
    correct, min_margin = 0, np.inf
    for tokens, labels in tqdm(
        chunks, total=n_chunks, disable=not progress, desc="check", leave=False
    ):
        c, m = _chunk_stats(params, jnp.asarray(tokens, jnp.int32), jnp.asarray(labels, jnp.int32))
        correct += int(c)
        min_margin = min(min_margin, float(m))
    return dict(examples=total, accuracy=correct / total, min_margin=min_margin, mode=mode)
