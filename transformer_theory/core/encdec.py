"""The Post-LN encoder and decoder blocks of Conti 2024 (§1.2.2, §1.2.4, §1.2.5), one sequence at a
time.

Shape letters as in :mod:`transformer_theory.glossary`: ``N`` source (encoder) positions, ``T``
target (decoder) positions, ``D`` model width ``d``, ``H`` heads, ``E`` head width ``k``, ``F``
feed-forward width ``m``.

Encoder block (Conti 2024, §1.2.2), row-major ``X: (N, D)``::

    u'_i = sum_h W_{c,h}^T sum_j alpha^h_ij V^h(x_j),   alpha^h_i = softmax_j(Q^h(x_i) . K^h(x_j) /
    sqrt(k))
    u_i  = LayerNorm(x_i + u'_i)                          (Post-LN: the norm comes after the
    residual)
    z_i  = LayerNorm(u_i + W_2^T ReLU(W_1^T u_i + b_1) + b_2)

with ``Q^h(x) = W_{h,q}^T x`` etc., ``W_{h,q}: (d, k)`` stored as ``w_q[h]`` so that ``Q = X @
w_q[h]``.
LayerNorm is Conti 2024, eq. 2, ``gamma (z - mu) / (sigma + eps) + beta`` with ``eps = 1e-6``
(``norm="layernorm"`` selects the ``sqrt(var + eps)`` form instead). Conti 2024 writes ``b_1, b_2 in
R``;
they are vectors of the hidden and model widths, as the shapes of ``W_1, W_2`` require.

Whole model: :class:`Seq2SeqParams`, :func:`seq2seq_logits` and :func:`greedy_decode` (token
embedding ``X W^E sqrt(d) + P`` with the sinusoidal ``P`` of eq. 1, output ``Y P``, argmax
decoding).

Decoder block (Conti 2024, §1.2.5): masked (causal, eq. 10) self-attention, then cross-attention
with
queries from the decoder and keys/values from the encoder output ``Z``, then the feed-forward, each
followed by residual + LayerNorm. Conti 2024 prints cross-attention as ``softmax(X Z^T / sqrt(k))
Z``
without projections; as in the encoder's multi-head form, the block applies ``W_q`` to ``X`` and
``W_k, W_v`` to ``Z``.
"""

from __future__ import annotations

from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

from transformer_theory import _validate
from transformer_theory.core import attention, masks, norms, positional
from transformer_theory.core.layers import mlp
from transformer_theory.params import MLPParams, NormParams

CONTI2024_EPS = 1e-6


@flax.struct.dataclass
class MultiHeadParams:
    """Conti's multi-head attention: ``w_q, w_k, w_v: (H, D, K)`` and the output ``w_c: (H, K,
    D)``."""

    w_q: jax.Array
    w_k: jax.Array
    w_v: jax.Array
    w_c: jax.Array


@flax.struct.dataclass
class EncoderBlockParams:
    """Self-attention, norm after it, feed-forward, norm after it."""

    attn: MultiHeadParams
    norm1: NormParams
    ffn: MLPParams
    norm2: NormParams


@flax.struct.dataclass
class DecoderBlockParams:
    """Masked self-attention, cross-attention and feed-forward, each followed by its norm."""

    self_attn: MultiHeadParams
    norm1: NormParams
    cross_attn: MultiHeadParams
    norm2: NormParams
    ffn: MLPParams
    norm3: NormParams


def _draw_normals(key: jax.Array, shapes: dict, dtype) -> dict:
    """Standard normals for several shapes from ONE draw (one PRNG kernel to compile, not one per
    shape)."""
    sizes = [int(np.prod(s)) for s in shapes.values()]
    flat = jax.random.normal(key, (sum(sizes),)).astype(dtype)
    out, start = {}, 0
    for (name, shape), size in zip(shapes.items(), sizes):
        out[name] = flat[start : start + size].reshape(shape)
        start += size
    return out


