"""Properties of the attention core (hypothesis), each against a float64 NumPy reference.

- Convex hull: the NORMALIZED kinds (softmax, leftmost-/average-hard, sparsemax) give every query
  with at least one allowed key an output in the convex hull of the allowed keys' values; checked
  directly (``u . out <= max_j u . v_j`` for random directions ``u``), not through the weights.
  Chen & Zou 2024's ReLU attention (eq. 2) is NOT normalized -- its weights are ``relu(s_ij)``,
  summing to anything -- so the hull property does not apply to it; the test instead pins its
  output to ``relu(S) V`` and shows that the hull property fails for it on a concrete input.
- Without positional codes a non-causal model is permutation-equivariant (permuting the tokens
  permutes every residual stream and attention map) and a causal one is prefix-consistent (the
  first ``m`` positions of a length-``n`` run equal a run on the first ``m`` tokens).
- Causal linear attention (prefix sums) equals its quadratic form (Conti 2024, eq. 15) and a NumPy
  reference.
- Blocked Longformer / BigBird attention equals dense masked softmax for any window, dilation,
  block size, global set and random-key table (the mask built in NumPy from the definitions).

Tolerances: float64, O(1) data, sums of at most a few dozen terms: rounding is a small multiple of
eps64 ~ 2.2e-16 times the magnitudes involved, so 1e-12 relative to the largest magnitude leaves
three orders of headroom and still catches any wrong or missing term. Shapes come from a small
set so that each jitted function compiles a handful of times.
"""

from __future__ import annotations

import functools
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from transformer_theory.core import attention, blocked, kernels, linear
from transformer_theory.core.forward import forward_trace
from transformer_theory.params import ModelConfig, init_params

TOL = 1e-12
NORMALIZED = ("softmax", "hard_leftmost", "hard_average", "sparsemax")

# Shapes drawn from a small set: (queries, keys, width)
SHAPES = [(1, 1, 1), (3, 4, 2), (5, 5, 3)]


def _floats(lo=-8.0, hi=8.0):
    # No subnormals: XLA's CPU backend flushes them to zero (FTZ/DAZ) where NumPy keeps them,
    # so a score of 5e-324 is a difference of the platforms, not of the attention formula.
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False, allow_subnormal=False, width=64)


@st.composite
def attention_inputs(draw):
    q, k, d = draw(st.sampled_from(SHAPES))
    scores = draw(hnp.arrays(np.float64, (q, k), elements=_floats()))
    values = draw(hnp.arrays(np.float64, (k, d), elements=_floats()))
    mask = draw(hnp.arrays(np.bool_, (q, k)))
    return scores, values, mask


@functools.partial(jax.jit, static_argnames="kind")
def _outputs(scores, values, mask, kind):
    w = attention.attention_weights(scores, kind, mask)
    return w @ values, w


@pytest.mark.parametrize("kind", NORMALIZED)
@given(data=attention_inputs(), seed=st.integers(0, 2**32 - 1))
def test_normalized_attention_output_in_convex_hull(kind, data, seed):
    scores, values, mask = data
    out, _ = (np.asarray(x) for x in _outputs(scores, values, mask, kind))
    scale = max(1.0, np.abs(values).max())
    dirs = np.random.default_rng(seed).standard_normal((16, values.shape[1]))
    dirs = np.concatenate([dirs, np.eye(values.shape[1]), -np.eye(values.shape[1])])
    for i in range(scores.shape[0]):
        allowed = np.flatnonzero(mask[i])
        if allowed.size == 0:  # a fully masked query: zero output, never NaN
            np.testing.assert_array_equal(out[i], 0.0)
            continue
        # A point lies in the hull iff no direction separates it: u.out <= max_j u.v_j for all u.
        # Checking the coordinate axes (both signs) and 16 random directions.
        support = (dirs @ values[allowed].T).max(axis=1)
        np.testing.assert_array_less(dirs @ out[i], support + TOL * scale * 4)


@given(data=attention_inputs())
def test_relu_attention_is_unnormalized_relu_times_values(data):
    scores, values, mask = data
    out, w = (np.asarray(x) for x in _outputs(scores, values, mask, "relu"))
    ref_w = np.where(mask, np.maximum(scores, 0.0), 0.0)
    np.testing.assert_allclose(w, ref_w, rtol=0, atol=0)
    np.testing.assert_allclose(out, ref_w @ values, rtol=TOL, atol=TOL * 64)


def test_relu_attention_leaves_the_convex_hull():
    # Chen & Zou 2024, eq. 2 weights are relu(s), not normalized: scores (2, 2) on the values 1, 1
    # give 4, outside the hull {1}. This is why the hull property is tested on normalized kinds.
    out, _ = _outputs(
        np.array([[2.0, 2.0]]), np.array([[1.0], [1.0]]), np.ones((1, 2), bool), "relu"
    )
    assert float(out[0, 0]) == 4.0


# ----------------------------------------------------------------- permutation / prefix


