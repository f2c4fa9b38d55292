"""The training forward pass without the work a classifier does not need.

:func:`batch_logits` returns exactly what ``jax.vmap(core.forward)`` returns (Chen & Zou 2024,
eq. 1-3: ``o = W_O h^(L)_{n-1}``), for a batch, computed in fewer operations:

- **First layer as a lookup.** Its stream is an embedding (eq. 3): ``x_j = e_{t_j} + p_j`` with a
  token one-hot ``e_{t_j}`` and a token-independent positional block ``p_j`` (padding included).
  Every ``W x_j`` is a column gather ``W[:, t_j]`` plus ``(W p_j)``, which is computed once per
  step for the ``N`` positions, not once per example: the ``B N D x D`` products of the dense
  path become ``B N D`` gathers. Scores then read the embedded stream directly.
- **Last layer for the last query only.** The classifier reads ``h^(L)_{n-1}`` alone, so the last
  layer scores one query, ``s_j = h_j . (W_QK h_{n-1})``, and applies ``W_V`` once to the weighted
  sum: ``sum_j w_j W_V h_j = W_V (sum_j w_j h_j)``, ``D x D`` per example instead of ``N D x D``.
- **Second layer through the first.** The first layer's output is the embedding plus
  attention-weighted ``W_V x_j``, so the second layer's ``W h^(1)_i`` is a lookup of ``W`` plus an
  attention-weighted lookup of ``W W_V`` (:class:`_ThroughFirst`): ``B N^2 D`` work instead of
  ``B N D^2`` (``N = 20 < D = 228`` at the paper's contextual size).
- Layers after that are the general layer (:func:`transformer_theory.core.attention_layer`)
  written for the batch: every ``W h`` is one ``(B N, D) x (D, D)`` product.

Supported: the models of the depth experiments -- any depth and heads, ``w_qk`` or ``w_q, w_k``,
any attention nonlinearity, causal or not, ``scale_scores``, a final norm; and any
token-independent absolute code. Anything else (norms or an MLP inside layers, a relative term,
the ``"ngram_window"`` code, language models) goes to the dense path: :func:`supports` says which.

Shapes use the letters of :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import attention, masks, norms
from transformer_theory.core.forward import forward
from transformer_theory.core.positional import embed_tokens
from transformer_theory.params import LayerParams, ModelConfig, ModelParams


def supports(config: ModelConfig) -> bool:
    """Whether :func:`batch_logits` takes the fast path for ``config`` (else: the dense one)."""
    return (
        config.norm1 is None
        and config.norm2 is None
        and config.mlp_hidden is None
        and config.relative is None
        and config.positional != "ngram_window"
        and not config.causal_lm
    )


def dense_logits(params: ModelParams, tokens_BxN: jax.Array) -> jax.Array:
    """The general path: ``core.forward`` vmapped over the batch, logits ``(B, C)``."""
    return jax.vmap(lambda t: forward(params, t))(tokens_BxN)


def batch_logits(params: ModelParams, tokens_BxN: jax.Array, *, fast: bool = True) -> jax.Array:
    """Logits ``(B, C)`` of every sequence, equal to :func:`dense_logits` up to float rounding.

    Args:
      params: one model (its config attached).
      tokens_BxN: token ids.
      fast: take the fast path where :func:`supports` allows (False: always the dense path).
    """
    _validate.check_ndim("tokens_BxN", tokens_BxN, 2)
    cfg = params.config
    if cfg is None:
        raise ValueError("params.config: a ModelParams must carry its ModelConfig")
    if not (fast and supports(cfg)):
        return dense_logits(params, tokens_BxN)
    n = tokens_BxN.shape[1]
    dtype = params.w_o.dtype
    v = cfg.vocab_size
    # The token-independent part of eq. 3's embedding: the positional code and the zero padding.
    zeros_N = jnp.zeros((n,), jnp.int32)
    pos_NxD = embed_tokens(
        zeros_N, v, cfg.width, cfg.positional, dtype, window=cfg.positional_window
    )
    pos_NxD = pos_NxD.at[:, :v].set(0.0)
    h_BxNxD = pos_NxD[None] + jax.nn.one_hot(tokens_BxN, cfg.width, dtype=dtype)
    depth = len(params.layers)
    first = params.layers[0]
    mask = masks.causal_mask(n) if cfg.causal else None
    if depth == 1:
        last = _embedded_last_layer(first, tokens_BxN, h_BxNxD, pos_NxD, cfg, mask)
    else:
        h_BxNxD, a1_BxGxNxN = _embedded_layer(first, tokens_BxN, h_BxNxD, pos_NxD, cfg, mask)
        if depth > 2:
            through = _ThroughFirst(tokens_BxN, pos_NxD, a1_BxGxNxN, first.attn.w_v, cfg)
            h_BxNxD = _second_layer(params.layers[1], through, h_BxNxD, cfg, mask)
        for layer in params.layers[2:-1]:
            h_BxNxD = _middle_layer(layer, h_BxNxD, cfg, mask)
        last = _last_query_layer(params.layers[-1], h_BxNxD, cfg, mask)
    if params.final_norm is not None:
        fn = params.final_norm
        last = norms.apply_norm(cfg.final_norm, last, fn.scale, fn.bias, cfg.norm_eps)
    return last @ params.w_o.T


def _lookup(w_HxRxD: jax.Array, tokens_BxN: jax.Array, pos_NxD: jax.Array, v: int) -> jax.Array:
    """``W x_j`` for the embedded stream: ``W[:, :, t_j] + W p_j``, shape ``(B, H, N, R)``."""
    rows_VxHxR = jnp.moveaxis(w_HxRxD[:, :, :v], 2, 0)
    tok_BxHxNxR = jnp.swapaxes(rows_VxHxR[tokens_BxN], 1, 2)
    pos_HxNxR = jnp.einsum("hrd,nd->hnr", w_HxRxD, pos_NxD)
    return tok_BxHxNxR + pos_HxNxR[None]


def _scale(scores, cfg: ModelConfig):
    if not cfg.scale_scores:
        return scores
    key_dim = cfg.width if cfg.qk_dim is None else cfg.qk_dim
    return scores / jnp.sqrt(jnp.asarray(key_dim, scores.dtype))


def _combine(heads_out, cfg: ModelConfig, axis: int):
    return jnp.mean(heads_out, axis=axis) if cfg.head_mean else jnp.sum(heads_out, axis=axis)


def _weights(scores_BxHxQxN, cfg: ModelConfig, mask_QxN):
    kind = cfg.attention
    return jax.vmap(jax.vmap(lambda s: attention.attention_weights(s, kind, mask_QxN)))(
        scores_BxHxQxN
    )


def _embedded_scores(layer: LayerParams, tokens_BxN, h_BxNxD, pos_NxD, cfg):
    """All ``(B, H, N, N)`` first-layer scores from lookups (no ``D x D`` product)."""
    a = layer.attn
    if cfg.qk_dim is None:
        q_BxHxNxD = _lookup(a.w_qk, tokens_BxN, pos_NxD, cfg.vocab_size)  # W_QK x_i
        scores = jnp.einsum("bhid,bjd->bhij", q_BxHxNxD, h_BxNxD)
    else:
        q = _lookup(a.w_q, tokens_BxN, pos_NxD, cfg.vocab_size)
        k = _lookup(a.w_k, tokens_BxN, pos_NxD, cfg.vocab_size)
        scores = jnp.einsum("bhie,bhje->bhij", q, k)
    return _scale(scores, cfg)


def _embedded_layer(layer, tokens_BxN, h_BxNxD, pos_NxD, cfg, mask_NxN):
    """The first layer on the embedded stream, every query: the stream ``(B, N, D)`` and the
    attention weights ``(B, H, N, N)``."""
    weights = _weights(_embedded_scores(layer, tokens_BxN, h_BxNxD, pos_NxD, cfg), cfg, mask_NxN)
    values_BxHxNxD = _lookup(layer.attn.w_v, tokens_BxN, pos_NxD, cfg.vocab_size)
    return _attend(weights, values_BxHxNxD, h_BxNxD, cfg), weights


def _attend(weights_BxHxNxN, values_BxHxNxD, h_BxNxD, cfg):
    """Eq. 2's residual update for every query: ``h_i + combine_h sum_j w_hij v_hj``."""
    out = jnp.einsum("bhij,bhjd->bhid", weights_BxHxNxN, values_BxHxNxD)
    return h_BxNxD + _combine(out, cfg, axis=1)