def _head_dim(width: int, num_heads: int, head_dim: int | None) -> int:
    _validate.check_positive("width", width)
    _validate.check_positive("num_heads", num_heads)
    if head_dim is None:
        if width % num_heads:
            raise ValueError(
                f"num_heads: must divide width = {width} when head_dim is not given, got "
                f"{num_heads}"
            )
        head_dim = width // num_heads
    _validate.check_positive("head_dim", head_dim)
    return head_dim


def _mha_from(z: dict, prefix: str, width: int, heads_x_dim: int) -> MultiHeadParams:
    # Entries N(0, 1/fan_in): keeps O(1) activations at any width.
    return MultiHeadParams(
        w_q=z[prefix + "q"] / jnp.sqrt(width),
        w_k=z[prefix + "k"] / jnp.sqrt(width),
        w_v=z[prefix + "v"] / jnp.sqrt(width),
        w_c=z[prefix + "c"] / jnp.sqrt(heads_x_dim),
    )


def _mha_shapes(prefix: str, width: int, num_heads: int, head_dim: int) -> dict:
    s = (num_heads, width, head_dim)
    return {
        prefix + "q": s,
        prefix + "k": s,
        prefix + "v": s,
        prefix + "c": (num_heads, head_dim, width),
    }


def _ffn_shapes(width: int, hidden: int) -> dict:
    _validate.check_positive("ffn_hidden", hidden)
    return {"w1": (hidden, width), "b1": (hidden,), "w2": (width, hidden), "b2": (width,)}


def _ffn_from(z: dict, width: int, hidden: int) -> MLPParams:
    # Small random biases (not zeros) so that tests see every parameter act.
    return MLPParams(
        w1=z["w1"] / jnp.sqrt(width),
        b1=0.1 * z["b1"],
        w2=z["w2"] / jnp.sqrt(hidden),
        b2=0.1 * z["b2"],
    )


def _norm_from(z: dict, name: str) -> NormParams:
    # Random gains near 1 and biases near 0 (not exactly 1/0) so that tests see them act.
    return NormParams(scale=1.0 + 0.1 * z[name + "_g"], bias=0.1 * z[name + "_b"])


def init_multi_head(
    key: jax.Array,
    width: int,
    num_heads: int,
    head_dim: int | None = None,
    *,
    dtype: DTypeLike = jnp.float32,
) -> MultiHeadParams:
    """Random ``MultiHeadParams``: entries ``N(0, 1/fan_in)``; ``head_dim`` defaults to ``width //
    num_heads``.

    Conti 2024 splits ``W_q: (d, d)`` into ``H = d / k`` column blocks (eq. 3), so the default needs
    ``num_heads`` to divide ``width``.
    """
    k = _head_dim(width, num_heads, head_dim)
    z = _draw_normals(key, _mha_shapes("", width, num_heads, k), dtype)
    return _mha_from(z, "", width, num_heads * k)


def init_encoder_block(
    key: jax.Array,
    width: int,
    num_heads: int,
    ffn_hidden: int,
    head_dim: int | None = None,
    *,
    dtype: DTypeLike = jnp.float32,
) -> EncoderBlockParams:
    """Random parameters of one Post-LN encoder block (Conti 2024, §1.2.2: d=512, k=64, m=2048,
    H=8)."""
    k = _head_dim(width, num_heads, head_dim)
    shapes = {**_mha_shapes("a", width, num_heads, k), **_ffn_shapes(width, ffn_hidden)}
    for nm in ("n1", "n2"):
        shapes.update({nm + "_g": (width,), nm + "_b": (width,)})
    z = _draw_normals(key, shapes, dtype)
    return EncoderBlockParams(
        attn=_mha_from(z, "a", width, num_heads * k),
        norm1=_norm_from(z, "n1"),
        ffn=_ffn_from(z, width, ffn_hidden),
        norm2=_norm_from(z, "n2"),
    )


