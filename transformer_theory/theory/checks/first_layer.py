"""The first layer as what it is: table lookups instead of matmuls (the verifier's fast path).

In a first layer the residual stream is an embedding (Chen & Zou 2024, eq. 3): row ``j`` is
``h_j = e(x_j, j)``, a function of the token and its position only, so every linear map of it is
a column lookup. At the last query (the only one Props. 7-10 and a one-layer classifier read):

- the score of key ``j`` for head ``h`` is ``s(x_{n-1}, x_j, j)`` -- the query ``W_QK x_{n-1}``
  (or ``W_Q x_{n-1}``, RoPE-rotated) is shared by every sequence of a last-token group, so the
  score is a ``G x V x H x N`` table per model for the ``G`` last tokens present (ALiBi, RoPE and
  a token-wise ``norm1`` before attention included, they depend on ``(x_j, j)`` only) and a
  sequence's scores are a gather;
- the value ``W_V^h x_j`` is a ``V x N x H x D`` table, and with the classifier folded in
  (``w_o W_V^h``, and ``1/H`` for ``head_mean``) a ``V x N x H x C`` one.

For ReLU and softmax the weight of a key is ``phi(s)`` (softmax: over the head's ``Z``), so the
whole contribution ``phi(s) W_V^h x(v, j)`` of a key is ONE table entry (Chen & Zou 2024, §11's
argument as a data structure): per sequence the work drops from ``O(H D^2 + H N D)`` (the general
last-query path, ``outputs._last_query_layer``) to a sum of ``N`` gathered rows of width ``Y``
(ReLU; ``H Y`` for softmax); other kinds (hard, sparsemax) gather scores and values. The tables
cost ``O(G V (H D^2 + H N D) + V N H D Y)`` once per model and run, not per sequence. They are
built by the SAME ``core`` functions as the general path (``embed``, ``apply_norm``,
``attention_scores``) evaluated on the sequences ``(v, ..., v, l)``, so the two paths agree to
rounding; ``tests/theory/test_first_layer.py`` pins them on every family.

Families whose first layer is NOT a lookup fall back to the general path (:func:`lookup_applies`):
the ``"ngram_window"`` positional code (its ``p_j`` reads the neighbouring tokens). A norm before
attention does not fall back: ``norm1`` is token-wise, so the normalized row is still a function
of ``(x_j, j)``. Whatever follows the first attention (an MLP, a final norm) is applied to the
looked-up stream per sequence; a second layer mixes positions, so deeper models take their logits
from ``core.forward`` (their first-layer stream and ``Z`` still come from the tables).

Shape letters: :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory.core import attention, norms
from transformer_theory.core.forward import embed, forward_trace
from transformer_theory.core.layers import attention_scores, mlp
from transformer_theory.params import LayerParams, ModelConfig, ModelParams


def lookup_applies(config: ModelConfig) -> bool:
    """Whether the first layer's stream is a pure ``(token, position)`` lookup (else: general
    path)."""
    return config.positional != "ngram_window"


def folds_classifier(config: ModelConfig) -> bool:
    """Whether the logits are linear in the first layer's attention output (one layer, nothing
    after attention but the classifier), so ``w_o`` folds into the value table."""
    return config.depth == 1 and config.mlp_hidden is None and config.final_norm is None


_IN_BOUNDS = "promise_in_bounds"  # indices are token ids checked on the host: no clamping pass
ELEMENTWISE = ("relu", "softmax")
"""Attention kinds whose weight of key ``j`` is ``phi(s_j)`` (softmax: divided by the head's
``Z``): their whole per-key contribution ``phi(s) W_V^h x(v, j)`` is one table entry."""


class FirstLayerTables(NamedTuple):
    """One model's (or, with a leading ``M`` axis, a batch's) first-layer tables; ``P = N V``
    indexes key ``(v, j)`` as ``j V + v``.

    Attributes:
      lasts_G: the last tokens the tables cover (sorted, distinct).
      base_GxY: the last position's own stream ``h_{n-1} = e(l, n-1)`` (or ``w_o h_{n-1}``).
      scores_GxPxH: head ``h``'s score of key ``(v, j)`` for the last token ``lasts_G[g]`` (ALiBi,
        RoPE and scaling included); the key ``(l, n-1)`` is the last token itself.
      values_PxHxY: ``W_V^h x(v, j)`` (times ``1/H`` for ``head_mean``; times ``w_o`` when
        folded).
      contrib_GxPxHxY: for :data:`ELEMENTWISE` kinds, ``phi(s) W_V^h x(v, j)`` (``phi`` = ReLU,
        summed over heads into one slot, or ``exp`` per head): a sequence's attention output is
        then a sum of ``N`` gathered rows (Chen & Zou 2024, §11's argument as a data structure).
        None for the other kinds (they gather scores and values separately).
    """

    lasts_G: jax.Array
    base_GxY: jax.Array
    scores_GxPxH: jax.Array
    values_PxHxY: jax.Array
    contrib_GxPxHxY: jax.Array | None


def tables_one(params: ModelParams, lasts_G: jax.Array, fold: bool) -> FirstLayerTables:
    """The tables of one model for the last tokens ``lasts_G`` (sorted, distinct); ``fold``
    multiplies the classifier into them (see :func:`folds_classifier`)."""
    cfg = params.config
    V, n = cfg.vocab_size, cfg.seq_len
    layer = params.layers[0]
    h_VxNxD = jax.vmap(lambda v: embed(params, jnp.full((n,), v, jnp.int32)))(jnp.arange(V))
    x_VxNxD = h_VxNxD
    if layer.norm1 is not None:
        x_VxNxD = jax.vmap(
            lambda x: norms.apply_norm(
                cfg.norm1, x, layer.norm1.scale, layer.norm1.bias, cfg.norm_eps
            )
        )(h_VxNxD)

    def scores(last, v):  # the general scoring on the sequence (v, ..., v, last)
        x_NxD = x_VxNxD[v].at[n - 1].set(x_VxNxD[last, n - 1])
        return attention_scores(layer, x_NxD, cfg, jnp.asarray([n - 1]))[:, 0, :]

    idx = jnp.arange(V)
    s_GxVxHxN = jax.vmap(lambda last: jax.vmap(lambda v: scores(last, v))(idx))(lasts_G)
    s_GxPxH = jnp.transpose(s_GxVxHxN, (0, 3, 1, 2)).reshape(len(lasts_G), n * V, -1)
    w_v = layer.attn.w_v / len(layer.attn.w_v) if cfg.head_mean else layer.attn.w_v
    if fold:  # w_o W_V^h, once per model
        w_v = jnp.einsum("cd,hde->hce", params.w_o, w_v)
    base_GxD = h_VxNxD[lasts_G, n - 1]
    base_GxY = base_GxD @ params.w_o.T if fold else base_GxD
    x_PxD = jnp.swapaxes(x_VxNxD, 0, 1).reshape(n * V, -1)
    values_PxHxY = jnp.einsum("hye,pe->phy", w_v, x_PxD)
    contrib = None
    if cfg.attention == "relu":
        contrib = jnp.einsum("gph,phy->gpy", jnp.maximum(s_GxPxH, 0.0), values_PxHxY)[:, :, None]
    elif cfg.attention == "softmax":
        contrib = jnp.exp(s_GxPxH)[..., None] * values_PxHxY[None]
    return FirstLayerTables(lasts_G, base_GxY, s_GxPxH, values_PxHxY, contrib)


@functools.partial(jax.jit, static_argnames=("fold",))
def _tables_batch(params_M, lasts_G, fold: bool):
    return jax.vmap(lambda p: tables_one(p, lasts_G, fold))(params_M)


def first_layer_tables(
    params_M: ModelParams, lasts_G: ArrayLike | Sequence[int], fold: bool
) -> FirstLayerTables:
    """:func:`tables_one` for a batch of models (leading axis ``M``), jit-compiled; ``lasts_G``:
    the last tokens to cover (made sorted and distinct here)."""
    lasts_G = np.unique(np.asarray(lasts_G, np.int32))
    return _tables_batch(params_M, jnp.asarray(lasts_G), fold)


def lookup(
    tables: FirstLayerTables, tokens_WxN: jax.Array, kind: str, need_z: bool = True
) -> tuple[jax.Array, jax.Array | None]:
    """``(y_WxY, z_WxH)``: the looked-up stream (or logits) and the softmax normalizers of a
    chunk of sequences (one model's tables; every last token must be in ``tables.lasts_G``).
    ``z_WxH`` is None when not ``need_z`` and the kind does not need it."""
    W, n = tokens_WxN.shape
    V = tables.values_PxHxY.shape[0] // n
    key_WxN = tokens_WxN + V * jnp.arange(n)[None, :]  # P index of every key
    g_W = jnp.searchsorted(tables.lasts_G, tokens_WxN[:, -1])  # last-token groups
    y_WxY = tables.base_GxY[g_W]
    z_WxH = None
    if need_z or kind != "relu":
        s_WxNxH = tables.scores_GxPxH.at[g_W[:, None], key_WxN].get(mode=_IN_BOUNDS)
        z_WxH = jnp.sum(jnp.exp(s_WxNxH), axis=1)  # softmax_normalizer over all keys (no mask)
    if tables.contrib_GxPxHxY is not None:
        sums_WxHxY = jnp.sum(
            tables.contrib_GxPxHxY.at[g_W[:, None], key_WxN].get(mode=_IN_BOUNDS), axis=1
        )
        if kind == "softmax":
            sums_WxHxY = sums_WxHxY / z_WxH[..., None]
        return y_WxY + jnp.sum(sums_WxHxY, axis=1), z_WxH
    w_WxHxN = jax.vmap(lambda s: attention.attention_weights(s.T, kind))(s_WxNxH)
    gathered_WxNxHxY = tables.values_PxHxY.at[key_WxN].get(mode=_IN_BOUNDS)
    return y_WxY + jnp.einsum("whn,wnhy->wy", w_WxHxN, gathered_WxNxHxY), z_WxH


def finish_first_layer(layer: LayerParams, z_D: jax.Array, cfg: ModelConfig) -> jax.Array:
    """The token-wise rest of a first layer after attention: the MLP (with its ``norm2``)."""
    if layer.mlp is None:
        return z_D
    u = z_D
    if layer.norm2 is not None:
        u = norms.apply_norm(cfg.norm2, u, layer.norm2.scale, layer.norm2.bias, cfg.norm_eps)
    return z_D + mlp(layer.mlp, u[None, :], cfg.mlp_activation)[0]


def classify_last(params: ModelParams, last_D: jax.Array) -> jax.Array:
    """A one-layer model's logits from its last-position stream (final norm, then ``w_o``)."""
    cfg = params.config
    if params.final_norm is not None:
        last_D = norms.apply_norm(
            cfg.final_norm, last_D, params.final_norm.scale, params.final_norm.bias, cfg.norm_eps
        )
    return params.w_o @ last_D


def lookup_targets(
    params: ModelParams,
    tables: FirstLayerTables,
    tokens_WxN: jax.Array,
    target: str,
    need_z: bool = True,
) -> tuple[jax.Array, jax.Array | None]:
    """``(t_WxY, z_WxH)`` of one model on a chunk from its tables; ``target`` as in
    ``set_residuals`` (the tables must be folded exactly when ``target == "logits"`` and
    :func:`folds_classifier`)."""
    cfg = params.config
    y, z_WxH = lookup(tables, tokens_WxN, cfg.attention, need_z)
    if target == "logits" and folds_classifier(cfg):
        return y, z_WxH
    stream1 = jax.vmap(lambda u: finish_first_layer(params.layers[0], u, cfg))(y)
    if target == "stream1":
        return stream1, z_WxH
    if cfg.depth == 1:
        return jax.vmap(lambda u: classify_last(params, u))(stream1), z_WxH
    return jax.vmap(lambda t: forward_trace(params, t).logits_C)(tokens_WxN), z_WxH
