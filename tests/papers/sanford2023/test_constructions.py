"""The Sanford et al. 2023 constructions, checked exhaustively against the task references."""

import itertools
import math

import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory.papers.sanford2023 import _constructions_match2 as match2
from transformer_theory.papers.sanford2023 import _constructions_match3 as match3
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.papers.sanford2023 import _theory_rip as rip


def test_rip_constants_match_brute_force():
    u = rip.rademacher(1, 6, 5)
    rep = rip.rip_constants(u, 1)
    assert rep.exhaustive and rep.pairs == 5 * math.comb(4, 2)
    iso = max(abs(np.sum(u[:, j] ** 2) - 1) for j in range(5))  # columns have norm 1: iso = 0
    orth = max(
        np.linalg.norm(u[:, [j]].T @ u[:, list(s)], 2)
        for j in range(5)
        for s in itertools.combinations([k for k in range(5) if k != j], 2)
    )
    assert rep.isometry == pytest.approx(iso, abs=1e-12)
    assert rep.orthogonality == pytest.approx(orth, abs=1e-12)


def test_subset_weights_meet_the_constraints_and_the_norm_bound():
    u = rip.rademacher(0, 64, 8)
    rep = rip.rip_constants(u, 2)
    subsets = ts.all_subsets(8, 2)
    w, ok = qsa.subset_weights(u, subsets)
    assert ok.all()
    ip = w @ u
    np.testing.assert_allclose(ip[subsets], 1.0, atol=1e-9)
    assert np.all(ip[~subsets] <= 0.5 + 1e-9)
    if rep.holds(0.25):  # Candes & Tao 2005: ||w|| <= sqrt(q)/(1 - 2 delta) = 2 sqrt(q)
        assert np.all(np.linalg.norm(w, axis=-1) <= 2 * math.sqrt(2))


def test_subset_weights_report_an_impossible_separation():
    # u_1 = u_0: no w has <u_0, w> = 1 and <u_1, w> <= 1/2 (least norm and the LP both fail)
    u = np.array([[1.0, 1.0, -1.0, 1.0], [1.0, 1.0, 1.0, -1.0]]) / math.sqrt(2)
    w, ok = qsa.subset_weights(u, np.array([[True, False, False, False]]))
    assert not ok[0]


@pytest.mark.parametrize("n,q,eps,rows", [(6, 1, 0.1, 12), (8, 2, 0.05, 40)])
def test_qsa_error_at_most_eps_on_all_inputs(n, q, eps, rows):
    c = qsa.qsa_construction(n, q, 2, eps, rows, seed=0)
    worst = qsa.qsa_worst_error(c)
    assert worst["valid_w"] and worst["subsets"] == math.comb(n, q)
    assert worst["max_error"] <= eps
    # sampled inputs through the model agree with the exact supremum (and stay under it)
    z, members = ts.qsa_sample(1, 300, n, q, 2)
    out, ok = qsa.qsa_apply(c, z, members)
    err = np.linalg.norm(out - ts.qsa_target(z, members), axis=-1).max()
    assert ok.all() and err <= worst["max_error"] + 1e-12


def test_qsa_rounded_to_the_proofs_bits_still_within_eps():
    n, q, eps, rows = 8, 2, 0.05, 40
    c0 = qsa.qsa_construction(n, q, 2, eps, rows, seed=0)
    bits = qsa.bits_needed(rows, c0.alpha, eps)
    c = qsa.qsa_construction(n, q, 2, eps, rows, seed=0, bits=bits)
    assert qsa.qsa_worst_error(c)["max_error"] <= eps
    # too few bits break it: with 0 fraction bits w rounds to integers (here mostly 0)
    assert (
        qsa.qsa_worst_error(qsa.qsa_construction(n, q, 2, eps, rows, seed=0, bits=0))["max_error"]
        > eps
    )


def test_qsa_alpha_too_small_fails():
    # the proof's alpha = ceil(2 log(4N/eps)) matters: alpha = 1 leaves mass off y_i
    c = qsa.qsa_construction(6, 1, 2, 0.1, 12, seed=0)
    weak = qsa.QSAConstruction(c.params, c.u_ExK, c.q, c.dim, c.epsilon, 1, None)
    assert qsa.qsa_worst_error(weak)["max_error"] > 0.1


@pytest.mark.parametrize("n,m", [(3, 5), (4, 6), (3, 9)])
def test_match2_exact_on_all_inputs(n, m):
    params = match2.match2_construction(n, m)
    x = np.array(list(itertools.product(range(m), repeat=n)))
    np.testing.assert_array_equal(match2.match2_apply(params, x, m), ts.match2(x, m))