def init_decoder_block(
    key: jax.Array,
    width: int,
    num_heads: int,
    ffn_hidden: int,
    head_dim: int | None = None,
    *,
    dtype: DTypeLike = jnp.float32,
) -> DecoderBlockParams:
    """Random parameters of one Post-LN decoder block (Conti 2024, §1.2.5)."""
    k = _head_dim(width, num_heads, head_dim)
    shapes = {
        **_mha_shapes("s", width, num_heads, k),
        **_mha_shapes("c", width, num_heads, k),
        **_ffn_shapes(width, ffn_hidden),
    }
    for nm in ("n1", "n2", "n3"):
        shapes.update({nm + "_g": (width,), nm + "_b": (width,)})
    z = _draw_normals(key, shapes, dtype)
    return DecoderBlockParams(
        self_attn=_mha_from(z, "s", width, num_heads * k),
        norm1=_norm_from(z, "n1"),
        cross_attn=_mha_from(z, "c", width, num_heads * k),
        norm2=_norm_from(z, "n2"),
        ffn=_ffn_from(z, width, ffn_hidden),
        norm3=_norm_from(z, "n3"),
    )


def multi_head_attention(
    p: MultiHeadParams,
    x_QxD: jax.Array,
    z_KxD: jax.Array | None = None,
    mask_QxK: jax.Array | None = None,
) -> tuple[jax.Array, jax.Array]:
    """``u'_i = sum_h W_{c,h}^T sum_j alpha^h_ij V^h(z_j)`` with scaled-softmax ``alpha`` (Conti
    2024, §1.2.2).

    Args:
      p: the head weights.
      x_QxD: the stream the queries come from.
      z_KxD: the stream keys and values come from; ``None`` = ``x_QxD`` (self-attention).
      mask_QxK: optional boolean mask (True = may attend).
    Returns:
      ``(out_QxD, weights_HxQxK)``.
    """
    z = x_QxD if z_KxD is None else z_KxD
    _validate.check_ndim("x_QxD", x_QxD, 2)
    _validate.check_ndim("z_KxD", z, 2)
    H, D, _ = p.w_q.shape
    for name, x in (("x_QxD", x_QxD), ("z_KxD", z)):
        _validate.check_float(name, x)
        if x.shape[1] != D:
            raise ValueError(
                f"{name}: expected width {D} (the heads' input width), got shape {x.shape}"
            )
    q = jnp.einsum("qd,hdk->hqk", x_QxD, p.w_q)
    k = jnp.einsum("nd,hdk->hnk", z, p.w_k)
    v = jnp.einsum("nd,hdk->hnk", z, p.w_v)
    heads, weights = jax.vmap(
        lambda qh, kh, vh: attention.dot_product_attention(qh, kh, vh, mask_QxK)
    )(q, k, v)
    return jnp.einsum("hqk,hkd->qd", heads, p.w_c), weights


def _norm(kind, x, n: NormParams, eps):
    return norms.apply_norm(kind, x, n.scale, n.bias, eps)


def encoder_block(
    p: EncoderBlockParams,
    x_NxD: jax.Array,
    mask_NxN: jax.Array | None = None,
    *,
    norm: str = "layernorm_sigma",
    eps: float = CONTI2024_EPS,
    activation: str = "relu",
) -> tuple[jax.Array, jax.Array]:
    """One Post-LN encoder block ``Z = f_theta(X)`` (Conti 2024, §1.2.2). Returns ``(z_NxD,
    weights_HxNxN)``."""
    _validate.check_choice("norm", norm, ("layernorm", "layernorm_sigma", "rmsnorm"))
    _validate.check_ndim("x_NxD", x_NxD, 2)
    if mask_NxN is not None:
        n = x_NxD.shape[0]
        _validate.check_mask("mask_NxN", mask_NxN, (n, n))
    attn, w = multi_head_attention(p.attn, x_NxD, None, mask_NxN)
    u = _norm(norm, x_NxD + attn, p.norm1, eps)
    z = _norm(norm, u + mlp(p.ffn, u, activation), p.norm2, eps)
    return z, w


