"""Check a construction on a task: every example (exhaustive, streamed in chunks) or a sample.

The forward pass is ``jax.jit(jax.vmap(forward))`` over a chunk in the params' dtype (float64 for
the constructions); the margin of an example is its correct logit minus its best wrong logit, so
the model classifies the example iff the margin is positive (ties count as errors). The relative
margin divides it by the example's largest logit magnitude ``max_c |o[c]|``: a perturbation of
the logits smaller than that fraction of their size (float64 rounding is ~1e-16 of it) cannot
change the answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate
from transformer_theory.core.forward import forward
from transformer_theory.params import ModelParams, validate_params
from transformer_theory.progress import tqdm
from transformer_theory.tasks import Task


def _margins_of(logits_BxC: jax.Array, labels_B: jax.Array) -> jax.Array:
    correct_B = jnp.take_along_axis(logits_BxC, labels_B[:, None], axis=1)[:, 0]
    one_hot_BxC = jax.nn.one_hot(labels_B, logits_BxC.shape[1], dtype=bool)
    return correct_B - jnp.where(one_hot_BxC, -jnp.inf, logits_BxC).max(axis=1)


def margins(params: ModelParams, tokens_BxN: jax.Array, labels_B: jax.Array) -> jax.Array:
    """Per-example margins ``o[y] - max_{c != y} o[c]`` (jit it at the call site for speed)."""
    _validate.check_ndim("tokens_BxN", tokens_BxN, 2)
    _validate.check_shape("labels_B", labels_B, (tokens_BxN.shape[0],))
    return _margins_of(jax.vmap(forward, in_axes=(None, 0))(params, tokens_BxN), labels_B)


@jax.jit
def _chunk_stats(params: ModelParams, tokens_BxN: jax.Array, labels_B: jax.Array):
    logits_BxC = jax.vmap(forward, in_axes=(None, 0))(params, tokens_BxN)
    margin_B = _margins_of(logits_BxC, labels_B)
    scale_B = jnp.abs(logits_BxC).max(axis=1)
    relative_B = jnp.where(scale_B > 0, margin_B / jnp.where(scale_B > 0, scale_B, 1), 0.0)
    return jnp.sum(margin_B > 0), jnp.min(margin_B), jnp.min(relative_B)


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def check_construction(
    params: ModelParams,
    task: Task,
    chunk_size: int = 4096,
    *,
    samples: int | None = None,
    key: jax.Array | None = None,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Accuracy and minimum (absolute and relative) margin of ``params`` on ``task``.

    Args:
      params: one model whose config matches the task (vocab, length, classes).
      task: any task of ``transformer_theory.tasks``.
      chunk_size: examples per device call.
      samples: ``None`` -- every example of the exhaustive dataset, in index order; an int -- that
        many examples drawn uniformly (with replacement) by ``task.sample``.
      key: PRNG key for sampled mode (default ``PRNGKey(0)``); chunk ``i`` uses ``fold_in(key, i)``.
      progress: tqdm bar over the examples (count, rate, time left).
      log: called with one line once the first chunks are timed: the estimated time left (when
        it is more than a few seconds), for logs that have no bar.
    Returns:
      ``dict(examples=int, accuracy=float, min_margin=float, min_relative_margin=float,
      mode="exhaustive"|"sampled")``; ``min_relative_margin`` is the smallest
      ``margin / max_c |o[c]|`` (see the module docstring).

    Example:
      >>> from transformer_theory import precision
      >>> precision.enable_x64()  # an entry point's line: the constructions are built in float64
      >>> from transformer_theory import tasks
      >>> from transformer_theory.constructions import theorem3
      >>> task = tasks.InContextQA(2, 2, 1)
      >>> result = check_construction(theorem3(task), task)
      >>> result["examples"], result["accuracy"], result["mode"]
      (4, 1.0, 'exhaustive')
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
        chunks = task.chunks(int(min(chunk_size, total)))
        mode = "exhaustive"
    else:
        if not isinstance(samples, (int, np.integer)) or samples <= 0:
            raise ValueError(f"samples: expected a positive int, got {samples!r}")
        total = int(samples)
        base = jax.random.PRNGKey(0) if key is None else key
        sizes = [min(chunk_size, total - lo) for lo in range(0, total, chunk_size)]
        chunks = (task.sample(jax.random.fold_in(base, i), m) for i, m in enumerate(sizes))
        mode = "sampled"
    correct, done, min_margin, min_relative = 0, 0, np.inf, np.inf
    bar = tqdm(
        total=total,
        disable=not progress or None,
        desc="check",
        unit="ex",
        unit_scale=True,
        leave=False,
    )
    t_first = None
    for i, (tokens, labels) in enumerate(chunks):
        c, m, r = _chunk_stats(
            params, jnp.asarray(tokens, jnp.int32), jnp.asarray(labels, jnp.int32)
        )
        correct += int(c)
        done += len(labels)
        min_margin = min(min_margin, float(m))
        min_relative = min(min_relative, float(r))
        bar.update(len(labels))
        if i == 0:  # the first chunk pays for compilation; time from the end of it
            t_first, done_first = time.perf_counter(), done
        elif i == 1 and log is not None:
            rate = (done - done_first) / max(time.perf_counter() - t_first, 1e-9)
            left = (total - done) / rate
            if left > 5:
                log(f"about {_duration(left)} left at {rate:,.0f} examples/s")
    bar.close()
    return dict(
        examples=total,
        accuracy=correct / total,
        min_margin=min_margin,
        min_relative_margin=min_relative,
        mode=mode,
    )
