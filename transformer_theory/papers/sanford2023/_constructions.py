"""The two pieces every Sanford et al. 2023 construction shares: one softmax+MLP layer in the
library's parameter format (:func:`softmax_mlp_layer`) and the jitted forward pass that reads the
last residual stream and the first layer's attention (:func:`run_streams`).

Shape letters: :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike, DTypeLike

from transformer_theory.core.forward import forward_trace
from transformer_theory.params import AttentionParams, LayerParams, MLPParams, ModelParams

__all__ = ["run_streams", "softmax_mlp_layer"]


@jax.jit
def run_streams(params: ModelParams, stream_BxNxD: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The last residual stream ``(B, N, D)`` and the first layer's first head's attention
    ``(B, N, K)`` of ``params`` on the embedded inputs ``stream_BxNxD`` (one compiled call)."""
    trace = jax.vmap(lambda s: forward_trace(params, s))(stream_BxNxD)
    return trace.streams_LxNxD[:, -1], trace.attention[0][:, 0]


def softmax_mlp_layer(
    dtype: DTypeLike,
    w_v: ArrayLike,
    w_q: ArrayLike,
    w_k: ArrayLike,
    w1: ArrayLike,
    b1: ArrayLike,
    w2: ArrayLike,
) -> LayerParams:
    """One softmax layer of the Match constructions: heads' ``w_v``/``w_q``/``w_k`` (stacked on a
    leading head axis), the MLP ``psi`` (``w1``, ``b1``, ``w2`` of shape ``(D, hidden)``; no output
    bias), in ``dtype``."""

    def arr(a):
        return jnp.asarray(a, dtype)

    return LayerParams(
        attn=AttentionParams(w_v=arr(w_v), w_q=arr(w_q), w_k=arr(w_k)),
        mlp=MLPParams(w1=arr(w1), b1=arr(b1), w2=arr(w2), b2=arr(np.zeros(np.shape(w2)[0]))),
    )