N_TOKENS, VOCAB, SEQS = 5, 4, 6
# (kind, heads, Pre-LN norm1 + MLP): four models, each compiled once per test, so the examples
# vary the tokens and the permutation, not the compile. Between them: every normalized and the
# unnormalized kind, one and several heads, one and two layers, with and without norm1 + MLP.
MODELS = [
    ("relu", (1,), False),
    ("softmax", (2, 1), True),
    ("hard_average", (2, 1), False),
    ("sparsemax", (1, 1), True),
]


@functools.cache
def _model(kind: str, heads: tuple, preln: bool, causal: bool):
    cfg = ModelConfig(
        vocab_size=VOCAB,
        seq_len=N_TOKENS,
        width=VOCAB + 2,
        num_classes=3,
        heads=heads,
        attention=kind,
        causal=causal,
        positional="none",
        norm1="layernorm" if preln else None,
        mlp_hidden=4 if preln else None,
    )
    # Weights drawn in NumPy onto init_params' shapes (no compile of the threefry RNG); norm
    # gains ~ N(1, 0.1) and biases ~ N(0, 0.1) so that no part is an identity.
    rng = np.random.default_rng(zlib.crc32(repr((kind, heads, preln, causal)).encode()))
    shapes = jax.eval_shape(lambda k: init_params(k, cfg, dtype=jnp.float64), jax.random.key(0))

    def draw(path, leaf):
        if jax.tree_util.keystr(path).endswith(".scale"):
            return jnp.asarray(1.0 + 0.1 * rng.standard_normal(leaf.shape))
        return jnp.asarray(rng.standard_normal(leaf.shape) / np.sqrt(leaf.shape[-1]))

    params = jax.tree_util.tree_map_with_path(draw, shapes)
    run = jax.jit(jax.vmap(forward_trace, in_axes=(None, 0)))
    return params, run


token_batches = hnp.arrays(np.int32, (SEQS, N_TOKENS), elements=st.integers(0, VOCAB - 1))


@given(model=st.sampled_from(MODELS), tokens=token_batches, perm=st.permutations(range(N_TOKENS)))
def test_no_positions_noncausal_is_permutation_equivariant(model, tokens, perm):
    params, run = _model(*model, causal=False)
    perm = np.asarray(perm)
    a, b = run(params, jnp.asarray(tokens)), run(params, jnp.asarray(tokens[:, perm]))
    sa, sb = np.asarray(a.streams_LxNxD), np.asarray(b.streams_LxNxD)  # (B, L+1, N, D)
    scale = max(1.0, np.abs(sa).max())
    # Every residual stream H^(l): the permuted input's row i is the original's row perm[i].
    np.testing.assert_allclose(sb, sa[:, :, perm], rtol=0, atol=TOL * scale)
    if model[0].startswith("hard"):
        # Hard attention decides ties by exact equality of computed scores, and XLA's CPU dot
        # rounds the same key differently at different columns (SIMD tail): five identical
        # streams gave scores 1 ulp apart, and average-hard attention weighted 4 of the 5 keys.
        # The streams above agree (tied keys carry the same value); the maps need not.
        return
    for wa, wb in zip(a.attention, b.attention):  # (B, H, N, N)
        wa, wb = np.asarray(wa), np.asarray(wb)
        np.testing.assert_allclose(wb, wa[:, :, perm][:, :, :, perm], rtol=0, atol=TOL * scale)


@given(
    model=st.sampled_from(MODELS),
    tokens=token_batches,
    other=token_batches,
    m=st.integers(1, N_TOKENS - 1),
)
def test_no_positions_causal_is_prefix_consistent(model, tokens, other, m):
    # Two inputs that agree on the first m tokens agree on the first m positions of every stream:
    # position i of a causal model reads tokens <= i only. (Same shape for both: one compile.)
    params, run = _model(*model, causal=True)
    changed = np.concatenate([tokens[:, :m], other[:, m:]], axis=1)
    a = np.asarray(run(params, jnp.asarray(tokens)).streams_LxNxD)
    b = np.asarray(run(params, jnp.asarray(changed)).streams_LxNxD)
    scale = max(1.0, np.abs(a).max())
    np.testing.assert_allclose(b[:, :, :m], a[:, :, :m], rtol=0, atol=TOL * scale)


# ----------------------------------------------------------------- linear attention

FEATURE_MAPS = {"elu+1": kernels.elu_plus_one, "taylor": kernels.taylor_feature_map}


def _np_feature(name, x):
    if name == "elu+1":
        return np.where(x > 0, x + 1.0, np.exp(x))
    xh = x / np.linalg.norm(x, axis=-1, keepdims=True)
    return np.concatenate([np.ones((x.shape[0], 1)), xh], axis=1)


@functools.partial(jax.jit, static_argnames="fmap")
def _linear_pair(q, k, v, fmap):
    f = FEATURE_MAPS[fmap]
    return (
        linear.linear_attention(q, k, v, f, causal=True),
        linear.linear_attention_quadratic(q, k, v, f, causal=True)[0],
    )