def decoder_block(
    p: DecoderBlockParams,
    y_TxD: jax.Array,
    z_NxD: jax.Array,
    self_mask_TxT: jax.Array | None = None,
    cross_mask_TxN: jax.Array | None = None,
    *,
    norm: str = "layernorm_sigma",
    eps: float = CONTI2024_EPS,
    activation: str = "relu",
) -> tuple[jax.Array, tuple[jax.Array, jax.Array]]:
    """One Post-LN decoder block (Conti 2024, §1.2.5).

    Args:
      p: block parameters.
      y_TxD: the decoder's input stream (shifted target embeddings).
      z_NxD: the encoder's output (keys and values of the cross-attention).
      self_mask_TxT: extra self-attention mask, combined with the causal mask of eq. 10 (always on).
      cross_mask_TxN: optional cross-attention mask (e.g. source padding).
    Returns:
      ``(out_TxD, (self_weights_HxTxT, cross_weights_HxTxN))``.
    """
    _validate.check_choice("norm", norm, ("layernorm", "layernorm_sigma", "rmsnorm"))
    _validate.check_ndim("y_TxD", y_TxD, 2)
    t = y_TxD.shape[0]
    causal = masks.causal_mask(t)
    if self_mask_TxT is not None:
        _validate.check_mask("self_mask_TxT", self_mask_TxT, (t, t))
        causal = causal & self_mask_TxT
    if cross_mask_TxN is not None:
        _validate.check_mask("cross_mask_TxN", cross_mask_TxN, (t, jnp.shape(z_NxD)[0]))
    sa, w_self = multi_head_attention(p.self_attn, y_TxD, None, causal)
    u = _norm(norm, y_TxD + sa, p.norm1, eps)
    ca, w_cross = multi_head_attention(p.cross_attn, u, z_NxD, cross_mask_TxN)
    u2 = _norm(norm, u + ca, p.norm2, eps)
    out = _norm(norm, u2 + mlp(p.ffn, u2, activation), p.norm3, eps)
    return out, (w_self, w_cross)


def encode(
    blocks: tuple[EncoderBlockParams, ...],
    x_NxD: jax.Array,
    mask_NxN: jax.Array | None = None,
    **kwargs: Any,
) -> jax.Array:
    """``f_{theta_L} o ... o f_{theta_1}(X)``: a stack of encoder blocks (Conti 2024, §1.2.2)."""
    for b in blocks:
        x_NxD, _ = encoder_block(b, x_NxD, mask_NxN, **kwargs)
    return x_NxD


def decode(
    blocks: tuple[DecoderBlockParams, ...],
    y_TxD: jax.Array,
    z_NxD: jax.Array,
    cross_mask_TxN: jax.Array | None = None,
    **kwargs: Any,
) -> jax.Array:
    """A stack of decoder blocks, each attending to the same encoder output ``z_NxD``."""
    for b in blocks:
        y_TxD, _ = decoder_block(b, y_TxD, z_NxD, None, cross_mask_TxN, **kwargs)
    return y_TxD


@flax.struct.dataclass
class Seq2SeqParams:
    """A whole encoder-decoder (Conti 2024, Fig. 2): ``embed: (l, d)`` = ``W^E`` (shared by source
    and
    target), encoder and decoder block stacks, and the output projection ``w_p: (d, l)`` = ``P``."""

    embed: jax.Array
    encoder: tuple[EncoderBlockParams, ...]
    decoder: tuple[DecoderBlockParams, ...]
    w_p: jax.Array


