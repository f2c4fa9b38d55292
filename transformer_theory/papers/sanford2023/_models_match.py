"""Training softmax layers on Match2 and Match3 (the tasks of Sanford, Hsu & Telgarsky 2023): a
TRAINABILITY study, not a test of the Match3 impossibility theorem (``experiments/
sanford_match_width.py``; the config's docstring says why and what was measured).

Models are the library's ONE parameter format (``init_params``; one-hot tokens, no positions, as
the tasks are permutation-invariant, an MLP after attention) read out at EVERY position through
``w_o`` applied to the last residual stream; Adam (:func:`transformer_theory.train.fit.fit`) on
fresh balanced samples each step (:func:`~._tasks.match_training_data`, drawn by the caller).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax

from transformer_theory.core.forward import forward_trace
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.params import ModelConfig, ModelParams, init_params
from transformer_theory.train.fit import fit

__all__ = [
    "DEPTHS",
    "per_position_logits",
    "train_match_model",
]

#: The depth trained per task: one layer each, two for the bigram.
DEPTHS = {"match2": 1, "match3": 1, "match3bigram": 2}


def per_position_logits(params: ModelParams, tokens_N: jax.Array) -> jax.Array:
    """``w_o`` applied to every position of the last residual stream: ``(N, C)``."""
    return forward_trace(params, tokens_N).streams_LxNxD[-1] @ params.w_o.T


def train_match_model(
    task: str,
    seq_len: int,
    modulus: int,
    depth: int,
    qk_dim: int,
    heads: int,
    steps: int,
    seed: int,
    data: ts.MatchTrainingData,
) -> dict:
    """Train one model (``depth`` layers of ``heads`` softmax heads of query/key width
    ``qk_dim``, residual width ``M + 16``, MLP 64) on ``task`` with Adam (3e-3) for ``steps``
    batches of ``data`` (:func:`.._tasks.match_training_data`); the
    held-out per-position and per-sequence accuracy on ``data``'s held-out sequences beside the
    majority baseline."""
    cfg = ModelConfig(
        vocab_size=modulus,
        seq_len=seq_len,
        width=modulus + 16,
        num_classes=2,
        heads=(heads,) * depth,
        attention="softmax",
        positional="none",
        qk_dim=qk_dim,
        scale_scores=True,
        mlp_hidden=64,
    )
    params = init_params(jax.random.key(seed), cfg)

    def loss_fn(p, x_BxN, y_BxN):
        logits = jax.vmap(lambda t: per_position_logits(p, t))(x_BxN)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y_BxN).mean()

    def sample(t):
        x, y = data.batch(t)
        return jnp.asarray(x), jnp.asarray(y, jnp.int32)

    x, y = data.held_out_x, data.held_out_y
    result = fit(params, loss_fn, sample, optimizer=optax.adam(3e-3), steps=steps, log_every=steps)
    params = result.params
    logits = jax.jit(jax.vmap(lambda t: per_position_logits(params, t)))(jnp.asarray(x))
    pred = np.asarray(jnp.argmax(logits, -1))
    return {
        "task": task,
        "N": seq_len,
        "M": modulus,
        "depth": depth,
        "heads": heads,
        "qk_dim": qk_dim,
        "steps": steps,
        "final_loss": result.final_loss,
        "accuracy": float(np.mean(pred == y)),
        "sequence_accuracy": float(np.mean(np.all(pred == y, axis=1))),
        "positive_rate": float(y.mean()),
        "majority_baseline": float(max(y.mean(), 1 - y.mean())),
    }
