"""What the analyses read from a model: every head's attention maps, queries, keys and values.

Two model formats, one function pair each:

- Chen & Zou 2024's attention-only model (:class:`~transformer_theory.params.ModelParams`):
  :func:`depth_maps`, :func:`depth_qkv` -- the score of query ``i`` for key ``j`` is
  ``h_j^T W_QK h_i`` (:func:`transformer_theory.core.layers.attention_scores`), i.e. query
  ``W_QK h_i`` and key ``h_j``, or ``(W_Q h_i) . (W_K h_j)`` when factored;
- Conti 2024's encoder-decoder (:class:`~transformer_theory.core.encdec.Seq2SeqParams`):
  :func:`seq2seq_maps`, :func:`seq2seq_qkv` (encoder self-attention: the bidirectional attention
  the efficient variants replace).

Maps come as ``(attention, layer, maps_BxHxQxK)`` triples, the input of
:func:`transformer_theory.papers.conti2024.classify_model`; queries/keys/values as
``(attention, layer, q_BxHxNxE, k_BxHxNxE, v_BxHxNxD)``, scaled so that
``softmax(q k^T / sqrt(E))`` is the model's own softmax of its scores.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.core import encdec, norms
from transformer_theory.core.forward import forward_trace
from transformer_theory.nn.encdec import attention_maps
from transformer_theory.params import ModelParams


def depth_maps(params: ModelParams, tokens_BxN: ArrayLike) -> list[tuple[str, int, np.ndarray]]:
    """Every layer's attention weights on ``tokens_BxN``: ``[("self", layer, maps_BxHxNxN)]``
    (ReLU weights are not normalized; the head analysis is scale-free)."""
    _validate.check_ndim("tokens_BxN", tokens_BxN, 2)
    trace = jax.jit(jax.vmap(lambda t: forward_trace(params, t).attention))(jnp.asarray(tokens_BxN))
    return [("self", layer, np.asarray(w)) for layer, w in enumerate(trace)]


def seq2seq_maps(
    params: encdec.Seq2SeqParams,
    src_BxN: ArrayLike,
    tgt_in_BxT: ArrayLike,
    norm: str = "layernorm_sigma",
) -> list[tuple[str, int, np.ndarray]]:
    """Encoder self-, decoder self- and cross-attention maps of every layer, for sentence pairs
    (``tgt_in_BxT`` is the decoder's input, ``<bos>`` first)."""
    _validate.check_ndim("src_BxN", src_BxN, 2)
    _validate.check_ndim("tgt_in_BxT", tgt_in_BxT, 2)
    maps = jax.jit(jax.vmap(lambda s, t: attention_maps(params, s, t, norm=norm)))(
        jnp.asarray(src_BxN), jnp.asarray(tgt_in_BxT)
    )
    out = []
    for attention in ("encoder", "decoder", "cross"):
        m = np.asarray(maps[attention])  # (B, L, H, Q, K)
        out += [(attention, layer, m[:, layer]) for layer in range(m.shape[1])]
    return out


def depth_qkv(params: ModelParams, tokens_BxN: ArrayLike) -> list[tuple]:
    """Queries, keys and values of every head of a Chen & Zou 2024 model on ``tokens_BxN``.

    The query of position ``i`` is ``W_QK h_i`` (key ``h_j``) or ``W_Q h_i`` (key ``W_K h_j``),
    multiplied by ``sqrt(E)`` (and by ``1 / sqrt(E)`` when the model scales its scores) so that
    ``q . k / sqrt(E)`` is the model's score; values are ``W_V h_j``. ReLU models are read the
    same way: the comparison is then with softmax attention on the model's scores.
    """
    _validate.check_ndim("tokens_BxN", tokens_BxN, 2)
    cfg = params.config
    if cfg.relative is not None:
        raise ValueError(
            f"params: relative positions ({cfg.relative!r}) add to the scores outside q . k; "
            "only models without them are read"
        )
    streams = jax.jit(jax.vmap(lambda t: forward_trace(params, t).streams_LxNxD))(
        jnp.asarray(tokens_BxN)
    )
    out = []
    for layer, lp in enumerate(params.layers):
        h = streams[:, layer]  # the stream entering the layer
        if lp.norm1 is not None:
            h = norms.apply_norm(cfg.norm1, h, lp.norm1.scale, lp.norm1.bias, cfg.norm_eps)
        a = lp.attn
        if cfg.qk_dim is None:
            q = jnp.einsum("bnd,hed->bhne", h, a.w_qk)
            k = jnp.broadcast_to(h[:, None], q.shape)
        else:
            q = jnp.einsum("bnd,hed->bhne", h, a.w_q)
            k = jnp.einsum("bnd,hed->bhne", h, a.w_k)
        e = q.shape[-1]
        factor = 1.0 if cfg.scale_scores else jnp.sqrt(jnp.asarray(e, q.dtype))
        v = jnp.einsum("bnd,hed->bhne", h, a.w_v)
        out.append(("self", layer, np.asarray(q * factor), np.asarray(k), np.asarray(v)))
    return out


def seq2seq_qkv(
    params: encdec.Seq2SeqParams, src_BxN: ArrayLike, norm: str = "layernorm_sigma"
) -> list[tuple]:
    """Queries, keys and values of every encoder self-attention head on ``src_BxN`` (Conti 2024,
    §1.2.2: ``Q^h = X W_{h,q}`` etc., already scaled by ``1 / sqrt(k)`` inside the softmax)."""
    _validate.check_ndim("src_BxN", src_BxN, 2)

    def one(src):
        x = encdec.seq2seq_embed(params.embed, src)
        per_layer = []
        for b in params.encoder:
            per_layer.append(
                tuple(jnp.einsum("nd,hdk->hnk", x, w) for w in (b.attn.w_q, b.attn.w_k, b.attn.w_v))
            )
            x, _ = encdec.encoder_block(b, x, norm=norm)
        return per_layer

    per_layer = jax.jit(jax.vmap(one))(jnp.asarray(src_BxN))
    return [
        ("encoder", layer, *(np.asarray(t) for t in qkv)) for layer, qkv in enumerate(per_layer)
    ]