class _ThroughFirst:
    """``W h^(1)_i`` for every position without a ``D x D`` product per position.

    The first layer's output is ``h^(1)_i = x_i + combine_g sum_j a^g_ij W_V^g x_j`` (eq. 2 on the
    embedded stream ``x``), so for any ``W``: ``W h^(1)_i = W x_i + combine_g sum_j a^g_ij
    (W W_V^g) x_j`` -- two lookups (of ``W`` and of ``W W_V^g``, a ``D^3`` product once per step)
    and a mix over ``j`` (``B N^2 D``), instead of ``B N D^2``.
    """

    def __init__(self, tokens_BxN, pos_NxD, a1_BxGxNxN, w_v1_GxDxD, cfg):
        self.tokens, self.pos, self.a1, self.w_v1, self.cfg = (
            tokens_BxN,
            pos_NxD,
            a1_BxGxNxN,
            w_v1_GxDxD,
            cfg,
        )

    def __call__(self, w_HxRxD):
        """``(B, H, N, R)``: ``W[h] h^(1)_i`` for every head ``h`` and position ``i``."""
        v = self.cfg.vocab_size
        b, n = self.tokens.shape
        h, r, d = w_HxRxD.shape
        g = self.w_v1.shape[0]
        direct = _lookup(w_HxRxD, self.tokens, self.pos, v)
        u_HGxRxD = jnp.einsum("hrd,gde->hgre", w_HxRxD, self.w_v1).reshape(h * g, r, d)
        looked = _lookup(u_HGxRxD, self.tokens, self.pos, v).reshape(b, h, g, n, r)
        mixed = jnp.einsum("bgij,bhgjr->bhir", self.a1, looked)
        return direct + (mixed / g if self.cfg.head_mean else mixed)