@pytest.mark.parametrize("fmap", sorted(FEATURE_MAPS))
@given(
    n=st.sampled_from([1, 4, 7]),
    data=st.data(),
)
def test_causal_linear_attention_equals_quadratic_form(fmap, n, data):
    e, d = 3, 2
    # Taylor's phi normalizes q and k: keep them away from 0 (the map is undefined there).
    lo = 0.25 if fmap == "taylor" else -3.0
    q = data.draw(hnp.arrays(np.float64, (n, e), elements=_floats(lo, 3.0)))
    k = data.draw(hnp.arrays(np.float64, (n, e), elements=_floats(lo, 3.0)))
    v = data.draw(hnp.arrays(np.float64, (n, d), elements=_floats()))
    fast, quad = (np.asarray(x) for x in _linear_pair(q, k, v, fmap))
    fq, fk = _np_feature(fmap, q), _np_feature(fmap, k)
    sim = np.tril(fq @ fk.T)  # similarities are > 0 for both maps (elu+1 > 0; 1 + cos >= 0)
    den = sim.sum(axis=1, keepdims=True)
    ref = np.where(den > 0, (sim @ v) / np.where(den > 0, den, 1.0), 0.0)
    # The taylor similarity 1 + cos can be ~0 for one key, never for a whole row that includes
    # the query itself (1 + cos(q, k) with q, k in the positive orthant is >= 1).
    scale = max(1.0, np.abs(v).max())
    np.testing.assert_allclose(quad, ref, rtol=0, atol=1e-11 * scale)
    np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-11 * scale)


# ----------------------------------------------------------------- blocked sparse attention


def _np_sparse_mask(n, window, dilation, glob, keys):
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    off = j - i
    m = (np.abs(off) <= dilation * (window // 2)) & (off % dilation == 0)
    g = np.zeros(n, bool)
    g[list(glob)] = True
    m |= g[:, None] | g[None, :]
    if keys is not None:
        for row, ks in enumerate(keys):
            m[row, ks] = True
    return m


def _np_dense(q, k, v, mask):
    s = q @ k.T / np.sqrt(q.shape[1])
    s = np.where(mask, s, -np.inf)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    return (w / w.sum(axis=1, keepdims=True)) @ v


BLOCK_N = [5, 8, 11]


@st.composite
def sparse_patterns(draw, bigbird: bool):
    n = draw(st.sampled_from(BLOCK_N))
    window = draw(st.integers(1, n + 2))
    dilation = 1 if bigbird else draw(st.integers(1, 3))
    half = window // 2
    block = draw(st.one_of(st.none(), st.integers(max(half, 1), max(half, 1) + 3)))
    glob = draw(st.lists(st.integers(0, n - 1), max_size=3))
    keys = None
    if bigbird:
        r = draw(st.integers(0, 3))
        keys = draw(hnp.arrays(np.int32, (n, r), elements=st.integers(0, n - 1)))
    return n, window, dilation, block, glob, keys


def _few():
    # Each blocked pattern is one compile (~1 s on 2 loaded cores): a third of the profile's
    # examples, each checking DRAWS random (q, k, v) at once.
    return settings(max_examples=max(5, settings.default.max_examples // 3))


DRAWS = 8


@functools.cache
def _blocked_fn(n, window, dilation, block, glob, keys):
    # keys: None (Longformer) or (r, flat tuple of the (n, r) table) -- hashable for the cache
    keys_arr = (
        None if keys is None else jnp.asarray(np.array(keys[1], np.int32).reshape(n, keys[0]))
    )

    def one(q, k, v):
        if keys_arr is None:
            return blocked.longformer_attention(
                q, k, v, window, list(glob), dilation=dilation, block_size=block
            )
        return blocked.bigbird_attention(q, k, v, window, list(glob), keys_arr, block_size=block)

    return jax.jit(jax.vmap(one))


def _check_blocked(pattern, seed):
    n, window, dilation, block, glob, keys = pattern
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((DRAWS, n, 3)) * 2 for _ in range(3))
    key_tuple = None if keys is None else (keys.shape[1], tuple(keys.ravel().tolist()))
    fn = _blocked_fn(n, window, dilation, block, tuple(glob), key_tuple)
    out = np.asarray(fn(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v)))
    mask = _np_sparse_mask(n, window, dilation, glob, keys)
    for b in range(DRAWS):
        ref = _np_dense(q[b], k[b], v[b], mask)
        np.testing.assert_allclose(out[b], ref, rtol=0, atol=TOL * np.abs(v[b]).max())


@_few()
@given(pattern=sparse_patterns(False), seed=st.integers(0, 2**32 - 1))
def test_longformer_equals_dense_masked_attention(pattern, seed):
    _check_blocked(pattern, seed)


@_few()
@given(pattern=sparse_patterns(True), seed=st.integers(0, 2**32 - 1))
def test_bigbird_equals_dense_masked_attention(pattern, seed):
    _check_blocked(pattern, seed)
