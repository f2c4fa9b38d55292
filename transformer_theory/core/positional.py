"""Positional encodings and the Chen & Zou 2024 embedding.

- :func:`embed_tokens`: Chen & Zou 2024, eq. 3 -- ``[one-hot token (d); positional code (p);
  zeros]`` to
  width ``d'``, in the library's row-major layout ``H_NxD`` (the paper writes ``H: (d', n)``
  with tokens as columns; this module is the one place that layout is converted).
- :func:`onehot_positions`: ``p_i = e_i`` (Chen & Zou 2024).
- :func:`sinusoidal`: Conti 2024, eq. 1, ``PE(t, 2i) = sin(t / N^{2i/d})``, ``PE(t, 2i+1) =
  cos(...)``.
- :func:`svete_cotterell`: Svete & Cotterell's (2024) ``(sqrt(1/t), sqrt(1 - 1/t))`` code for
  positions ``t = 1..n``
  (1-based, as in the slides), whose dot products peak at equal positions; with ``window = w``
  (kind ``"svete"``, :func:`svete_cotterell_offsets`) the pairs of ``t, t+1, ..., t+w-1`` that
  the ``n - 1`` heads (or layers) of the n-gram constructions read.
- :func:`ngram_window_code`: the code ``r(y_t, t)`` of the single-head n-gram construction
  (Svete & Cotterell 2024, Theorem 3.3; see
  :mod:`transformer_theory.papers.svete_cotterell2024`, its ``build``):
  position powers, the coefficients of a score polynomial that peaks on the last ``w``
  positions, ``t mod w`` one-hot, and the joint block ``onehot(y_t) (x) onehot(t mod w)``.
- :func:`chiang_cholak`: ``(i/n, (-1)^i)`` of Chiang & Cholak 2022's PARITY transformer.
- :func:`rope`: rotary embedding of a query or key vector at a position.
- :func:`alibi_bias`: ALiBi-style relative bias ``-slope * |i - j|``.
- :func:`embed_long`: the eq. 3 embedding of a model's config at ANY length (the code that
  ``config.seq_len`` defines, evaluated at every position; optional left padding).
"""

from __future__ import annotations

from typing import Protocol

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike, DTypeLike

from transformer_theory import _validate


class EmbeddingConfig(Protocol):
    """What :func:`embed_long` reads of a model's config (a :class:`~transformer_theory.params.
    ModelConfig`; ``params`` imports this module for :func:`code_dim`, never the other way)."""

    vocab_size: int
    seq_len: int
    positional: str
    width: int

    @property
    def pos_dim(self) -> int: ...

    @property
    def embed_dim(self) -> int: ...


KINDS = ("onehot", "sinusoidal", "svete", "none", "ngram_window", "chiang_cholak")


def code_dim(kind: str, n: int, *, window: int = 1, vocab_size: int = 0) -> int:
    """Width of the absolute code of ``kind`` for length ``n`` (``onehot``: n; ``sinusoidal``: even
    >= 2; ``svete``: ``2 * window``; ``ngram_window``: ``2 (2 window + 1) + window (1 +
    vocab_size)``; ``chiang_cholak``: 2)."""
    _validate.check_choice("positional", kind, KINDS)
    _validate.check_positive("window", window)
    if kind == "ngram_window":
        return 2 * (2 * window + 1) + window * (1 + vocab_size)
    return {
        "onehot": n,
        "sinusoidal": max(2, n + n % 2),
        "svete": 2 * window,
        "none": 0,
        "chiang_cholak": 2,
    }[kind]


def onehot_positions(n: int, dtype: DTypeLike = jnp.float32) -> jax.Array:
    """``P_NxN = I``: one-hot position ``p_i`` of Chen & Zou 2024, §3.1."""
    _validate.check_positive("n", n)
    return jnp.eye(n, dtype=dtype)