def _second_layer(layer: LayerParams, through: _ThroughFirst, h_BxNxD, cfg, mask_NxN):
    """The second layer, every query, with its ``W h`` products read through the first layer
    (:class:`_ThroughFirst`): ``(B, N, D)``."""
    a = layer.attn
    if cfg.qk_dim is None:
        scores = jnp.einsum("bhie,bje->bhij", through(a.w_qk), h_BxNxD)  # (W_QK h_i) . h_j
    else:
        scores = jnp.einsum("bhie,bhje->bhij", through(a.w_q), through(a.w_k))
    return _attend(_weights(_scale(scores, cfg), cfg, mask_NxN), through(a.w_v), h_BxNxD, cfg)


def _embedded_last_layer(layer, tokens_BxN, h_BxNxD, pos_NxD, cfg, mask_NxN):
    """A one-layer model: the first layer's last query only, ``(B, D)``."""
    a = layer.attn
    n = tokens_BxN.shape[1]
    last_B = tokens_BxN[:, -1:]
    if cfg.qk_dim is None:
        q_BxHx1xD = _lookup(a.w_qk, last_B, pos_NxD[-1:], cfg.vocab_size)
        scores = jnp.einsum("bhid,bjd->bhij", q_BxHx1xD, h_BxNxD)
    else:
        q = _lookup(a.w_q, last_B, pos_NxD[-1:], cfg.vocab_size)
        k = _lookup(a.w_k, tokens_BxN, pos_NxD, cfg.vocab_size)
        scores = jnp.einsum("bhie,bhje->bhij", q, k)
    row = None if mask_NxN is None else mask_NxN[n - 1 :]
    weights_BxHxN = _weights(_scale(scores, cfg), cfg, row)[:, :, 0]
    return _weighted_values(a.w_v, weights_BxHxN, h_BxNxD, cfg)


def _middle_layer(layer: LayerParams, h_BxNxD, cfg, mask_NxN):
    """A general layer, every query, written for the batch: each ``W x`` is one ``(B N, D)``
    matrix product (the vmapped core layer gathers the queries and multiplies per example)."""
    a = layer.attn
    if cfg.qk_dim is None:
        q_BxHxNxD = jnp.einsum("hed,bnd->bhne", a.w_qk, h_BxNxD)  # W_QK h_i
        scores = jnp.einsum("bhie,bje->bhij", q_BxHxNxD, h_BxNxD)
    else:
        q = jnp.einsum("hkd,bnd->bhnk", a.w_q, h_BxNxD)
        k = jnp.einsum("hkd,bnd->bhnk", a.w_k, h_BxNxD)
        scores = jnp.einsum("bhik,bhjk->bhij", q, k)
    values_BxHxNxD = jnp.einsum("hed,bnd->bhne", a.w_v, h_BxNxD)
    return _attend(_weights(_scale(scores, cfg), cfg, mask_NxN), values_BxHxNxD, h_BxNxD, cfg)


def _last_query_layer(layer: LayerParams, h_BxNxD, cfg, mask_NxN):
    """A general last layer for the last query only, ``(B, D)``."""
    a = layer.attn
    n = h_BxNxD.shape[1]
    h_last_BxD = h_BxNxD[:, -1]
    if cfg.qk_dim is None:
        q_BxHxD = jnp.einsum("hed,bd->bhe", a.w_qk, h_last_BxD)
        scores = jnp.einsum("bhd,bjd->bhj", q_BxHxD, h_BxNxD)
    else:
        q = jnp.einsum("hkd,bd->bhk", a.w_q, h_last_BxD)
        k = jnp.einsum("hkd,bnd->bhnk", a.w_k, h_BxNxD)
        scores = jnp.einsum("bhk,bhjk->bhj", q, k)
    row = None if mask_NxN is None else mask_NxN[n - 1 :]
    weights_BxHxN = _weights(_scale(scores, cfg)[:, :, None], cfg, row)[:, :, 0]
    return _weighted_values(a.w_v, weights_BxHxN, h_BxNxD, cfg)


def _weighted_values(w_v_HxDxD, weights_BxHxN, h_BxNxD, cfg):
    """``h_{n-1} + combine_h W_V[h] (sum_j w_hj h_j)``: one ``D x D`` product per example."""
    mixed_BxHxD = jnp.einsum("bhj,bjd->bhd", weights_BxHxN, h_BxNxD)
    out_BxHxD = jnp.einsum("hed,bhd->bhe", w_v_HxDxD, mixed_BxHxD)
    return h_BxNxD[:, -1] + _combine(out_BxHxD, cfg, axis=1)
