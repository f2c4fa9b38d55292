"""The training forward pass without the work a classifier does not need.

:func:`batch_logits` returns exactly what ``jax.vmap(core.forward)`` returns (Chen & Zou 2024,
eq. 1-3: ``o = W_O h^(L)_{n-1}``), for a batch, computed in fewer operations:

- **First layer as lookups and gathers.** Its stream is an embedding (eq. 3): ``x_j = e_{t_j} +
  p_j`` with a token one-hot ``e_{t_j}`` and a token-independent positional block ``p_j`` (padding
  included). Every ``W x_j`` is a row gather of ``W^T`` plus ``(W p_j)``, computed once per step
  for the ``N`` positions, and the scores ``x_i^T W_QK^T x_j`` are gathers of ``B N^2`` entries of
  ``W_QK`` and of its products with the positional block (:meth:`_Embedded.bilinear`): the
  ``B N D x D`` products of the dense path become ``B N D`` and ``B N^2`` gathers.
- **Last layer for the last query only.** The classifier reads ``h^(L)_{n-1}`` alone, so the last
  layer scores one query, ``s_j = h_j . (W_QK h_{n-1})``, and applies ``W_V`` once to the weighted
  sum: ``sum_j w_j W_V h_j = W_V (sum_j w_j h_j)``, ``D x D`` per example instead of ``N D x D``.
- **The layer before the last without its values.** The last layer reads the stream before it,
  ``h_j = P_j + sum_m A_jm W_V P_m``, only through ``h_{n-1}``, the scores ``h_j . q`` and one
  weighted sum, all of which are matrix-vector products with the stream ``P`` before that layer
  (:func:`_last_two_layers`): the layer before the last computes its attention weights and
  nothing else -- no value projection, no ``(B, N, D)`` output (10% off the depth-3 and depth-4
  steps).
- **Second layer through the first.** The first layer's output is the embedding plus
  attention-weighted ``W_V x_j``, so the second layer's ``W h^(1)_i`` is a lookup of ``W`` plus an
  attention-weighted lookup of ``W W_V`` (:class:`_Through`): ``B N^2 D`` work instead of
  ``B N D^2`` (``N = 20 < D = 228`` at the paper's contextual size). Reading a third layer through
  the second as well (four lookups, three mixes) was measured slower on a CPU (57.7 vs 41.9 ms
  per reasoning depth-4 step) and is not done.
- Other all-query layers are the general layer (:func:`transformer_theory.core.attention_layer`)
  written for the batch: every ``W h`` is one ``(B N, D) x (D, D)`` product.
- Heads are Python lists of 3-D arrays, not a head axis: with ``(B, H, N, D)`` arrays XLA CPU
  spent about a third of the step transposing blocks between the batched products.

On a CPU these steps are bound by memory traffic (every ``(B, N, D)`` intermediate is megabytes);
the train step therefore also splits the batch into cache-sized microbatches
(:func:`transformer_theory.train.loop.auto_microbatches`).

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
    x_BxNxD = pos_NxD[None] + jax.nn.one_hot(tokens_BxN, cfg.width, dtype=dtype)
    embedded = _Embedded(tokens_BxN, pos_NxD, v)
    mask = masks.causal_mask(n) if cfg.causal else None
    layers = params.layers
    if len(layers) == 1:
        last = _last_query_layer(layers[0], embedded, x_BxNxD, cfg, mask)
    else:
        h_BxNxD, proj = x_BxNxD, embedded
        for i, layer in enumerate(layers[:-2]):
            h_BxNxD, a = _all_query_layer(layer, proj, h_BxNxD, cfg, mask)
            proj = _Through(proj, a, layer.attn.w_v, cfg) if i < THROUGH_LAYERS else _Dense(h_BxNxD)
        # The layer before the last contributes its attention weights only (_last_two_layers).
        a = _layer_weights(layers[-2], proj, h_BxNxD, cfg, mask)
        last = _last_two_layers(layers[-1], layers[-2].attn.w_v, a, h_BxNxD, cfg, mask)
    if params.final_norm is not None:
        fn = params.final_norm
        last = norms.apply_norm(cfg.final_norm, last, fn.scale, fn.bias, cfg.norm_eps)
    return last @ params.w_o.T


# All-query layers after the first read their ``W h`` through this many earlier layers (the
# terms double with each); later ones multiply the stream. 1 measured fastest of 0, 1, 2.
THROUGH_LAYERS = 1


# Projectors: ``proj(W)`` is ``W h_i`` for every position, ``(B, N, R)``, for one head's ``W``
# ``(R, D)``; :class:`_Embedded` also gives ``W x_{n-1}`` (``last``) for a one-layer model.


class _Dense:
    """The stream itself: ``W h`` is one ``(B N, D) x (D, R)`` product."""

    def __init__(self, h_BxNxD):
        self.h = h_BxNxD

    def __call__(self, w_RxD):
        return jnp.einsum("bnd,rd->bnr", self.h, w_RxD)


class _Embedded:
    """The embedded stream (eq. 3) ``x_j = e_{t_j} + p_j``: ``W x_j = W[:, t_j] + W p_j``, a row
    gather of ``W^T`` plus ``W p_j`` once per step for the ``N`` positions."""

    def __init__(self, tokens_BxN, pos_NxD, vocab_size: int):
        self.tokens, self.pos, self.v = tokens_BxN, pos_NxD, vocab_size

    def _table(self, w_RxD):
        # Materialized: fused into the gather, the transpose made every gathered element a
        # strided read of W (3 ms instead of 0.7 ms per lookup at the paper's contextual size).
        return jax.lax.optimization_barrier(w_RxD[:, : self.v].T)

    def __call__(self, w_RxD):
        return self._table(w_RxD)[self.tokens] + (self.pos @ w_RxD.T)[None]

    def last(self, w_RxD):
        return self._table(w_RxD)[self.tokens[:, -1]] + (w_RxD @ self.pos[-1])[None]

    def bilinear(self, g_DxD):
        """``x_i^T G x_j`` for every pair, ``(B, N, N)``, from gathers of ``B N^2`` entries:
        ``G[t_i, t_j] + (G p_j)[t_i] + (G^T p_i)[t_j] + p_i^T G p_j`` -- no ``(B, N, D)``
        array."""
        v, t = self.v, self.tokens
        tok_pos_VxN = g_DxD[:v] @ self.pos.T
        pos_tok_VxN = (self.pos @ g_DxD[:, :v]).T
        pos_pos_NxN = self.pos @ g_DxD @ self.pos.T
        return (
            g_DxD[:v, :v][t[:, :, None], t[:, None, :]]
            + tok_pos_VxN[t]
            + jnp.swapaxes(pos_tok_VxN[t], 1, 2)
            + pos_pos_NxN[None]
        )


class _Through:
    """``W h^(l)_i`` for every position, read through the layer that made ``h^(l)``.

    That layer's output is ``h^(l)_i = h^(l-1)_i + combine_g sum_j a^g_ij W_V^g h^(l-1)_j``
    (eq. 2), so for any ``W``: ``W h^(l)_i = W h^(l-1)_i + combine_g sum_j a^g_ij (W W_V^g)
    h^(l-1)_j`` -- two projections of the previous stream (of ``W`` and of ``W W_V^g``, a ``D^3``
    product once per step) and a mix over ``j`` (``B N^2 R``), instead of a ``B N D R`` product.
    Through the first layer the projections are lookups (:class:`_Embedded`).
    """

    def __init__(self, inner, a_layer, w_v_GxDxD, cfg):
        self.inner, self.a, self.w_v, self.cfg = inner, a_layer, w_v_GxDxD, cfg

    def __call__(self, w_RxD):
        mixed = [a @ self.inner(w_RxD @ w_v) for a, w_v in zip(self.a, self.w_v)]
        return self.inner(w_RxD) + _combine(mixed, self.cfg)


def _scale(scores, cfg: ModelConfig):
    if not cfg.scale_scores:
        return scores
    key_dim = cfg.width if cfg.qk_dim is None else cfg.qk_dim
    return scores / jnp.sqrt(jnp.asarray(key_dim, scores.dtype))


def _combine(heads_out: list, cfg: ModelConfig):
    total = sum(heads_out[1:], heads_out[0])
    return total / len(heads_out) if cfg.head_mean else total


def _weights(scores_BxQxN, cfg: ModelConfig, mask_QxN):
    kind = cfg.attention
    return jax.vmap(lambda s: attention.attention_weights(s, kind, mask_QxN))(scores_BxQxN)


def _layer_weights(layer: LayerParams, proj, h_BxNxD, cfg, mask_NxN) -> list:
    """Each head's attention weights ``(B, N, N)`` for every query: scores ``s_ij = (W_QK h_i) .
    h_j``, or ``(W_Q h_i) . (W_K h_j)``, with ``proj`` computing ``W h_i`` (:class:`_Embedded`
    for the first layer, :class:`_Through` for the second, :class:`_Dense` after that); on the
    embedded stream they are gathers (:meth:`_Embedded.bilinear`)."""
    a = layer.attn
    weights = []
    for k in range(a.w_v.shape[0]):
        if isinstance(proj, _Embedded):  # (W_QK x_i) . x_j = x_i^T W_QK^T x_j
            qk = a.w_qk[k].T if cfg.qk_dim is None else a.w_q[k].T @ a.w_k[k]
            scores = proj.bilinear(qk)
        elif cfg.qk_dim is None:
            scores = jnp.einsum("bie,bje->bij", proj(a.w_qk[k]), h_BxNxD)
        else:
            scores = jnp.einsum("bie,bje->bij", proj(a.w_q[k]), proj(a.w_k[k]))
        weights.append(_weights(_scale(scores, cfg), cfg, mask_NxN))
    return weights


def _all_query_layer(layer: LayerParams, proj, h_BxNxD, cfg, mask_NxN):
    """Eq. 2 for every query: the stream ``(B, N, D)`` and each head's weights ``(B, N, N)``."""
    weights = _layer_weights(layer, proj, h_BxNxD, cfg, mask_NxN)
    outs = [w @ proj(w_v) for w, w_v in zip(weights, layer.attn.w_v)]
    return h_BxNxD + _combine(outs, cfg), weights


