"""The core's float32-meaningful properties with ``jax_enable_x64`` OFF, as JAX's own suite runs.

The suite enables x64 (``tests/conftest.py``); here each property runs inside
``jax.enable_x64(False)``, so every default dtype is 32-bit (``jnp.arange`` gives int32, Python
floats float32) and an accidental float64 or int64 inside the library would either fail or show
up as a dtype check below. Inputs are float32; references are float64 NumPy on the SAME float32
inputs. Hard attention is left out: its ties are decided by exact score equality, which float32
rounding decides differently on different CPUs.

Tolerances are derived from ``eps32 = 2^-23`` (Higham's ``gamma_k ~ k eps`` for a ``k``-term sum)
with a factor 4 of headroom, never from one machine's rounding:

- weighted averages of ``K`` values (softmax, sparsemax): the weights carry a relative error of a
  few eps (exp, the row sum, the division) and the sum ``K`` more, so ``|out - ref| <=
  (2K + 4) eps max|v|``;
- scores ``q . k / sqrt(E)`` carry an absolute error ``(E + 2) eps max|s|``, which ``exp`` turns
  into the same relative error of every weight (twice: numerator and normalizer);
- linear attention: numerator and denominator are ``n``-term sums of ``E``-term products of
  positive similarities, so the ratio's error is ``2 (n + E + 2) eps max|v|``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.properties.test_attention_properties import (
    _few,
    _np_dense,
    _np_feature,
    _np_sparse_mask,
    sparse_patterns,
)
from transformer_theory.core import attention, blocked, kernels, linear

EPS32 = float(np.finfo(np.float32).eps)
HEADROOM = 4.0
F32 = np.float32


def _f32(lo=-8.0, hi=8.0):
    # No subnormals: XLA's CPU backend flushes them to zero (FTZ/DAZ) where NumPy keeps them,
    # so a score of 5e-324 is a difference of the platforms, not of the attention formula.
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False, allow_subnormal=False, width=32)


@functools.partial(jax.jit, static_argnames="kind")
def _weights_out(scores, values, mask, kind):
    w = attention.attention_weights(scores, kind, mask)
    return w @ values


@pytest.mark.parametrize("kind", ["softmax", "sparsemax"])
@given(
    shape=st.sampled_from([(3, 4, 2), (5, 5, 3)]),
    data=st.data(),
)
def test_float32_normalized_attention_matches_float64_reference(kind, shape, data):
    q, k, d = shape
    scores = data.draw(hnp.arrays(F32, (q, k), elements=_f32()))
    values = data.draw(hnp.arrays(F32, (k, d), elements=_f32()))
    mask = data.draw(hnp.arrays(np.bool_, (q, k)))
    with jax.enable_x64(False):
        out = _weights_out(jnp.asarray(scores), jnp.asarray(values), jnp.asarray(mask), kind)
        assert out.dtype == jnp.float32
        out = np.asarray(out, np.float64)
    s, v = scores.astype(np.float64), values.astype(np.float64)
    for i in range(q):
        js = np.flatnonzero(mask[i])
        if js.size == 0:
            np.testing.assert_array_equal(out[i], 0.0)
            continue
        if kind == "softmax":
            w = np.exp(s[i, js] - s[i, js].max())
            w /= w.sum()
        else:  # sparsemax (Martins & Astudillo 2016): projection onto the simplex
            z = np.sort(s[i, js])[::-1]
            kk = np.arange(1, len(z) + 1)
            support = kk[1 + kk * z > np.cumsum(z)].max()
            tau = (z[:support].sum() - 1) / support
            w = np.maximum(s[i, js] - tau, 0.0)
            # sparsemax's weights are differences of scores: their error is absolute, eps * max|s|
            # per term of tau's sum, not relative.
        tol = (2 * len(js) + 4) * EPS32 * np.abs(v).max()
        if kind == "sparsemax":
            tol += (len(js) + 2) * EPS32 * np.abs(s[i, js]).max() * len(js) * np.abs(v).max()
        np.testing.assert_allclose(out[i], w @ v[js], rtol=0, atol=HEADROOM * tol + 1e-30)


FEATURE_MAPS = {"elu+1": kernels.elu_plus_one, "taylor": kernels.taylor_feature_map}


@functools.partial(jax.jit, static_argnames="fmap")
def _linear_pair(q, k, v, fmap):
    f = FEATURE_MAPS[fmap]
    return (
        linear.linear_attention(q, k, v, f, causal=True),
        linear.linear_attention_quadratic(q, k, v, f, causal=True)[0],
    )


@pytest.mark.parametrize("fmap", sorted(FEATURE_MAPS))
@given(n=st.sampled_from([4, 7]), data=st.data())
def test_float32_causal_linear_attention(fmap, n, data):
    e, d = 3, 2
    lo = 0.25 if fmap == "taylor" else -3.0
    q = data.draw(hnp.arrays(F32, (n, e), elements=_f32(lo, 3.0)))
    k = data.draw(hnp.arrays(F32, (n, e), elements=_f32(lo, 3.0)))
    v = data.draw(hnp.arrays(F32, (n, d), elements=_f32()))
    with jax.enable_x64(False):
        fast, quad = _linear_pair(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), fmap)
        assert fast.dtype == quad.dtype == jnp.float32
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    sim = np.tril(_np_feature(fmap, q64) @ _np_feature(fmap, k64).T)
    ref = (sim @ v64) / sim.sum(axis=1, keepdims=True)
    # elu+1 and the Taylor map's normalization add one rounding each to the features.
    tol = HEADROOM * 2 * (n + e + 4) * EPS32 * np.abs(v64).max()
    np.testing.assert_allclose(np.asarray(fast, np.float64), ref, rtol=0, atol=tol)
    np.testing.assert_allclose(np.asarray(quad, np.float64), ref, rtol=0, atol=tol)


@functools.cache
def _blocked32(n, window, dilation, block, glob, keys):
    keys_arr = None if keys is None else np.array(keys[1], np.int32).reshape(n, keys[0])

    def one(q, k, v):
        if keys_arr is None:
            return blocked.longformer_attention(
                q, k, v, window, list(glob), dilation=dilation, block_size=block
            )
        return blocked.bigbird_attention(
            q, k, v, window, list(glob), jnp.asarray(keys_arr), block_size=block
        )

    return jax.jit(one)


@_few()
@pytest.mark.parametrize("bigbird", [False, True])
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_float32_blocked_attention_matches_dense_reference(bigbird, data, seed):
    n, window, dilation, block, glob, keys = data.draw(sparse_patterns(bigbird))
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((n, 3)).astype(F32) * 2 for _ in range(3))
    key_t = None if keys is None else (keys.shape[1], tuple(keys.ravel().tolist()))
    with jax.enable_x64(False):
        out = _blocked32(n, window, dilation, block, tuple(glob), key_t)(
            jnp.asarray(q), jnp.asarray(k), jnp.asarray(v)
        )
        assert out.dtype == jnp.float32
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    mask = _np_sparse_mask(n, window, dilation, glob, keys)
    ref = _np_dense(q64, k64, v64, mask)
    s_max = np.abs(q64 @ k64.T / np.sqrt(3)).max(axis=1, keepdims=True)
    row_k = mask.sum(axis=1, keepdims=True)
    tol = HEADROOM * (2 * (3 + 2) * s_max + 2 * row_k + 4) * EPS32 * np.abs(v64).max()
    assert np.all(np.abs(np.asarray(out, np.float64) - ref) <= tol)