def init_seq2seq(
    key: jax.Array,
    vocab_size: int,
    width: int,
    num_heads: int,
    ffn_hidden: int,
    num_layers: int = 1,
    *,
    dtype: DTypeLike = jnp.float32,
) -> Seq2SeqParams:
    """Random :class:`Seq2SeqParams` with ``num_layers`` encoder and decoder blocks (Conti 2024: L =
    6)."""
    _validate.check_positive("vocab_size", vocab_size)
    _validate.check_positive("num_layers", num_layers)
    if width % 2:
        raise ValueError(
            f"width: the sinusoidal code of Conti 2024, eq. 1 needs an even width, got {width}"
        )
    ke, kenc, kdec, kp = jax.random.split(key, 4)
    z = _draw_normals(ke, {"e": (vocab_size, width), "p": (width, vocab_size)}, dtype)
    return Seq2SeqParams(
        embed=z["e"] / jnp.sqrt(width),
        encoder=tuple(
            init_encoder_block(k, width, num_heads, ffn_hidden, dtype=dtype)
            for k in jax.random.split(kenc, num_layers)
        ),
        decoder=tuple(
            init_decoder_block(k, width, num_heads, ffn_hidden, dtype=dtype)
            for k in jax.random.split(kdec, num_layers)
        ),
        w_p=z["p"] / jnp.sqrt(width),
    )


def seq2seq_embed(w_e_VxD: jax.Array, tokens_N: jax.Array) -> jax.Array:
    """Conti 2024, §1.2: ``X W^E * sqrt(d) + P[:n]`` with the sinusoidal ``P`` of eq. 1 (dropout
    omitted)."""
    _validate.check_ndim("w_e_VxD", w_e_VxD, 2)
    _validate.check_ndim("tokens_N", tokens_N, 1)
    _validate.check_token_ids("tokens_N", tokens_N, w_e_VxD.shape[0])
    d = w_e_VxD.shape[1]
    pe = positional.sinusoidal(tokens_N.shape[0], d, dtype=w_e_VxD.dtype)
    return w_e_VxD[tokens_N] * jnp.sqrt(jnp.asarray(d, w_e_VxD.dtype)) + pe


def seq2seq_logits(
    params: Seq2SeqParams, src_N: jax.Array, tgt_T: jax.Array, **kwargs: Any
) -> jax.Array:
    """Next-token logits ``(T, l)``: row ``t`` scores the target token after ``tgt_T[: t + 1]`` (``Y
    P``)."""
    z = encode(params.encoder, seq2seq_embed(params.embed, src_N), **kwargs)
    y = decode(params.decoder, seq2seq_embed(params.embed, tgt_T), z, **kwargs)
    return y @ params.w_p


def greedy_decode(
    params: Seq2SeqParams, src_N: jax.Array, bos: int, length: int, **kwargs: Any
) -> jax.Array:
    """Greedy decoding (Conti 2024, §1.2.5): repeatedly append the argmax token, ``length`` times.

    The decoder runs on a fixed buffer ``[bos, y_0, ..., y_{length-2}]``; because its self-attention
    is causal, the not-yet-written slots cannot change the logits at the current step, so one shape
    serves every step (jit-friendly, one compile). No end-of-sequence stop: callers truncate.

    Returns:
      ``tokens_L`` (int32): the ``length`` generated tokens, ``bos`` excluded.
    """
    vocab = params.embed.shape[0]
    _validate.check_positive("length", length)
    if not 0 <= bos < vocab:
        raise ValueError(f"bos: expected a token id in [0, {vocab}), got {bos}")
    _validate.check_ndim("src_N", src_N, 1)
    _validate.check_token_ids("src_N", src_N, vocab)
    z = encode(params.encoder, seq2seq_embed(params.embed, src_N), **kwargs)

    def step(t, buf):
        y = decode(params.decoder, seq2seq_embed(params.embed, buf[:length]), z, **kwargs)
        tok = jnp.argmax(y[t] @ params.w_p).astype(jnp.int32)
        return buf.at[t + 1].set(tok)

    buf = jax.lax.fori_loop(0, length, step, jnp.full((length + 1,), bos, jnp.int32))
    return buf[1:]
