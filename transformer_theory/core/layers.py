"""Layers on one sequence ``H_NxD`` (row-major; Chen & Zou 2024 writes ``H: (d', n)``).

- :func:`attention_scores`: ``scores_HxNxN[h, i, j]`` = score of query ``i`` for key ``j`` in head
  ``h``.
- :func:`attention_layer`: Chen & Zou 2024, eq. 2 -- ``H + (1/m) sum_h sigma(scores_h) V_h`` --
  generalized
  with Barbero et al.'s Pre-LN pieces: ``norm1`` applied to the stream before attention, and an MLP
  ``psi`` after ``norm2`` with its own residual: ``z = H + attn(norm1(H))``, ``out = z +
  psi(norm2(z))``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import attention, masks, norms, positional
from transformer_theory.params import LayerParams, MLPParams, ModelConfig


def mlp(p: MLPParams, x_NxD: jax.Array, activation: str = "relu") -> jax.Array:
    """``psi(x) = W2 act(W1 x + b1) + b2`` applied token-wise."""
    act = jax.nn.relu if activation == "relu" else jax.nn.gelu
    # Explicit [None, :]: the suite runs with rank promotion = "raise".
    return act(x_NxD @ p.w1.T + p.b1[None, :]) @ p.w2.T + p.b2[None, :]


def attention_scores(
    layer: LayerParams, h_NxD: jax.Array, config: ModelConfig, queries_Q: jax.Array | None = None
) -> jax.Array:
    """Scores ``(H, Q, N)`` of every head, before masking and the attention nonlinearity.

    With ``w_qk`` (Chen & Zou 2024): ``s[h, i, j] = h_j^T W_QK[h] h_i``. With ``w_q, w_k``:
    ``s[h, i, j] = (W_Q h_i) . (W_K h_j)``, RoPE-rotated when ``config.relative == "rope"``.
    ALiBi adds ``-slope_h |i - j|``; ``scale_scores`` divides by ``sqrt(E)``.

    Args:
      layer: one layer's parameters.
      h_NxD: the (normalized) stream the scores read.
      config: the model's config.
      queries_Q: the query positions to score (default every position: ``Q = N``). The one
        scoring of the library: the verifier scores only the last query with it.
    """
    a = layer.attn
    n = h_NxD.shape[0]
    queries = jnp.arange(n) if queries_Q is None else jnp.asarray(queries_Q)
    h_QxD = h_NxD[queries]
    if config.qk_dim is None:
        scores = jnp.einsum("hed,id->hie", a.w_qk, h_QxD) @ h_NxD.T  # (W_QK h_i) . h_j
        key_dim = config.width
    else:
        q = jnp.einsum("hkd,nd->hnk", a.w_q, h_QxD)
        k = jnp.einsum("hkd,nd->hnk", a.w_k, h_NxD)
        if config.relative == "rope":
            q = jax.vmap(lambda x: positional.rope(x, queries))(q)
            k = jax.vmap(lambda x: positional.rope(x, jnp.arange(n)))(k)
        scores = jnp.einsum("hik,hjk->hij", q, k)
        key_dim = config.qk_dim
    if config.scale_scores:
        scores = scores / jnp.sqrt(jnp.asarray(key_dim, scores.dtype))
    if config.relative == "alibi":
        slopes = positional.alibi_slopes(scores.shape[0], scores.dtype)
        bias = jax.vmap(lambda s: positional.alibi_bias(n, s, scores.dtype)[queries])(slopes)
        scores = scores + bias
    return scores


def attention_layer(
    layer: LayerParams,
    h_NxD: jax.Array,
    config: ModelConfig,
    mask_NxN: jax.Array | None = None,
) -> tuple[jax.Array, jax.Array]:
    """One layer: Chen & Zou 2024, eq. 2 plus optional Pre-LN ``norm1`` / MLP (Barbero et al. 2024).

    Args:
      layer: this layer's parameters (one model, no batch axis).
      h_NxD: the residual stream.
      config: the model's config.
      mask_NxN: optional boolean mask (True = may attend), combined with ``config.causal``.
    Returns:
      ``(h_out_NxD, weights_HxNxN)`` -- the new stream and each head's attention weights.
    """
    _validate.check_ndim("h_NxD", h_NxD, 2)
    n = h_NxD.shape[0]
    x = h_NxD
    if layer.norm1 is not None:
        x = norms.apply_norm(config.norm1, x, layer.norm1.scale, layer.norm1.bias, config.norm_eps)
    scores = attention_scores(layer, x, config)
    if mask_NxN is not None:
        _validate.check_mask("mask_NxN", mask_NxN, (n, n))
    mask = mask_NxN
    if config.causal:
        mask = masks.causal_mask(n) if mask is None else (mask & masks.causal_mask(n))
    weights = jax.vmap(lambda s: attention.attention_weights(s, config.attention, mask))(scores)
    values = jnp.einsum("hed,nd->hne", layer.attn.w_v, x)
    heads_out = jnp.einsum("hij,hjd->hid", weights, values)
    combined = jnp.mean(heads_out, axis=0) if config.head_mean else jnp.sum(heads_out, axis=0)
    z = h_NxD + combined
    if layer.mlp is not None:
        u = z
        if layer.norm2 is not None:
            u = norms.apply_norm(
                config.norm2, u, layer.norm2.scale, layer.norm2.bias, config.norm_eps
            )
        z = z + mlp(layer.mlp, u, config.mlp_activation)
    return z, weights
