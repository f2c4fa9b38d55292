"""Sparsemax attention (Martins & Astudillo 2016) against an independent float64 reference.

The reference finds the threshold ``tau`` of the simplex projection by bisection on the monotone
function ``sum_j max(z_j - tau, 0) - 1`` (no sorting, unlike the library's Algorithm 1), to 200
halvings: far below float64 resolution, so the only error left is the library's own rounding
(a few ulps of O(1) numbers: ``RTOL64``).
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory.core import attention


def sparsemax_reference(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, np.float64)
    lo, hi = z.max() - 1.0, z.max()  # sum(max(z - tau, 0)) is >= 1 at lo and 0 at hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.maximum(z - mid, 0).sum() >= 1.0:
            lo = mid
        else:
            hi = mid
    return np.maximum(z - 0.5 * (lo + hi), 0.0)


def test_matches_bisection_reference_on_random_rows():
    rng = np.random.default_rng(0)
    for scale in (0.1, 1.0, 10.0):
        z = rng.normal(size=(6, 9)) * scale
        got = attention.sparsemax_weights(jnp.asarray(z))
        want = np.stack([sparsemax_reference(r) for r in z])
        assert_close(got, want)


def test_exhaustive_small_grid_is_the_simplex_projection():
    """Every row of 3 scores on a grid of steps 1/2 in [-2, 2] (9^3 rows): the reference agrees,
    weights are >= 0 and sum to 1, and the KKT conditions of the projection hold."""
    grid = np.arange(-2.0, 2.01, 0.5)
    rows = np.array(list(itertools.product(grid, repeat=3)))
    got = np.asarray(attention.sparsemax_weights(jnp.asarray(rows)))
    want = np.stack([sparsemax_reference(r) for r in rows])
    assert_close(got, want)
    assert (got >= 0).all()
    np.testing.assert_allclose(got.sum(-1), 1.0, rtol=1e-12)
    # KKT: z_j - p_j equals one tau on the support and is <= tau off it.
    for z, p in zip(rows, got):
        tau = (z - p)[p > 0]
        assert np.ptp(tau) < 1e-12
        assert (z[p == 0] <= tau[0] + 1e-12).all()


def test_one_hot_when_the_top_score_leads_by_one():
    z = jnp.array([[0.3, 1.3, -5.0, 0.2], [2.0, 0.5, 1.0, 0.99]])
    w = attention.sparsemax_weights(z)
    np.testing.assert_array_equal(np.asarray(w), [[0, 1, 0, 0], [1, 0, 0, 0]])


def test_ties_share_the_mass_exactly():
    w = attention.sparsemax_weights(jnp.array([[0.0, 0.0, 0.0, -1.0]]))
    assert_close(w, np.array([[1 / 3, 1 / 3, 1 / 3, 0.0]]))


def test_mask_and_fully_masked_row():
    z = jnp.array([[5.0, 0.0, 0.1], [1.0, 2.0, 3.0]])
    mask = jnp.array([[False, True, True], [False, False, False]])
    w = np.asarray(attention.sparsemax_weights(z, mask))
    want = sparsemax_reference(np.array([0.0, 0.1]))
    assert_close(w[0], np.array([0.0, *want]))
    np.testing.assert_array_equal(w[1], 0.0)


def test_dispatch_and_gradient_is_finite():
    z = jnp.array([[0.1, 0.4, 0.3]])
    assert_close(attention.attention_weights(z, "sparsemax"), attention.sparsemax_weights(z))
    g = jax.grad(lambda s: attention.sparsemax_weights(s)[0, 1])(z)
    assert np.isfinite(np.asarray(g)).all()
    # On the support the Jacobian is I - 1 1^T / |S| (Martins & Astudillo 2016, eq. 11).
    assert_close(g, np.array([[-1 / 3, 2 / 3, -1 / 3]]))


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="scores_QxK"):
        attention.sparsemax_weights(jnp.zeros(3))
    with pytest.raises(ValueError, match="kind"):
        attention.attention_weights(jnp.zeros((2, 2)), "sparse")
