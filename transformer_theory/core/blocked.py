"""Sparse attention computed block by block: Longformer and BigBird in O(n), never an n x n array.

Conti 2024, §2.1.1 describes the sparse patterns of Longformer (sliding window, dilated window,
global tokens) and BigBird (window + global + random keys); :mod:`transformer_theory.core.masks`
has them as dense boolean ``n x n`` masks, which cost ``O(n^2)`` memory and time however sparse
they are. The functions here compute exactly ``softmax(Q K^T / sqrt(E) | mask) V`` for those
masks (tests pin them to the dense masked reference on small ``n``) with cost linear in ``n``:

- the **window** part cuts the sequence into blocks of ``b >= window // 2`` positions; the queries
  of block ``c`` see only the keys of blocks ``c - 1, c, c + 1`` (Longformer's "sliding chunks"),
  so the scores are ``(n / b) x b x 3b`` -- ``3 n b`` entries -- and the offset mask is one small
  ``b x 3b`` table shared by every block;
- a **dilated** window (keys ``j = i + m * dilation``, ``|m| <= window // 2``) is a plain sliding
  window on each residue class ``i mod dilation``: the sequence is interleaved into ``dilation``
  subsequences, each attended with the block scheme above;
- **global** tokens ``G``: every query attends to the ``g`` global keys (an ``n x g`` score block)
  and the ``g`` global queries attend to all keys (a ``g x n`` block);
- BigBird's **random** keys are an explicit ``(n, r)`` table of key positions per query
  (:func:`random_keys` draws one in ``O(n r^2)``), gathered per query: ``n x r`` scores.

The parts are merged as one softmax by the running ``(max, sum, weighted sum)`` of each query
(the online-softmax merge of FlashAttention), so a key that two parts could both reach is counted
once: the window part skips global keys, the random part skips keys already in the window or
global, and repeated random keys of a row count once -- exactly the set union of the dense masks.

Cost per query: ``3b + g + r`` scores (``b`` about ``window / 2``) and ``n`` for the ``g`` global
queries: ``O(n (window + g + r) E)`` time and ``O(n (window + g + r))`` memory. Attention is
bidirectional (an encoder's), with the ``1 / sqrt(E)`` scaling of
:func:`~transformer_theory.core.attention.dot_product_attention`.

Shapes follow :mod:`transformer_theory.glossary`; ``keys_NxK`` lists ``K`` chosen key positions
for each of the ``N`` queries.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate


def _check_qkv(q_NxE, k_NxE, v_NxD) -> None:
    for name, x in (("q_NxE", q_NxE), ("k_NxE", k_NxE), ("v_NxD", v_NxD)):
        _validate.check_ndim(name, x, 2)
        _validate.check_float(name, x)
    n, e = q_NxE.shape
    if k_NxE.shape != (n, e):
        raise ValueError(
            f"k_NxE: self-attention needs keys shaped like the queries {(n, e)}, got {k_NxE.shape}"
        )
    if v_NxD.shape[0] != n:
        raise ValueError(f"v_NxD: expected one value row per key ({n}), got shape {v_NxD.shape}")


def _global_positions(n: int, global_indices) -> np.ndarray:
    """Sorted distinct global positions as a host array (their count fixes the shapes)."""
    if isinstance(global_indices, jax.core.Tracer):
        raise ValueError(
            "global_indices: must be concrete (a list or a host array): their number fixes the "
            "shapes of the computation; close over them instead of tracing them"
        )
    arr = np.asarray(global_indices)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise ValueError(
                f"global_indices: a boolean vector must have shape ({n},), got {arr.shape}"
            )
        return np.flatnonzero(arr)
    if arr.size == 0:
        return np.zeros((0,), np.int64)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"global_indices: expected a list of positions, got {global_indices!r}")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(
            f"global_indices: positions must lie in [0, {n}), got min {arr.min()} and max "
            f"{arr.max()}"
        )
    return np.unique(arr)


def _check_window(window: int, dilation: int, block_size: int | None) -> int:
    _validate.check_positive("window", window)
    _validate.check_positive("dilation", dilation)
    half = window // 2
    if block_size is None:
        return max(half, 1)
    _validate.check_positive("block_size", block_size)
    if block_size < half:
        raise ValueError(
            f"block_size: must be at least window // 2 = {half} so that three blocks hold every "
            f"window, got {block_size}"
        )
    return block_size


# A partial softmax over some of a query's keys: (running max m_N, sum l_N of exp(s - m), and
# o_NxD = sum of exp(s - m) v). A query with no key in the part has m = the dtype's lowest value
# and l = 0, which the merge treats as "nothing".
def _partial(scores, allowed, values, sum_spec: str):
    low = jnp.finfo(scores.dtype).min
    masked = jnp.where(allowed, scores, low)
    m = jax.lax.stop_gradient(jnp.max(masked, axis=-1))
    e = jnp.where(allowed, jnp.exp(masked - m[..., None]), 0.0)
    return m, jnp.sum(e, axis=-1), jnp.einsum(sum_spec, e, values)


def _merge(a, b):
    (ma, la, oa), (mb, lb, ob) = a, b
    m = jnp.maximum(ma, mb)
    fa, fb = jnp.exp(ma - m), jnp.exp(mb - m)
    return m, la * fa + lb * fb, oa * fa[:, None] + ob * fb[:, None]


def _finish(part) -> jax.Array:
    _, l_N, o_NxD = part
    ok = l_N > 0
    return jnp.where(ok[:, None], o_NxD / jnp.where(ok, l_N, 1.0)[:, None], 0.0)


def _scale(q_NxE) -> jax.Array:
    return q_NxE / jnp.sqrt(jnp.asarray(q_NxE.shape[-1], q_NxE.dtype))


def _window_blocks(q_NxE, k_NxE, v_NxD, key_ok_N, half: int, block: int):
    """Partial softmax of a sliding window ``|i - j| <= half`` over keys with ``key_ok_N``, in
    blocks of ``block`` positions (queries already scaled)."""
    n, e = q_NxE.shape
    d = v_NxD.shape[1]
    nb = -(-n // block)
    pad = nb * block - n
    # Keys get one empty block on each side, so block c's neighbours are rows c, c+1, c+2.
    kp = jnp.pad(k_NxE, ((block, pad + block), (0, 0))).reshape(nb + 2, block, e)
    vp = jnp.pad(v_NxD, ((block, pad + block), (0, 0))).reshape(nb + 2, block, d)
    okp = jnp.pad(key_ok_N, (block, pad + block)).reshape(nb + 2, block)
    keys = jnp.concatenate([kp[:-2], kp[1:-1], kp[2:]], axis=1)
    vals = jnp.concatenate([vp[:-2], vp[1:-1], vp[2:]], axis=1)
    ok = jnp.concatenate([okp[:-2], okp[1:-1], okp[2:]], axis=1)
    qb = jnp.pad(q_NxE, ((0, pad), (0, 0))).reshape(nb, block, e)
    scores = jnp.einsum("cqe,cke->cqk", qb, keys)
    # key position - query position = (c - 1) b + kk - (c b + qq), the same table for every block
    offset = np.arange(3 * block)[None, :] - block - np.arange(block)[:, None]
    allowed = jnp.asarray(np.abs(offset) <= half)[None] & ok[:, None, :]
    m, l_, o = _partial(scores, allowed, vals, "cqk,ckd->cqd")
    return m.reshape(-1)[:n], l_.reshape(-1)[:n], o.reshape(-1, d)[:n]


def _dilated_window(q_NxE, k_NxE, v_NxD, key_ok_N, half: int, dilation: int, block: int):
    """Partial softmax of the dilated window: a sliding window on each residue class mod
    ``dilation`` (position ``t * dilation + c`` is row ``t`` of class ``c``)."""
    if dilation == 1:
        return _window_blocks(q_NxE, k_NxE, v_NxD, key_ok_N, half, block)
    n = q_NxE.shape[0]
    rows = -(-n // dilation)
    pad = rows * dilation - n

    def split(x):  # (n, ...) -> (dilation, rows, ...)
        x = jnp.pad(x, ((0, pad),) + ((0, 0),) * (x.ndim - 1))
        return jnp.swapaxes(x.reshape((rows, dilation) + x.shape[1:]), 0, 1)

    m, l_, o = jax.vmap(lambda q, k, v, ok: _window_blocks(q, k, v, ok, half, block))(
        split(q_NxE), split(k_NxE), split(v_NxD), split(key_ok_N)
    )

    def join(x):  # (dilation, rows, ...) -> (n, ...)
        x = jnp.swapaxes(x, 0, 1)
        return x.reshape((rows * dilation,) + x.shape[2:])[:n]

    return join(m), join(l_), join(o)


def _in_window(offset, half: int, dilation: int):
    return (jnp.abs(offset) <= dilation * half) & (offset % dilation == 0)


def _global_columns(q_NxE, k_NxE, v_NxD, glob: np.ndarray):
    """Partial softmax of every query over the global keys: an ``n x g`` block."""
    scores = q_NxE @ k_NxE[glob].T
    return _partial(scores, jnp.ones(scores.shape, bool), v_NxD[glob], "nk,kd->nd")


def _global_rows(out_NxD, q_NxE, k_NxE, v_NxD, glob: np.ndarray) -> jax.Array:
    """The global queries attend to every key: their rows are dense softmax rows (``g x n``)."""
    if glob.size == 0:
        return out_NxD
    w = jax.nn.softmax(q_NxE[glob] @ k_NxE.T, axis=-1)
    return out_NxD.at[glob].set(w @ v_NxD)


def _sparse(q_NxE, k_NxE, v_NxD, window, glob, dilation, block, keys_NxK):
    n = q_NxE.shape[0]
    half = window // 2
    q = _scale(q_NxE)
    is_global = np.zeros((n,), bool)
    is_global[glob] = True
    part = _dilated_window(q, k_NxE, v_NxD, jnp.asarray(~is_global), half, dilation, block)
    if glob.size:
        part = _merge(part, _global_columns(q, k_NxE, v_NxD, glob))
    if keys_NxK is not None and keys_NxK.shape[1]:
        keys = jnp.asarray(keys_NxK)
        r = keys.shape[1]
        offset = keys - jnp.arange(n)[:, None]
        # Count each key of the union once: skip keys in the window, global keys, repeats.
        earlier = np.tril(np.ones((r, r), bool), -1)
        repeat = jnp.any((keys[:, :, None] == keys[:, None, :]) & earlier[None], axis=-1)
        allowed = ~(_in_window(offset, half, dilation) | jnp.asarray(is_global)[keys] | repeat)
        scores = jnp.einsum("ne,nke->nk", q, k_NxE[keys])
        part = _merge(part, _partial(scores, allowed, v_NxD[keys], "nk,nkd->nd"))
    return _global_rows(_finish(part), q, k_NxE, v_NxD, glob)


def sliding_window_attention(
    q_NxE: jax.Array,
    k_NxE: jax.Array,
    v_NxD: jax.Array,
    window: int,
    *,
    dilation: int = 1,
    block_size: int | None = None,
) -> jax.Array:
    """Longformer's (dilated) sliding-window attention in ``O(n window)`` (Conti 2024, §2.1.1).

    Equals :func:`~transformer_theory.core.attention.dot_product_attention` with
    ``masks.dilated_window_mask(n, window, dilation)``: query ``i`` sees keys
    ``j = i + m * dilation`` with ``|m| <= window // 2``.

    Args:
      q_NxE, k_NxE: queries and keys of one sequence (self-attention).
      v_NxD: values.
      window: total window width ``w`` (``w // 2`` keys on each side).
      dilation: gap between attended keys (1: contiguous).
      block_size: positions per block (default ``max(window // 2, 1)``; at least ``window // 2``).
    Returns:
      ``out_NxD``.
    """
    return longformer_attention(
        q_NxE, k_NxE, v_NxD, window, (), dilation=dilation, block_size=block_size
    )


def longformer_attention(
    q_NxE: jax.Array,
    k_NxE: jax.Array,
    v_NxD: jax.Array,
    window: int,
    global_indices: Sequence[int] | np.ndarray,
    *,
    dilation: int = 1,
    block_size: int | None = None,
) -> jax.Array:
    """Longformer attention (Conti 2024, §2.1.1, Fig. 9): (dilated) window + global tokens, blocked.

    Equals dense attention under ``masks.longformer_mask(n, window, global_indices, dilation)``
    at cost ``O(n (window + g))`` with ``g`` global tokens.

    Args:
      q_NxE, k_NxE, v_NxD: one sequence's queries, keys and values.
      window, dilation, block_size: as in :func:`sliding_window_attention`.
      global_indices: positions of the global tokens (concrete: their number fixes the shapes), or
        a boolean ``(n,)`` host vector.
    Returns:
      ``out_NxD``.
    """
    _check_qkv(q_NxE, k_NxE, v_NxD)
    block = _check_window(window, dilation, block_size)
    glob = _global_positions(q_NxE.shape[0], global_indices)
    return _sparse(q_NxE, k_NxE, v_NxD, window, glob, dilation, block, None)


def bigbird_attention(
    q_NxE: jax.Array,
    k_NxE: jax.Array,
    v_NxD: jax.Array,
    window: int,
    global_indices: Sequence[int] | np.ndarray,
    keys_NxK: jax.Array,
    *,
    block_size: int | None = None,
) -> jax.Array:
    """BigBird attention (Conti 2024, §2.1.1, Fig. 7d): window + global + random keys, blocked.

    Equals dense attention under ``sliding_window_mask(n, window) | global_mask(n, global_indices)
    | keys_mask(keys_NxK)`` at cost ``O(n (window + g + r))``.

    Args:
      q_NxE, k_NxE, v_NxD: one sequence's queries, keys and values.
      window: the local window width (``window // 2`` neighbours on each side).
      global_indices: the global tokens (concrete positions or a boolean host vector).
      keys_NxK: integer ``(n, r)``: the random keys of each query (e.g. :func:`random_keys`);
        a key also reached by the window or the global tokens, or repeated, counts once.
      block_size: positions per window block (default ``max(window // 2, 1)``).
    Returns:
      ``out_NxD``.
    """
    _check_qkv(q_NxE, k_NxE, v_NxD)
    n = q_NxE.shape[0]
    block = _check_window(window, 1, block_size)
    glob = _global_positions(n, global_indices)
    _check_keys(keys_NxK, n)
    return _sparse(q_NxE, k_NxE, v_NxD, window, glob, 1, block, keys_NxK)


def _check_keys(keys_NxK, n: int) -> None:
    _validate.check_ndim("keys_NxK", keys_NxK, 2)
    _validate.check_int("keys_NxK", keys_NxK)
    if keys_NxK.shape[0] != n:
        raise ValueError(f"keys_NxK: expected one row per query ({n}), got shape {keys_NxK.shape}")
    if not isinstance(keys_NxK, jax.core.Tracer) and keys_NxK.size:
        a = np.asarray(keys_NxK)
        if a.min() < 0 or a.max() >= n:
            raise ValueError(
                f"keys_NxK: positions must lie in [0, {n}), got min {a.min()} and max {a.max()}"
            )


def random_keys(key: jax.Array, n: int, num_random: int) -> jax.Array:
    """BigBird's random keys: for each of ``n`` queries, ``num_random`` distinct key positions.

    Each row is a uniformly random ``num_random``-subset of ``[0, n)``, drawn by Floyd's algorithm
    (for ``t = n - r, ..., n - 1``: draw ``j`` uniform in ``[0, t]``; keep ``j`` unless already
    kept, then keep ``t``) -- ``O(n r^2)`` work, where a row-wise permutation would cost
    ``O(n^2)``. The rows are in draw order, not sorted.

    Returns:
      ``keys_NxK`` (int32), ``K = num_random``.
    """
    _validate.check_positive("n", n)
    _validate.check_positive("num_random", num_random, allow_zero=True)
    if num_random > n:
        raise ValueError(f"num_random: at most n = {n} distinct keys per query, got {num_random}")
    return _floyd(key, n, num_random)


@functools.partial(jax.jit, static_argnums=(1, 2))
def _floyd(key: jax.Array, n: int, r: int) -> jax.Array:
    cols = jnp.arange(r)

    def step(s, keys):
        t = n - r + s
        j = jax.random.randint(jax.random.fold_in(key, s), (n,), 0, t + 1, jnp.int32)
        taken = jnp.any((keys == j[:, None]) & (cols < s)[None, :], axis=-1)
        return keys.at[:, s].set(jnp.where(taken, t, j).astype(jnp.int32))

    return jax.lax.fori_loop(0, r, step, jnp.zeros((n, r), jnp.int32))


def keys_mask(keys_NxK: jax.Array, n: int | None = None) -> jax.Array:
    """The dense ``(n, n)`` boolean mask of a per-query key table (a reference for small ``n``)."""
    _validate.check_ndim("keys_NxK", keys_NxK, 2)
    n = keys_NxK.shape[0] if n is None else n
    _check_keys(keys_NxK, n)
    rows = jnp.broadcast_to(jnp.arange(n)[:, None], keys_NxK.shape)
    return jnp.zeros((n, n), bool).at[rows, keys_NxK].set(True)


def scores_per_query(
    window: int,
    num_global: int = 0,
    num_random: int = 0,
    *,
    dilation: int = 1,
    block_size: int | None = None,
) -> float:
    """Scores computed per query on average (masked ones included): the blocked cost model.

    ``3 b`` window scores (``b`` the block size), ``g`` global columns and ``r`` random keys for
    each query, plus ``n`` for each of the ``g`` global queries (``g`` per query on average):
    ``3 b + 2 g + r``, independent of ``n``; dense attention computes ``n``.
    """
    block = _check_window(window, dilation, block_size)
    return float(3 * block + 2 * num_global + num_random)
