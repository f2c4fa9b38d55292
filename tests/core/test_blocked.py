"""Blocked Longformer / BigBird attention (Conti 2024, §2.1.1) against a dense float64 reference.

The reference builds the boolean mask in NumPy from the definitions (``|i - j| <= w // 2``, the
dilation's residue, global rows and columns, the random key table) and applies a masked softmax
row by row; the blocked code never sees an ``n x n`` array. Sizes are small but cover: ``n`` not a
multiple of the block or of the dilation, windows wider than the sequence, global tokens inside
the window, random keys that repeat or fall in the window.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory.core import attention, blocked, masks


def np_mask(n, window, dilation=1, glob=(), keys=None):
    half = window // 2
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    off = j - i
    m = (np.abs(off) <= dilation * half) & (off % dilation == 0)
    g = np.zeros(n, bool)
    g[list(glob)] = True
    m |= g[:, None] | g[None, :]
    if keys is not None:
        for row, ks in enumerate(np.asarray(keys)):
            m[row, ks] = True
    return m


def np_masked_attention(q, k, v, mask):
    s = q @ k.T / np.sqrt(q.shape[1])
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        js = np.flatnonzero(mask[i])
        w = np.exp(s[i, js] - s[i, js].max())
        out[i] = (w / w.sum()) @ v[js]
    return out


def qkv(seed, n, e=4, d=3, scale=1.0):
    rng = np.random.default_rng(seed)
    return (
        scale * rng.normal(size=(n, e)),
        scale * rng.normal(size=(n, e)),
        rng.normal(size=(n, d)),
    )


@pytest.mark.parametrize(
    "n, window, dilation, block",
    [
        (1, 3, 1, None),
        (7, 3, 1, None),
        (10, 5, 1, 3),
        (9, 4, 2, None),
        (11, 3, 3, 4),
        (6, 40, 1, None),
    ],
)
def test_sliding_window_matches_dense_reference(n, window, dilation, block):
    q, k, v = qkv(n, n)
    ref = np_masked_attention(q, k, v, np_mask(n, window, dilation))
    f = jax.jit(
        lambda a, b, c: blocked.sliding_window_attention(
            a, b, c, window, dilation=dilation, block_size=block
        )
    )
    out = f(*map(jnp.asarray, (q, k, v)))
    assert_close(out, ref)


@pytest.mark.parametrize("n, window, glob, dilation", [(12, 3, [0], 1), (13, 5, [0, 6, 12], 2)])
def test_longformer_matches_dense_reference_and_core_mask(n, window, glob, dilation):
    q, k, v = qkv(1, n, scale=3.0)  # large scores: the online merge must keep its max right
    ref = np_masked_attention(q, k, v, np_mask(n, window, dilation, glob))
    args = tuple(map(jnp.asarray, (q, k, v)))
    out = jax.jit(
        lambda a, b, c: blocked.longformer_attention(a, b, c, window, glob, dilation=dilation)
    )(*args)
    assert_close(out, ref)
    core_ref, _ = jax.jit(
        lambda a, b, c: attention.dot_product_attention(
            a, b, c, masks.longformer_mask(n, window, glob, dilation)
        )
    )(*args)
    assert_close(out, core_ref)


def test_bigbird_counts_each_key_once():
    n, window, glob = 14, 3, [2, 9]
    q, k, v = qkv(2, n)
    keys = np.array(jax.jit(blocked.random_keys, static_argnums=(1, 2))(jax.random.key(0), n, 4))
    keys[:, 3] = keys[:, 0]  # a repeated random key
    keys[5, 1] = 5  # the query itself: already in the window
    keys[6, 2] = 9  # a global key
    ref = np_masked_attention(q, k, v, np_mask(n, window, 1, glob, keys))
    args = tuple(map(jnp.asarray, (q, k, v, keys)))
    out = jax.jit(lambda a, b, c, r: blocked.bigbird_attention(a, b, c, window, glob, r))(*args)
    assert_close(out, ref)

    def dense(a, b, c, r):
        mask = (
            masks.sliding_window_mask(n, window) | masks.global_mask(n, glob) | blocked.keys_mask(r)
        )
        return attention.dot_product_attention(a, b, c, mask)[0]

    assert_close(out, jax.jit(dense)(*args))


def test_random_keys_are_distinct_uniform_subsets():
    n, r = 6, 3
    keys = np.asarray(blocked.random_keys(jax.random.key(1), n, r))
    assert keys.shape == (n, r) and keys.min() >= 0 and keys.max() < n
    assert all(len(set(row)) == r for row in keys)
    # Uniform over the C(6, 3) = 20 subsets: chi-square over 24000 rows (4000 draws of 6 rows).
    # With 20 cells the statistic has mean 19 and sd ~6; 60 is beyond any plausible fluctuation,
    # while a draw that favoured some subsets by 10% would give ~120.
    draws = jax.random.split(jax.random.key(2), 4000)
    rows = np.asarray(jax.jit(jax.vmap(lambda kk: blocked.random_keys(kk, n, r)))(draws))
    rows = rows.reshape(-1, r)
    codes = np.sort(rows, axis=1) @ np.array([36, 6, 1])
    counts = np.unique(codes, return_counts=True)[1]
    assert len(counts) == 20
    expected = len(rows) / 20
    assert ((counts - expected) ** 2 / expected).sum() < 60


def test_float32_stays_close_to_float64():
    # float32 rounding in exp and a few dozen-term sums: RTOL32 of the suite.
    n = 33
    q, k, v = qkv(3, n)
    ref = np_masked_attention(q, k, v, np_mask(n, 7, 1, [0]))
    f = jax.jit(lambda a, b, c: blocked.longformer_attention(a, b, c, 7, [0]))
    out = f(*(jnp.asarray(a, jnp.float32) for a in (q, k, v)))
    assert out.dtype == jnp.float32
    assert_close(out, ref, dtype="float32")


def test_no_quadratic_intermediate():
    # The compiled program holds no n x n buffer: its temporaries grow linearly with n.
    def temp_bytes(n):
        x = jax.ShapeDtypeStruct((n, 16), jnp.float32)
        f = jax.jit(lambda q, k, v: blocked.longformer_attention(q, k, v, 8, [0]))
        return f.lower(x, x, x).compile().memory_analysis().temp_size_in_bytes

    small, large = temp_bytes(1024), temp_bytes(4096)
    assert large < 5 * small, (small, large)  # a quadratic program would grow ~16x


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda q: blocked.sliding_window_attention(q, q, q, 0), "window"),
        (lambda q: blocked.sliding_window_attention(q, q, q, 9, block_size=2), "block_size"),
        (lambda q: blocked.longformer_attention(q, q, q, 3, [8]), "global_indices"),
        (lambda q: blocked.longformer_attention(q, q[:3], q, 3, []), "k_NxE"),
        (
            lambda q: blocked.bigbird_attention(q, q, q, 3, [], jnp.zeros((2, 1), jnp.int32)),
            "keys_NxK",
        ),
        (lambda q: blocked.bigbird_attention(q, q, q, 3, [], jnp.full((8, 1), 8)), "keys_NxK"),
        (lambda q: blocked.random_keys(jax.random.key(0), 3, 4), "num_random"),
    ],
)
def test_bad_arguments_name_the_argument(call, needle):
    with pytest.raises(ValueError, match=needle):
        call(jnp.ones((8, 4)))
