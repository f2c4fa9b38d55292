"""Positive random features (Choromanski et al. 2021) estimate exp(q . k / sqrt(E)) without bias."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory.core import linear, random_features


def test_kernel_estimate_is_unbiased_and_shrinks_with_features():
    rng = np.random.default_rng(0)
    e = 4
    q, k = 0.7 * rng.normal(size=(3, e)), 0.7 * rng.normal(size=(5, e))
    exact = np.exp(q @ k.T / np.sqrt(e))
    errs = []
    for m in (64, 4096):
        omega = random_features.random_directions(jax.random.key(m), m, e, jnp.float64)
        phi = random_features.positive_random_features(omega)
        fq, fk = np.asarray(phi(jnp.asarray(q))), np.asarray(phi(jnp.asarray(k)))
        assert (fq > 0).all() and (fk > 0).all()
        # The shared shifts of the two matrices are unknown constants; compare ratios per query.
        est = fq @ fk.T
        ratio = est / est.sum(1, keepdims=True) / (exact / exact.sum(1, keepdims=True))
        errs.append(np.abs(ratio - 1).max())
    # Monte-Carlo error ~ c / sqrt(m): 64x more features -> ~8x smaller; demand at least 3x.
    assert errs[1] < errs[0] / 3 and errs[1] < 0.1, errs


def test_linear_attention_with_many_features_approaches_softmax():
    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=(6, 4)) * 0.5 for _ in range(3))
    s = q @ k.T / 2.0
    w = np.exp(s) / np.exp(s).sum(1, keepdims=True)
    omega = random_features.random_directions(jax.random.key(0), 8192, 4, jnp.float64)
    out = linear.linear_attention(
        *map(jnp.asarray, (q, k, v)), random_features.positive_random_features(omega)
    )
    # 8192 features: relative kernel error ~ 1/sqrt(8192) ~ 1%, so outputs within 0.05.
    np.testing.assert_allclose(np.asarray(out), w @ v, atol=0.05)


def test_bad_width_is_named():
    phi = random_features.positive_random_features(jnp.ones((3, 4)))
    with pytest.raises(ValueError, match="x_NxE"):
        phi(jnp.ones((2, 5)))