def _last_two_layers(layer: LayerParams, w_u_GxDxD, a_prev: list, p_BxNxD, cfg, mask_NxN):
    """The last layer's last query, ``(B, D)``, from the stream ``P`` BEFORE the layer before it.

    That layer's output ``h_j = P_j + combine_g sum_m A^g_jm U_g P_m`` (eq. 2, weights ``A^g``,
    values ``U_g = W_V^g``) is never formed: the last layer reads it only through
    ``h_{n-1}``, the scores ``h_j . q = P_j . q + combine_g (A^g (P (U_g^T q)))_j`` and the
    weighted sum ``sum_j w_j h_j = w P + combine_g U_g ((w A^g) P)``, which are matrix-vector
    products with ``P`` -- no ``(B N, D) x (D, D)`` product for the layer's values and no
    ``(B, N, D)`` output.
    """
    a = layer.attn
    n = p_BxNxD.shape[1]
    row = None if mask_NxN is None else mask_NxN[n - 1 :]

    def through(vec_BxD):  # P_j . vec + combine_g (A^g (P (U_g^T vec)))_j, (B, N)
        direct = jnp.einsum("bjd,bd->bj", p_BxNxD, vec_BxD)
        mixed = [
            jnp.einsum("bjm,bm->bj", a_g, jnp.einsum("bmd,bd->bm", p_BxNxD, vec_BxD @ u))
            for a_g, u in zip(a_prev, w_u_GxDxD)
        ]
        return direct + _combine(mixed, cfg)

    def weighted_sum(w_BxN):  # sum_j w_j h_j, (B, D)
        direct = jnp.einsum("bj,bjd->bd", w_BxN, p_BxNxD)
        mixed = [
            jnp.einsum("bm,bmd->bd", jnp.einsum("bj,bjm->bm", w_BxN, a_g), p_BxNxD) @ u.T
            for a_g, u in zip(a_prev, w_u_GxDxD)
        ]
        return direct + _combine(mixed, cfg)

    last_BxN = jax.nn.one_hot(jnp.full(p_BxNxD.shape[:1], n - 1), n, dtype=p_BxNxD.dtype)
    h_last_BxD = weighted_sum(last_BxN)  # h_{n-1}
    outs = []
    for k in range(a.w_v.shape[0]):
        if cfg.qk_dim is None:
            q_BxD = h_last_BxD @ a.w_qk[k].T  # s_j = h_j . (W_QK h_{n-1})
        else:
            q_BxD = (h_last_BxD @ a.w_q[k].T) @ a.w_k[k]  # s_j = h_j . (W_K^T W_Q h_{n-1})
        w_BxN = _weights(_scale(through(q_BxD), cfg)[:, None], cfg, row)[:, 0]
        outs.append(weighted_sum(w_BxN) @ a.w_v[k].T)
    return h_last_BxD + _combine(outs, cfg)


def _last_query_layer(layer: LayerParams, proj: _Embedded, h_BxNxD, cfg, mask_NxN):
    """A one-layer model's last query, ``(B, D)``: ``h_{n-1} + combine_h W_V (sum_j w_hj h_j)``,
    one ``D x D`` product per example instead of ``N``."""
    a = layer.attn
    n = h_BxNxD.shape[1]
    row = None if mask_NxN is None else mask_NxN[n - 1 :]
    outs = []
    for k in range(a.w_v.shape[0]):
        if cfg.qk_dim is None:
            scores = jnp.einsum("be,bje->bj", proj.last(a.w_qk[k]), h_BxNxD)
        else:
            scores = jnp.einsum("be,bje->bj", proj.last(a.w_q[k]), proj(a.w_k[k]))
        w_BxN = _weights(_scale(scores, cfg)[:, None], cfg, row)[:, 0]
        outs.append(jnp.einsum("bj,bjd->bd", w_BxN, h_BxNxD) @ a.w_v[k].T)
    return h_BxNxD[:, -1] + _combine(outs, cfg)
