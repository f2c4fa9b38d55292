"""Linformer's random projection (Conti 2024, §2.1.3, eq. 16, Lemma 2.1): the distortions
computed here with explicit NumPy loops, the projection's mean ``E[R^T R] = I`` by sampling, and
the printed forms' failures.

Tolerances: float64 quantities of size <= a few, from sums of <= 64 terms: 1e-12 leaves a factor
of 100 over ``64 eps64 ~ 1.4e-14``. The sampled mean: see ``test_projection_is_unbiased``.
"""

import math

import numpy as np
import pytest
from scipy import stats

from transformer_theory.papers.conti2024 import _theory_linformer as linformer


def _softmax_rows(q, k):
    a = q @ k.T / math.sqrt(q.shape[1])
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _inputs(n, seed=0, dim=8):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, dim)), rng.standard_normal((n, dim)), rng.standard_normal(n)


def test_distortions_against_loops():
    n, k = 16, 5
    q, kk, w = _inputs(n)
    p = linformer.attention_probs(q, kk)
    np.testing.assert_allclose(p, _softmax_rows(q, kk), rtol=0, atol=1e-12)
    r = linformer.jl_projection(3, k, n)
    rtr = np.zeros((n, n))
    for a in range(k):
        rtr += np.outer(r[a], r[a])
    pt = p @ rtr
    np.testing.assert_allclose(linformer.jl_attention(p, r), pt, atol=1e-12)
    want = [
        abs(pt[i] @ w - p[i] @ w) / (np.linalg.norm(p[i]) * np.linalg.norm(w)) for i in range(n)
    ]
    np.testing.assert_allclose(linformer.row_errors(p, r, w), want, rtol=1e-10, atol=1e-13)
    ref = np.linalg.norm(pt @ w - p @ w) / np.linalg.norm(p @ w)
    assert linformer.relative_error(p, r, w) == pytest.approx(ref, rel=1e-10)
    worst = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = p[i] - p[j]
            worst = max(worst, abs(np.sum((r @ d) ** 2) / np.sum(d**2) - 1))
    assert linformer.pair_distortion(p, r) == pytest.approx(worst, rel=1e-10)


def test_projection_is_unbiased():
    """``R`` with ``N(0, 1/k)`` entries: ``(R^T R)_jj ~ chi2_k / k`` (sd ``sqrt(2/k)``), off the
    diagonal sd ``sqrt(1/k)``; the mean of ``T = 4000`` draws is within 6 of its standard errors
    of ``I`` in every entry (a chance failure at seed 0 has probability < 64 x 2e-9), while an
    unscaled ``R`` (mean ``k I``) misses by ``k - 1 = 3``."""
    n, k, T = 8, 4, 4000
    rng = np.random.default_rng(0)
    total = np.zeros((n, n))
    for _ in range(T):
        r = linformer.jl_projection(rng, k, n)
        total += r.T @ r
    mean = total / T
    se = np.where(np.eye(n, dtype=bool), math.sqrt(2 / k), math.sqrt(1 / k)) / math.sqrt(T)
    assert np.all(np.abs(mean - np.eye(n)) <= 6 * se)
    assert np.min(np.abs(np.diag(mean * k) - 1)) > 6 * se.max()  # the unscaled R is caught


def test_printed_forms_fail_and_corrected_hold():
    n = 8
    # eq. 16 as printed: uniform P and w = e_0 - e_1 give P w = 0, P~ w != 0
    p = np.full((n, n), 1.0 / n)
    w = np.zeros(n)
    w[0], w[1] = 1.0, -1.0
    assert np.all(p @ w == 0)
    assert math.isinf(linformer.relative_error(p, linformer.jl_projection(0, 3, n), w))
    # the corrected per-row ratio stays finite
    assert np.all(np.isfinite(linformer.row_errors(p, linformer.jl_projection(0, 3, n), w)))
    # exp(A) D_A^-1 is not row-stochastic; D_A^-1 exp(A) with R = I is softmax
    a = np.random.default_rng(1).standard_normal((n, n))
    eye = np.eye(n)
    assert np.max(np.abs(linformer.printed_jl_attention(a, eye).sum(axis=1) - 1)) > 0.1
    soft = np.exp(a) / np.exp(a).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(linformer.jl_attention(soft, eye), soft, atol=1e-15)


def test_ranks_and_tail_bound():
    eps, delta = 0.5, 0.1
    for n in (16, 64, 1024):
        k = linformer.row_bound_rank(n, eps, delta)
        c = (eps**2 / 2 - eps**3 / 3) / 2
        assert 4 * n * math.exp(-k * c) <= delta < 4 * n * math.exp(-(k - 1) * c)
        # the chi-squared tails the union bound uses, exactly (scipy): each below exp(-k c)
        upper = stats.chi2.sf(k * (1 + eps), k)
        lower = stats.chi2.cdf(k * (1 - eps), k)
        assert max(upper, lower) <= math.exp(-k * c)
        assert 2 * n * (upper + lower) <= delta
    m = 100
    k = linformer.lemma_rank(m, 0.3)
    assert k > 8 * math.log(m) / 0.09 >= k - 1
    with pytest.raises(ValueError, match="eps"):
        linformer.row_bound_rank(4, 1.5, 0.1)
    with pytest.raises(ValueError, match="delta"):
        linformer.row_bound_rank(4, 0.5, 0.0)
    with pytest.raises(ValueError, match="r_KxN"):
        linformer.jl_attention(np.eye(3), np.ones((2, 4)))


def test_failure_rate_against_loop():
    n, k, eps, trials, seed = 12, 6, 0.4, 40, 5
    q, kk, w = _inputs(n, seed=2)
    p = _softmax_rows(q, kk)
    rng = np.random.default_rng(seed)
    fails = 0
    for _ in range(trials):
        r = rng.standard_normal((k, n)) / math.sqrt(k)
        pt = p @ r.T @ r
        ratios = [
            abs(pt[i] @ w - p[i] @ w) / (np.linalg.norm(p[i]) * np.linalg.norm(w)) for i in range(n)
        ]
        fails += max(ratios) > eps
    assert linformer.failure_rate(p, w, k, eps, trials, seed) == fails / trials
    assert 0 < fails < trials  # the case discriminates


def test_output_error_and_spectrum():
    n = 16
    q, kk, _ = _inputs(n)
    v = np.random.default_rng(4).standard_normal((n, 3))
    rows = linformer.output_error_vs_rank(q, kk, v, [n], trials=2)
    assert rows[0]["pooled"] < 1e-12  # pooling to n rows is the identity: exact attention
    assert rows[0]["jl"] > 0
    assert linformer.spectrum_rank(np.full((n, n), 1.0 / n)) == 1
    assert linformer.spectrum_rank(np.eye(n), 0.5) == n // 2


def test_jl_study_small_and_figure(tmp_path):
    from transformer_theory.papers.conti2024 import _plots as plots

    rng = np.random.default_rng(0)
    # one shape throughout (n = 16, width 32): every eager JAX op compiles once
    qkv = [("toy", *(rng.standard_normal((2, 16, 32)) for _ in range(3)))]
    result = linformer.jl_study((16,), trials=10, error_len=16, error_ranks=(16,), qkv=qkv)
    assert [r["n"] for r in result["scaling"]["rows"]] == [16, 16]
    assert result["trained"][0]["n"] == 16 and result["trained"][0]["errors"][-1]["pooled"] < 1e-12
    assert plots.jl_figure(result, str(tmp_path / "jl.png")).endswith("jl.png")
    with pytest.raises(ValueError, match="eps"):
        linformer.jl_study((16,), eps=2.0)
