"""The first layer as what it is: table lookups instead of matmuls (the verifier's fast path).

In a first layer the residual stream is an embedding (Chen & Zou 2024, eq. 3): row ``j`` is
``h_j = e(x_j, j)``, a function of the token and its position only, so every linear map of it is
a column lookup. At the last query (the only one Props. 7-10 and a one-layer classifier read):

- the score of key ``j`` for head ``h`` is ``s(x_{n-1}, x_j, j)`` -- the query ``W_QK x_{n-1}``
  (or ``W_Q x_{n-1}``, RoPE-rotated) is shared by every sequence with the same last token, so the
  whole score is a ``V x V x H x N`` table per model (ALiBi, RoPE and a token-wise ``norm1`` before
  attention included, they depend on ``(x_j, j)`` only) and a sequence's scores are a gather;
- the value ``W_V^h x_j`` is a ``V x N x H x D`` table, and with the classifier folded in
  (``w_o W_V^h``, and ``1/H`` for ``head_mean``) a ``V x N x H x C`` one.

Per sequence the work drops from ``O(H D^2 + H N D)`` (the general last-query path,
``outputs._last_query_layer``) to ``O(H N Y)`` gathered multiply-adds; the tables cost
``O(V^2 (H D^2 + H N D) + V N H D Y)`` once per model and run, not per sequence. The tables are
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

from typing import NamedTuple

import jax
import jax.numpy as jnp

from transformer_theory.core import attention, norms
from transformer_theory.core.forward import embed, forward_trace
from transformer_theory.core.layers import attention_scores, mlp
from transformer_theory.params import ModelConfig, ModelParams


def lookup_applies(config: ModelConfig) -> bool:
    """Whether the first layer's stream is a pure ``(token, position)`` lookup (else: general
    path)."""
    return config.positional != "ngram_window"


def folds_classifier(config: ModelConfig) -> bool:
    """Whether the logits are linear in the first layer's attention output (one layer, nothing
    after attention but the classifier), so ``w_o`` folds into the value table."""
    return config.depth == 1 and config.mlp_hidden is None and config.final_norm is None


class FirstLayerTables(NamedTuple):
    """One model's (or, with a leading ``M`` axis, a batch's) first-layer tables.

    Attributes:
      scores_VxVxHxN: ``[l, v, h, j]`` = head ``h``'s score of key ``(v, j)`` for the last token
        ``l`` (ALiBi and scaling included); column ``j = n-1`` holds the key ``(l, n-1)`` itself.
      base_VxY: the last position's own stream ``h_{n-1} = e(l, n-1)`` (or ``w_o h_{n-1}``).
      values_VxNxHxY: ``W_V^h x(v, j)`` (times ``1/H`` for ``head_mean``; times ``w_o`` when
        folded).
    """

    scores_VxVxHxN: jax.Array
    base_VxY: jax.Array
    values_VxNxHxY: jax.Array


def tables_one(params: ModelParams, fold: bool) -> FirstLayerTables:
    """The tables of one model; ``fold`` multiplies the classifier into them (see
    :func:`folds_classifier`)."""
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
    s_VxVxHxN = jax.vmap(lambda last: jax.vmap(lambda v: scores(last, v))(idx))(idx)
    values_VxNxHxD = jnp.einsum("hed,vnd->vnhe", layer.attn.w_v, x_VxNxD)
    if cfg.head_mean:
        values_VxNxHxD = values_VxNxHxD / len(layer.attn.w_v)
    base_VxD = h_VxNxD[:, n - 1]
    if fold:
        return FirstLayerTables(
            s_VxVxHxN,
            base_VxD @ params.w_o.T,
            jnp.einsum("vnhd,cd->vnhc", values_VxNxHxD, params.w_o),
        )
    return FirstLayerTables(s_VxVxHxN, base_VxD, values_VxNxHxD)


@jax.jit
def _tables_fold(params_M):
    return jax.vmap(lambda p: tables_one(p, True))(params_M)


@jax.jit
def _tables_plain(params_M):
    return jax.vmap(lambda p: tables_one(p, False))(params_M)


def first_layer_tables(params_M: ModelParams, fold: bool) -> FirstLayerTables:
    """:func:`tables_one` for a batch of models (leading axis ``M``), jit-compiled."""
    return _tables_fold(params_M) if fold else _tables_plain(params_M)


def lookup_one(tables: FirstLayerTables, tokens_N: jax.Array, kind: str):
    """``(y_Y, z_H)``: the looked-up stream (or logits) and the softmax normalizers of one
    sequence."""
    n = tokens_N.shape[0]
    pos_N = jnp.arange(n)
    s_NxH = tables.scores_VxVxHxN[tokens_N[-1], tokens_N, :, pos_N]
    w_HxN = attention.attention_weights(s_NxH.T, kind)
    z_H = jnp.sum(jnp.exp(s_NxH), axis=0)  # softmax_normalizer over all keys (no mask)
    y = tables.base_VxY[tokens_N[-1]] + jnp.einsum(
        "hn,nhy->y", w_HxN, tables.values_VxNxHxY[tokens_N, pos_N]
    )
    return y, z_H


def finish_first_layer(layer, z_D: jax.Array, cfg: ModelConfig) -> jax.Array:
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


def lookup_targets_one(params: ModelParams, tables: FirstLayerTables, tokens_N, target: str):
    """``(t_Y, z_H)`` of one model and sequence from its tables; ``target`` as in
    ``set_residuals`` (the tables must be folded exactly when ``target == "logits"`` and
    :func:`folds_classifier`)."""
    cfg = params.config
    y, z_H = lookup_one(tables, tokens_N, cfg.attention)
    if target == "logits" and folds_classifier(cfg):
        return y, z_H
    stream1 = finish_first_layer(params.layers[0], y, cfg)
    if target == "stream1":
        return stream1, z_H
    if cfg.depth == 1:
        return classify_last(params, stream1), z_H
    return forward_trace(params, tokens_N).logits_C, z_H
