"""Masks (Conti 2024, §2.1.1 sparse patterns, Chen & Zou 2024, Lemma 2 constrained attention)
against loops.

Each reference is a plain double loop over (query i, key j) written from the paper's words; masks
are boolean, so the comparisons are exact.
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory.core import attention, masks

WEIGHT_KINDS = ["relu", "softmax", "hard_leftmost", "hard_average"]


def ref_window(n, w, d=1, causal=False):
    m = np.zeros((n, n), bool)
    for i in range(n):
        for k in range(-(w // 2), w // 2 + 1):  # "w/2 tokens on each side", every d-th
            j = i + k * d
            if 0 <= j < n and (not causal or j <= i):
                m[i, j] = True
    return m


@pytest.mark.parametrize("n,w,d", list(itertools.product([1, 5, 8], [1, 2, 3, 4, 5], [1, 2, 3])))
def test_window_masks_match_loop(n, w, d):
    np.testing.assert_array_equal(masks.dilated_window_mask(n, w, d), ref_window(n, w, d))
    np.testing.assert_array_equal(
        masks.dilated_window_mask(n, w, d, causal=True), ref_window(n, w, d, causal=True)
    )
    if d == 1:
        np.testing.assert_array_equal(masks.sliding_window_mask(n, w), ref_window(n, w))


def test_global_mask_and_longformer():
    n, g = 7, [0, 4]
    ref = np.zeros((n, n), bool)
    for i in range(n):
        for j in range(n):
            ref[i, j] = i in g or j in g
    np.testing.assert_array_equal(masks.global_mask(n, g), ref)
    np.testing.assert_array_equal(
        masks.global_mask(n, jnp.array(np.isin(np.arange(n), g))), ref
    )  # boolean form
    np.testing.assert_array_equal(masks.global_mask(n, []), np.zeros((n, n), bool))
    np.testing.assert_array_equal(
        masks.longformer_mask(n, 3, g, dilation=2), ref_window(n, 3, 2) | ref
    )


def test_random_mask_rows_have_r_distinct_keys_and_depend_on_key_only():
    n, r = 9, 3
    m1 = np.asarray(masks.random_mask(jax.random.PRNGKey(0), n, r))
    assert (m1.sum(axis=1) == r).all()
    np.testing.assert_array_equal(m1, masks.random_mask(jax.random.PRNGKey(0), n, r))
    assert not np.array_equal(m1, masks.random_mask(jax.random.PRNGKey(1), n, r))
    assert (
        np.asarray(
            jax.jit(masks.random_mask, static_argnums=(1, 2))(jax.random.PRNGKey(0), n, r)
        ).sum()
        == n * r
    )
    # Uniformity: every key is chosen with probability r/n per query (400 draws, 5 sigma bound).
    freq = np.mean(
        [np.asarray(masks.random_mask(jax.random.PRNGKey(s), n, r)) for s in range(400)], axis=0
    )
    p = r / n
    assert np.abs(freq - p).max() < 5 * np.sqrt(p * (1 - p) / 400)


def test_bigbird_is_union_of_its_parts():
    key, n = jax.random.PRNGKey(3), 10
    got = masks.bigbird_mask(key, n, 3, [1], 2)
    ref = (
        ref_window(n, 3)
        | np.asarray(masks.global_mask(n, [1]))
        | np.asarray(masks.random_mask(key, n, 2))
    )
    np.testing.assert_array_equal(got, ref)
    assert np.asarray(got).diagonal().all()  # the window always contains the query itself


def test_block_and_pairs_masks():
    seg = jnp.array([0, 0, 1, 1, 1, 2])
    ref = np.array([[a == b for b in seg.tolist()] for a in seg.tolist()])
    np.testing.assert_array_equal(masks.block_mask(seg), ref)
    pairs = [(0, 1), (2, 2), (3, 0)]
    ref = np.zeros((4, 4), bool)
    for i, j in pairs:
        ref[i, j] = True
    np.testing.assert_array_equal(masks.pairs_mask(4, pairs), ref)
    np.testing.assert_array_equal(masks.pairs_mask(4, pairs, allow=False), ~ref)


def test_constrained_w_pp_realizes_mask_lemma2():
    """Lemma 2: with P = I, scores + W_pp reproduce the masked weights (ReLU: exactly)."""
    rng = np.random.default_rng(0)
    n = 6
    mask = rng.random((n, n)) < 0.5
    mask[2] = False  # a fully masked query
    scores = rng.normal(size=(n, n))  # the token terms, in the library's [query, key] layout
    w_pp = np.asarray(masks.constrained_w_pp(jnp.array(mask), 100.0, jnp.float64))
    # Paper layout: H^T W_QK H [j, i] (key j, query i) = scores.T + W_pp; transpose back.
    paper_scores = scores.T + w_pp
    relu_ref = np.where(mask, np.maximum(scores, 0), 0.0)
    assert_close(attention.relu_weights(jnp.array(paper_scores.T)), relu_ref)
    soft = np.asarray(attention.softmax_weights(jnp.array(paper_scores.T)))
    masked = np.asarray(attention.softmax_weights(jnp.array(scores), jnp.array(mask)))
    ok = mask.any(
        axis=1
    )  # a row with no allowed key is uniform under the bias, zero under the mask
    # Leakage onto masked keys is ~exp(-100 + score range) ~ 1e-40, far below the float64 tolerance.
    assert_close(soft[ok], masked[ok])


@pytest.mark.parametrize("kind", WEIGHT_KINDS)
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_fully_masked_rows_are_zero_and_gradients_finite(kind, dtype):
    rng = np.random.default_rng(1)
    s = jnp.asarray(rng.normal(size=(5, 5)) * 50, dtype)  # large scores to stress exp overflow
    mask = np.ones((5, 5), bool)
    mask[1] = False
    mask[3, 1:] = False
    f = jax.jit(lambda x: attention.attention_weights(x, kind, jnp.asarray(mask)))
    w = f(s)
    assert np.isfinite(np.asarray(w)).all()
    np.testing.assert_array_equal(np.asarray(w)[1], 0.0)
    np.testing.assert_array_equal(np.asarray(w)[~mask], 0.0)
    g = jax.grad(lambda x: jnp.sum(f(x) * jnp.arange(25, dtype=dtype).reshape(5, 5)))(s)
    assert np.isfinite(np.asarray(g)).all()
    if kind == "softmax":
        np.testing.assert_array_equal(np.asarray(g)[1], 0.0)
        assert_close(np.asarray(w)[3], np.eye(5)[0], dtype="float32")


def test_bad_mask_arguments_raise():
    with pytest.raises(ValueError, match="window"):
        masks.sliding_window_mask(4, 0)
    with pytest.raises(ValueError, match="dilation"):
        masks.dilated_window_mask(4, 3, 0)
    with pytest.raises(ValueError, match="global_indices"):
        masks.global_mask(4, [5])
    with pytest.raises(ValueError, match="num_random"):
        masks.random_mask(jax.random.PRNGKey(0), 4, 5)
    with pytest.raises(ValueError, match="pairs"):
        masks.pairs_mask(3, [(0, 3)])
    with pytest.raises(ValueError, match="mask_NxN"):
        masks.constrained_w_pp(jnp.ones((2, 3), bool), 10.0)
    with pytest.raises(ValueError, match="segment_ids_N"):
        masks.block_mask(jnp.zeros((2, 2), int))


def test_causal_padding_masks_and_vmap_over_keys():
    n = 5
    np.testing.assert_array_equal(
        masks.causal_mask(n), [[j <= i for j in range(n)] for i in range(n)]
    )
    valid = np.array([True, True, False, True, False])
    np.testing.assert_array_equal(
        masks.padding_mask(jnp.asarray(valid)), [[valid[j] for j in range(n)] for i in range(n)]
    )
    keys = jax.random.split(jax.random.PRNGKey(9), 4)
    batched = jax.vmap(lambda k: masks.random_mask(k, n, 2))(keys)
    np.testing.assert_array_equal(
        batched, np.stack([np.asarray(masks.random_mask(k, n, 2)) for k in keys])
    )