def test_match2_mod_n_literal_fails():
    # the slides' "mod N" in the proof's bounds: the model computes mod M, not mod N
    n, m = 3, 5
    params = match2.match2_construction(n, m)
    x = np.array(list(itertools.product(range(m), repeat=n)))
    got = match2.match2_apply(params, x, m)
    assert np.any(got != ts.match2(x % n, n))


def test_match2_sampled_large_m_float64():
    n, m = 16, 256
    params = match2.match2_construction(n, m)
    x, labels = ts.match_sample("match2", 0, 500, n, m)
    np.testing.assert_array_equal(match2.match2_apply(params, x, m), labels)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
def test_match2_float16_breaks_at_large_m():
    # precision: c = M^2 log(6N) overflows float16's range (max 65504) already at M = 256
    n, m = 8, 256
    params = match2.match2_construction(n, m, dtype=jnp.float16)
    x, labels = ts.match_sample("match2", 0, 200, n, m)
    assert np.any(match2.match2_apply(params, x, m) != labels)


@pytest.mark.parametrize("n,m", [(3, 5), (4, 6), (5, 4)])
def test_match3bigram_exact_on_all_inputs(n, m):
    params = match3.match3bigram_construction(n, m)
    assert params.config.depth == 2 and params.config.qk_dim == 3
    x = np.array(list(itertools.product(range(m), repeat=n)))
    np.testing.assert_array_equal(match3.match3bigram_apply(params, x, m), ts.match3_bigram(x, m))


def test_match3bigram_sampled_m_n_squared():
    n, m = 12, 144
    x, labels = ts.match_sample("match3bigram", 0, 300, n, m)
    got = match3.match3bigram_apply(match3.match3bigram_construction(n, m), x, m)
    np.testing.assert_array_equal(got, labels)
    # and it is not Match3: the bigram variant's model misses triples of non-adjacent keys
    assert np.any(got != ts.match3(x, m))


@pytest.mark.parametrize("n,m,k", [(4, 5, 1), (4, 6, 1), (5, 4, 2), (3, 5, 0)])
def test_match3local_exact_on_all_inputs(n, m, k):
    params = match3.match3local_construction(n, m, k)
    assert params.config.depth == 1 and params.config.heads == (2 * k + 1,)
    x = np.array(list(itertools.product(range(m), repeat=n)))
    np.testing.assert_array_equal(
        match3.match3local_apply(params, x, m, k), ts.match3_local(x, m, k)
    )


def test_match3local_sampled_and_window_matters():
    n, m, k = 12, 144, 2
    x, labels = ts.match_sample("match3local", 0, 300, n, m, k)
    got = match3.match3local_apply(match3.match3local_construction(n, m, k), x, m, k)
    np.testing.assert_array_equal(got, labels)
    assert np.any(got != ts.match3_local(x, m, 1))
    with pytest.raises(ValueError, match="window:"):
        match3.match3local_apply(match3.match3local_construction(n, m, k), x, m, 1)


@pytest.mark.parametrize("n,m,k", [(5, 5, 1), (6, 4, 2), (8, 2, 3), (3, 5, 0)])
def test_match3local_single_head_exact_on_all_inputs(n, m, k):
    """The one-head unit (query/key width 4K + 4, not 2K + 1 heads): every input of [M]^N; the
    cases have windows with aliases (N + 2K > 3K + 2) and positives and negatives."""
    params = match3.match3local_single_construction(n, m, k)
    cfg = params.config
    assert cfg.depth == 1 and cfg.heads == (1,) and cfg.qk_dim == 4 * k + 4
    x = np.array(list(itertools.product(range(m), repeat=n)))
    want = ts.match3_local(x, m, k)
    got = match3.match3local_single_apply(params, x, m, k)
    np.testing.assert_array_equal(got, want)
    assert 0 < want.mean() < 1


def test_match3local_single_head_sampled_at_n64_m4096():
    # the README's size for the heads version: 300 balanced samples, float64
    n, m, k = 64, 4096, 2
    x, labels = ts.match_sample("match3local", 1, 300, n, m, k)
    got = match3.match3local_single_apply(match3.match3local_single_construction(n, m, k), x, m, k)
    np.testing.assert_array_equal(got, labels)
    with pytest.raises(ValueError, match="window:"):
        match3.match3local_single_apply(match3.match3local_single_construction(n, m, k), x, m, 1)
