"""Boolean attention masks ``mask_QxK`` (True = query ``i`` may attend to key ``j``).

Combine masks with ``&`` (both must allow) and ``|`` (either allows). Every weight function of
:mod:`transformer_theory.core.attention` gives an all-zero row (never NaN) to a query whose row
is fully masked.

- :func:`causal_mask`, :func:`padding_mask`.
- Sparse patterns of Conti 2024, §2.1.1: :func:`sliding_window_mask` and :func:`dilated_window_mask`
  (Longformer), :func:`global_mask` (BigBird / Longformer global tokens), :func:`random_mask`
  (BigBird's ``r`` random keys per query, from an explicit PRNG key), and the composites
  :func:`bigbird_mask` and :func:`longformer_mask`.
- Arbitrary masks (Chen & Zou 2024, Lemma 2, "constrained attention"): :func:`block_mask` (attend
  within
  one's own segment), :func:`pairs_mask` (an explicit list of allowed ``(query, key)`` pairs) and
  :func:`constrained_w_pp`, the Lemma-2 construction itself: the ``W_pp`` block that realizes a
  mask through large negative scores under one-hot positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

from transformer_theory import _validate


def causal_mask(n: int) -> jax.Array:
    """Lower-triangular ``(n, n)`` mask: key ``j <= i`` (Barbero et al.'s causal attention)."""
    _validate.check_positive("n", n)
    return jnp.tril(jnp.ones((n, n), bool))


def padding_mask(valid_N: jax.Array) -> jax.Array:
    """``(n, n)`` mask letting every query attend only to valid (non-padding) keys.

    Args:
      valid_N: boolean ``(n,)``, True for real tokens.
    """
    _validate.check_ndim("valid_N", valid_N, 1)
    if jnp.result_type(valid_N) != jnp.bool_:
        raise ValueError(
            f"valid_N: expected a boolean vector (True = real token), got dtype "
            f"{jnp.result_type(valid_N)}"
        )
    valid = jnp.asarray(valid_N)
    return jnp.broadcast_to(valid[None, :], (valid.shape[0], valid.shape[0]))


def _offsets(n: int) -> jax.Array:
    idx = jnp.arange(n)
    return idx[:, None] - idx[None, :]  # [i, j] = i - j


def sliding_window_mask(n: int, window: int, *, causal: bool = False) -> jax.Array:
    """Local attention: query ``i`` sees keys ``j`` with ``|i - j| <= window // 2`` (Conti 2024,
    §2.1.1).

    BigBird's ``w`` local neighbours are ``i - w/2 <= j <= i + w/2``; Longformer's window ``w``
    attends to ``w/2`` tokens on each side. ``causal=True`` keeps only ``i - window//2 <= j <= i``.
    """
    return dilated_window_mask(n, window, 1, causal=causal)


def dilated_window_mask(n: int, window: int, dilation: int, *, causal: bool = False) -> jax.Array:
    """Longformer's dilated window: keys ``j = i + m * dilation`` with ``|m| <= window // 2``.

    The receptive field of one layer is ``dilation * (window // 2)`` on each side; ``dilation=1``
    is :func:`sliding_window_mask`.
    """
    _validate.check_positive("n", n)
    _validate.check_positive("window", window)
    _validate.check_positive("dilation", dilation)
    off = _offsets(n)
    m = (jnp.abs(off) <= dilation * (window // 2)) & (off % dilation == 0)
    return m & (off >= 0) if causal else m


IndexSet = Union[Sequence[int], jax.Array]  # noqa: UP007 (a runtime alias)


def _index_vector(name: str, n: int, indices: IndexSet) -> jax.Array:
    """Boolean ``(n,)`` from an index list or a boolean vector; concrete ids are range-checked."""
    arr = jnp.asarray(indices)
    if arr.dtype == bool:
        _validate.check_shape(name, arr, (n,))
        return arr
    if arr.size == 0:
        return jnp.zeros((n,), bool)
    _validate.check_ndim(name, arr, 1)
    _validate.check_int(name, arr)
    if not isinstance(arr, jax.core.Tracer):
        a = np.asarray(arr)
        if a.min() < 0 or a.max() >= n:
            raise ValueError(
                f"{name}: positions must lie in [0, {n}), got min {a.min()} and max {a.max()}"
            )
    return jnp.zeros((n,), bool).at[arr].set(True)


def global_mask(n: int, global_indices: IndexSet) -> jax.Array:
    """Global tokens ``G``: ``i in G`` attends to every key and every query attends to ``G``.

    Conti 2024, §2.1.1: "tokens that attend to all tokens in the sequence and to whom all tokens
    attend".

    Args:
      n: sequence length.
      global_indices: positions of the global tokens, or a boolean ``(n,)`` vector.
    """
    _validate.check_positive("n", n)
    g = _index_vector("global_indices", n, global_indices)
    return g[:, None] | g[None, :]


def random_mask(key: jax.Array, n: int, num_random: int) -> jax.Array:
    """BigBird's random attention: each query attends to ``num_random`` distinct keys drawn
    uniformly.

    The keys of each row are the ``num_random`` smallest of ``n`` i.i.d. uniforms (a uniformly
    random
    subset without replacement); the pattern is a function of ``key`` only.
    """
    _validate.check_positive("n", n)
    _validate.check_positive("num_random", num_random, allow_zero=True)
    if num_random > n:
        raise ValueError(f"num_random: at most n = {n} distinct keys per query, got {num_random}")
    u = jax.random.uniform(key, (n, n))
    ranks = jnp.argsort(jnp.argsort(u, axis=-1), axis=-1)
    return ranks < num_random


def bigbird_mask(
    key: jax.Array, n: int, window: int, global_indices: IndexSet, num_random: int
) -> jax.Array:
    """BigBird (Conti 2024, §2.1.1, Fig. 7d): sliding window ``|`` global tokens ``|`` random
    keys."""
    return (
        sliding_window_mask(n, window)
        | global_mask(n, global_indices)
        | random_mask(key, n, num_random)
    )


def longformer_mask(n: int, window: int, global_indices: IndexSet, dilation: int = 1) -> jax.Array:
    """Longformer (Conti 2024, §2.1.1, Fig. 9): (dilated) sliding window ``|`` global tokens."""
    return dilated_window_mask(n, window, dilation) | global_mask(n, global_indices)


def block_mask(segment_ids_N: jax.Array) -> jax.Array:
    """Constrained attention within segments: ``i`` sees ``j`` iff ``segment_ids[i] ==
    segment_ids[j]``.

    Chen & Zou's contextual-generalization construction uses this (via Lemma 2) to keep each
    question block's tokens attending within their own block.
    """
    _validate.check_ndim("segment_ids_N", segment_ids_N, 1)
    seg = jnp.asarray(segment_ids_N)
    return seg[:, None] == seg[None, :]


def pairs_mask(n: int, pairs: Sequence[tuple[int, int]], *, allow: bool = True) -> jax.Array:
    """An arbitrary position mask from ``(query, key)`` pairs (Chen & Zou 2024, Lemma 2).

    Args:
      n: sequence length.
      pairs: ``(i, j)`` pairs (concrete Python ints: the mask is built on the host).
      allow: True -- only the listed pairs may attend; False -- all pairs except the listed ones.
    """
    _validate.check_positive("n", n)
    arr = np.asarray(list(pairs), dtype=np.int64).reshape(-1, 2)
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise ValueError(
            f"pairs: positions must lie in [0, {n}), got min {arr.min()} and max {arr.max()}"
        )
    m = np.zeros((n, n), bool)
    m[arr[:, 0], arr[:, 1]] = True
    return jnp.asarray(m if allow else ~m)


def constrained_w_pp(
    mask_NxN: jax.Array, penalty: float, dtype: DTypeLike = jnp.float32
) -> jax.Array:
    """Chen & Zou 2024, Lemma 2: the ``W_pp`` block that imposes ``mask_NxN`` through the scores.

    With one-hot positions (``P = I``) the score matrix of eq. 4 is ``(token terms) + W_pp``, in the
    paper's column convention: entry ``[j, i]`` is key ``j`` for query ``i``. Setting
    ``W_pp[j, i] = -penalty`` where query ``i`` may not see key ``j`` (0 elsewhere) masks the pair
    exactly for ReLU attention once ``penalty`` exceeds the largest token score, and up to a factor
    ``exp(-penalty)`` for softmax. Note the transpose: the library's ``mask_NxN[i, j]`` is
    ``[query, key]``.

    Returns:
      ``W_pp`` of shape ``(n, n)`` to place in the ``p x p`` block of ``W_QK`` (paper layout).
    """
    _validate.check_mask("mask_NxN", mask_NxN)
    _validate.check_ndim("mask_NxN", mask_NxN, 2)
    if mask_NxN.shape[0] != mask_NxN.shape[1]:
        raise ValueError(f"mask_NxN: expected a square mask, got shape {mask_NxN.shape}")
    _validate.check_positive("penalty", penalty)
    return jnp.where(mask_NxN.T, 0.0, -penalty).astype(dtype)