def sinusoidal(
    n: int, dim: int, base: float = 10000.0, dtype: DTypeLike = jnp.float32
) -> jax.Array:
    """Sinusoidal code ``PE_NxDim`` of Conti 2024, eq. 1 (positions ``0..n-1``).

    ``PE[t, 2i] = sin(t / base^(2i/dim))`` and ``PE[t, 2i+1] = cos(t / base^(2i/dim))``.
    """
    _validate.check_positive("n", n)
    _validate.check_positive("dim", dim)
    if dim % 2:
        raise ValueError(f"dim: the sinusoidal code pairs sin/cos and needs an even dim, got {dim}")
    _validate.check_positive("base", base)
    t = jnp.arange(n, dtype=dtype)[:, None]
    i = jnp.arange(dim // 2, dtype=dtype)[None, :]
    angle = t / jnp.power(jnp.asarray(base, dtype), 2 * i / dim)
    pe = jnp.zeros((n, dim), dtype)
    pe = pe.at[:, 0::2].set(jnp.sin(angle))
    return pe.at[:, 1::2].set(jnp.cos(angle))


def svete_cotterell(n: int, dtype: DTypeLike = jnp.float32) -> jax.Array:
    """Svete & Cotterell's (2024) code ``(sqrt(1/t), sqrt(1 - 1/t))`` for ``t = 1..n`` as rows of
    ``(n, 2)``."""
    _validate.check_positive("n", n)
    t = jnp.arange(1, n + 1, dtype=dtype)
    return jnp.stack([jnp.sqrt(1.0 / t), jnp.sqrt(1.0 - 1.0 / t)], axis=-1)


def window_score_polynomial(t: int, window: int) -> np.ndarray:
    """Coefficients ``c_0..c_{2w}`` (increasing powers of ``j``) of ``-prod_{h<w} (j - t + h)^2``.

    As a function of the key position ``j`` this is 0 on the window ``t-w+1..t`` and at most
    ``-(w!)^2 <= -1`` at every other integer, so ``score(t, j) = c(t) . (1, j, ..., j^{2w})`` is a
    bilinear score whose maximizers are exactly the last ``w`` positions (computed exactly in
    float64 from integers; the cancellation when it is evaluated in floats is what limits the
    construction's precision).
    """
    return window_score_polynomials(np.asarray([t]), window)[0]


def window_score_polynomials(t_N: np.ndarray, window: int) -> np.ndarray:
    """:func:`window_score_polynomial` for every position of ``t_N`` at once, ``(N, 2w + 1)``:
    the product is expanded by multiplying with ``(j - (t - h))`` twice per ``h`` (float64)."""
    _validate.check_positive("window", window)
    t = np.asarray(t_N, np.float64)
    coeffs = np.zeros((t.shape[0], 2 * window + 1))
    coeffs[:, 0] = -1.0
    for h in range(window):
        root = (t - h)[:, None]
        for _ in range(2):
            shifted = np.concatenate([np.zeros((t.shape[0], 1)), coeffs[:, :-1]], axis=1)
            coeffs = shifted - root * coeffs
    return coeffs


def ngram_window_code(
    tokens_N: jax.Array | np.ndarray, vocab_size: int, window: int, dtype: DTypeLike = jnp.float32
) -> jax.Array:
    """The joint code ``r(y_t, t)`` (rows ``t = 1..n``) of the single-head n-gram construction.

    Blocks, in order: key powers ``(1, t, ..., t^{2w})``; query coefficients
    :func:`window_score_polynomial` ``(t, w)``; ``onehot(t mod w)``; ``onehot(y_t) (x) onehot(t mod
    w)`` flattened symbol-major (``vocab_size * w``). The last block is why this code is a function
    of the symbol and the position together (the slides write ``r(y_t, t)``): one head that
    averages the window keeps each symbol's slot ``t mod w``, so the order survives the average.
    """
    _validate.check_ndim("tokens_N", tokens_N, 1)
    _validate.check_positive("window", window)
    n = tokens_N.shape[0]
    t = np.arange(1, n + 1)
    powers = np.power.outer(t.astype(np.float64), np.arange(2 * window + 1))
    coeffs = window_score_polynomials(t, window)
    residue = np.eye(window)[t % window]
    slot = (
        jax.nn.one_hot(tokens_N, vocab_size, dtype=dtype)[:, :, None]
        * jnp.asarray(residue, dtype)[:, None, :]
    )
    static = jnp.asarray(np.concatenate([powers, coeffs, residue], axis=1), dtype)
    return jnp.concatenate([static, slot.reshape(n, vocab_size * window)], axis=1)


def chiang_cholak(n: int, dtype: DTypeLike = jnp.float32) -> jax.Array:
    """``(i/n, (-1)^i)`` for ``i = 0..n-1`` (Chiang & Cholak 2022's PARITY encoding), ``(n, 2)``."""
    _validate.check_positive("n", n)
    i = jnp.arange(n, dtype=dtype)
    sign = jnp.where(jnp.arange(n) % 2 == 0, 1.0, -1.0).astype(dtype)
    return jnp.stack([i / n, sign], axis=-1)


def positional_code(
    kind: str, n: int, dtype: DTypeLike = jnp.float32, *, window: int = 1
) -> jax.Array:
    """The absolute code ``(n, code_dim(kind, n))`` for a kind that depends on positions only
    (every kind but ``"ngram_window"``, which needs the tokens: :func:`ngram_window_code`)."""
    p = code_dim(kind, n, window=window)
    if kind == "onehot":
        return onehot_positions(n, dtype)
    if kind == "sinusoidal":
        return sinusoidal(n, p, dtype=dtype)
    if kind == "svete":
        return svete_cotterell_offsets(n, window, dtype).reshape(n, 2 * window)
    if kind == "chiang_cholak":
        return chiang_cholak(n, dtype)
    if kind == "ngram_window":
        raise ValueError("kind: 'ngram_window' depends on the tokens; use ngram_window_code")
    return jnp.zeros((n, 0), dtype)


def embed_tokens(
    tokens_N: jax.Array | np.ndarray,
    vocab_size: int,
    width: int,
    positional: str = "onehot",
    dtype: DTypeLike = jnp.float32,
    *,
    window: int = 1,
) -> jax.Array:
    """Chen & Zou 2024, eq. 3 embedding ``H_NxD = [onehot(x_i) ; p_i ; 0]`` (row-major: one row per
    token).

    Args:
      tokens_N: integer token ids in ``[0, vocab_size)``.
      vocab_size: ``d``.
      width: ``d'``, at least ``d + code_dim(positional, n)``.
      positional: which absolute code fills the ``p_i`` block.
      window: offsets of ``"svete"`` / window of ``"ngram_window"`` (Svete & Cotterell 2024).
    """
    _validate.check_ndim("tokens_N", tokens_N, 1)
    _validate.check_token_ids("tokens_N", tokens_N, vocab_size)
    n = tokens_N.shape[0]
    if positional == "ngram_window":
        pos = ngram_window_code(tokens_N, vocab_size, window, dtype)
    else:
        pos = positional_code(positional, n, dtype, window=window)
    need = vocab_size + pos.shape[1]
    if width < need:
        raise ValueError(
            f"width: d' must be at least d + p = {vocab_size} + {pos.shape[1]} = {need}, "
            f"got {width}"
        )
    tok = jax.nn.one_hot(tokens_N, vocab_size, dtype=dtype)
    pad = jnp.zeros((n, width - need), dtype)
    return jnp.concatenate([tok, pos, pad], axis=-1)


def rope(x_NxK: jax.Array, positions_N: jax.Array, base: float = 10000.0) -> jax.Array:
    """Rotary embedding: rotate coordinate pairs ``(2i, 2i+1)`` of row ``t`` by ``t *
    base^(-2i/K)``.

    ``rope(q, i) . rope(k, j)`` depends on ``i - j`` only (relative-position invariance).
    """
    _validate.check_ndim("x_NxK", x_NxK, 2)
    K = x_NxK.shape[-1]
    if K % 2:
        raise ValueError(f"x_NxK: RoPE needs an even last dimension, got {K}")
    _validate.check_shape("positions_N", positions_N, (x_NxK.shape[0],))
    dtype = x_NxK.dtype
    inv = jnp.power(jnp.asarray(base, dtype), -2.0 * jnp.arange(K // 2, dtype=dtype) / K)
    ang = positions_N.astype(dtype)[:, None] * inv[None, :]
    c, s = jnp.cos(ang), jnp.sin(ang)
    x0, x1 = x_NxK[:, 0::2], x_NxK[:, 1::2]
    out = jnp.stack([x0 * c - x1 * s, x0 * s + x1 * c], axis=-1)
    return out.reshape(x_NxK.shape)


def alibi_slopes(num_heads: int, dtype: DTypeLike = jnp.float32) -> jax.Array:
    """Per-head ALiBi slopes ``2^(-8 h / H)`` for ``h = 1..H``."""
    _validate.check_positive("num_heads", num_heads)
    h = jnp.arange(1, num_heads + 1, dtype=dtype)
    return jnp.power(jnp.asarray(2.0, dtype), -8.0 * h / num_heads)


def alibi_bias(n: int, slope: ArrayLike, dtype: DTypeLike = jnp.float32) -> jax.Array:
    """Relative bias ``B_NxN[i, j] = -slope * |i - j|``, added to scores."""
    _validate.check_positive("n", n)
    idx = jnp.arange(n)
    return -jnp.asarray(slope, dtype) * jnp.abs(idx[:, None] - idx[None, :]).astype(dtype)


def relative_positions(num_queries: int, num_keys: int | None = None) -> jax.Array:
    """Integer ``P_QxK[i, j] = i - j``: the relative position ``p_ij`` of Barbero et al.'s kernel
    ``k(q, k, p_ij)``."""
    _validate.check_positive("num_queries", num_queries)
    nk = num_queries if num_keys is None else num_keys
    _validate.check_positive("num_keys", nk)
    return jnp.arange(num_queries)[:, None] - jnp.arange(nk)[None, :]


def sinusoidal_shift(
    s: ArrayLike, dim: int, base: float = 10000.0, dtype: DTypeLike = jnp.float32
) -> jax.Array:
    """The fixed linear map ``R(s)`` with ``PE(t + s) = R(s) PE(t)`` for every ``t`` (Conti 2024,
    §1.2.1).

    ``R(s)`` is block-diagonal with one ``2 x 2`` block per frequency ``w_k = base^(-2k/dim)``:
    on ``(sin(w_k t), cos(w_k t))`` it acts as ``[[cos(w_k s), sin(w_k s)], [-sin(w_k s), cos(w_k
    s)]]``.
    Conti 2024 writes ``f(t + s)^(2k) = a sin(w_k t) + b`` with constants ``a, b``; that affine form
    in
    ``sin(w_k t)`` alone is not right -- the ``b`` term is ``sin(w_k s) cos(w_k t)`` and depends on
    ``t``. The correct statement is this rotation, which mixes the sin and cos coordinates.

    Returns:
      ``R_DxD`` (``dim x dim``) acting on column vectors ``PE(t)``; on rows: ``PE(t + s) = PE(t) @
      R.T``.
    """
    _validate.check_positive("dim", dim)
    if dim % 2:
        raise ValueError(f"dim: the sinusoidal code pairs sin/cos and needs an even dim, got {dim}")
    k = jnp.arange(dim // 2, dtype=dtype)
    w = jnp.power(jnp.asarray(base, dtype), -2 * k / dim)
    a = jnp.asarray(s, dtype) * w
    c, sn = jnp.cos(a), jnp.sin(a)
    blocks = jnp.stack([jnp.stack([c, sn], -1), jnp.stack([-sn, c], -1)], -2)  # (dim/2, 2, 2)
    return jax.scipy.linalg.block_diag(*[blocks[i] for i in range(dim // 2)])


def svete_cotterell_offsets(n: int, num_offsets: int, dtype: DTypeLike = jnp.float32) -> jax.Array:
    """Svete & Cotterell's (2024) n-gram code: ``(sqrt(1/(t+h)), sqrt(1 - 1/(t+h)))`` for ``h =
    0..num_offsets-1``.

    Row ``t-1`` (``t = 1..n``) stacks the ``num_offsets`` pairs, shape ``(n, num_offsets, 2)``. Head
    ``h`` uses the query ``Q(t) = code[t, 0]`` and the key ``K_h(j) = code[j, h]``; their dot
    product
    ``sqrt(1/t) sqrt(1/(j+h)) + sqrt(1-1/t) sqrt(1-1/(j+h))`` is the cosine of the angle between two
    unit vectors and equals 1 exactly when ``j = t - h``, so hardmax attends to position ``t - h``.
    """
    _validate.check_positive("n", n)
    _validate.check_positive("num_offsets", num_offsets)
    t = jnp.arange(1, n + 1, dtype=dtype)[:, None] + jnp.arange(num_offsets, dtype=dtype)[None, :]
    return jnp.stack([jnp.sqrt(1.0 / t), jnp.sqrt(1.0 - 1.0 / t)], axis=-1)


def embed_long(
    config: EmbeddingConfig,
    tokens_N: jax.Array,
    *,
    dtype: jax.typing.DTypeLike = jnp.float32,
    valid_N: jax.Array | None = None,
) -> jax.Array:
    """Chen & Zou 2024, eq. 3 embedding ``[onehot(x_i) ; p_i ; 0]`` at ANY length.

    The positional block is the code ``config.seq_len`` defines: ``"sinusoidal"`` keeps its
    ``code_dim("sinusoidal", seq_len)`` frequencies at every position (:func:`embed_tokens`
    re-lays the code out for each length, which would change the model with the length);
    ``"svete"`` and ``"none"`` are defined everywhere; ``"onehot"`` only up to ``seq_len``. The
    code is computed in float32 (float64 for float64) and stored in ``dtype``, as a model keeps
    its position table. Traceable (jit/vmap) in ``tokens_N`` and ``valid_N``. Barbero et al.
    2024's collapse and over-squashing studies read one model at every length through it.

    Args:
      config: the model's config (``vocab_size``, ``width``, ``positional``, ``pos_dim``,
        ``seq_len``, ``embed_dim``).
      tokens_N: integer token ids.
      dtype: the embedding's dtype (the precision the model runs in).
      valid_N: optional boolean, False at padding (left padding, masked by the caller): padding
        rows get no positional code and the ``t``-th valid token gets the code of position ``t``.
    Returns:
      ``embedding_NxD``.
    """
    tokens_N = jnp.asarray(tokens_N)
    _validate.check_ndim("tokens_N", tokens_N, 1)
    _validate.check_token_ids("tokens_N", tokens_N, config.vocab_size)
    n = int(tokens_N.shape[0])
    if valid_N is not None:
        _validate.check_shape("valid_N", valid_N, (n,))
    kind = config.positional
    code_dtype = jnp.float64 if jnp.dtype(dtype) == jnp.float64 else jnp.float32
    if kind == "onehot":
        if n > config.seq_len:
            raise ValueError(
                f"tokens_N: a one-hot position code exists for seq_len = {config.seq_len} "
                f"positions, got {n} tokens; use a bounded code (none, sinusoidal, RoPE, ALiBi)"
            )
        table = jnp.eye(n, config.seq_len, dtype=code_dtype)
    elif kind == "sinusoidal":
        table = sinusoidal(n, config.pos_dim, dtype=code_dtype)
    elif kind == "svete":
        table = svete_cotterell(n, code_dtype)
    else:
        table = jnp.zeros((n, 0), code_dtype)
    if valid_N is not None:
        position_N = jnp.maximum(jnp.cumsum(valid_N.astype(jnp.int32)) - 1, 0)
        table = jnp.where(valid_N[:, None], table[position_N], 0.0)
    tok = jax.nn.one_hot(tokens_N, config.vocab_size, dtype=code_dtype)
    pad = jnp.zeros((n, config.width - config.embed_dim), code_dtype)
    return jnp.concatenate([tok, table, pad], axis=-1).astype(dtype)
