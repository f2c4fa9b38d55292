"""Linformer's random projection as Conti 2024 writes it (§2.1.3, eq. 16-17, Lemma 2.1), measured
against the projected rank ``k``.

The thesis: ``P = softmax(A)``, ``A = Q K^T / sqrt(E)``, is approximated by ``P~ = exp(A) D_A^-1
R^T R`` with ``R`` a ``k x n`` matrix of i.i.d. entries (Linformer: ``N(0, 1/k)``), and eq. 16
claims ``Pr(||P~ w - P w|| < eps ||P w||) > 1 - o(1)`` for ANY value vector ``w`` once ``k =
O(log n / eps^2)``, by the Johnson-Lindenstrauss lemma (Lemma 2.1: ``m`` points keep their
squared distances within ``1 +- eps`` under some linear map to ``k > 8 ln(m) / eps^2``
dimensions). Eq. 17 is the architecture: ``softmax(Q (E K)^T / sqrt(E)) (F V)``, ``E, F: k x n``.

Two things are wrong as printed, and what is implemented is corrected:

- ``exp(A) D_A^-1`` scales COLUMNS (``D_A`` holds the row sums): it is not ``softmax(A)`` unless
  the row sums are equal. Softmax is ``D_A^-1 exp(A)``, which :func:`jl_attention` uses;
  :func:`printed_jl_attention` is the literal product, kept to show it is not row-stochastic.
- Eq. 16's error relative to ``||P w||`` cannot hold for every ``w``: with uniform attention
  (``A = 0``) and ``w = e_0 - e_1``, ``P w = 0`` while ``P~ w = P R^T R w != 0`` with probability
  1. What the JL argument gives is a bound per row, relative to ``||P_i|| ||w||``: for unit
  ``u, v``, ``4 (<R u, R v> - <u, v>)`` is the difference of the distortions of ``u + v`` and
  ``u - v``, so if those ``2n`` squared norms keep within ``1 +- eps``, then ``|(P~ w - P w)_i| <=
  eps ||P_i|| ||w||`` for every row ``i`` (:func:`row_errors`). With ``R`` Gaussian, ``k
  ||R x||^2 / ||x||^2`` is chi-squared with ``k`` degrees of freedom, whose two tails are at most
  ``exp(-k (eps^2/2 - eps^3/3) / 2)`` (Dasgupta & Gupta 2003), so a union bound over the ``2n``
  vectors and both tails gives failure probability ``<= delta`` at :func:`row_bound_rank`'s
  ``k = ceil(4 ln(4n / delta) / (eps^2 - 2 eps^3 / 3))``: the thesis's ``O(log n / eps^2)``.

Result (2026-11-25, 2 shared CPU cores, ``transformer-theory efficient-attention --jl --run
results/encdec_translation --out DIR`` after ``python experiments/encdec_translation.py --size
default --out results/encdec_translation``; 4 min 44 s wall, 54 s CPU, load average ~20):

- rank needed for the corrected row bound at ``eps = 0.5``, ``delta = 0.1`` (100 draws, ranks on
  a ``2^(j/4)`` grid): iid attention 38, 45, 45, 54, 64 and local attention 38, 54, 54, 64, 64 at
  ``n = 64, 128, 256, 512, 1024``; slopes 8.8 (iid) and 8.9 (local) per ``ln n``, against the
  union bound's 24 (its ``k`` 189-255, Lemma 2.1's 156-244): ``O(log n)`` with about a third of
  the bound's constant. Eq. 16's printed ratio ``||P~ w - P w|| / ||P w||`` at those ranks: median
  1.2-4.2 (not below ``eps``), growing with ``n``;
- attention output error ``||Y - P V||_F / ||P V||_F`` at ``n = 256``, ``k' = 4, 16, 64, 256``:
  ``P R^T R V`` 7.6, 3.9, 1.9, 0.96 (iid), eq. 17 with ``E = F = R`` 74, 30, 7.7, 1.3, mean
  pooling 0.77, 0.76, 0.70, 0 (exact at ``k' = n``); 90% of ``||P||_F^2`` needs 50 (iid) and 65
  (local) of 256 singular values;
- trained encoder self-attention (one layer, one head / eight heads, sentences of ``n = 8``): 90%
  of ``||P||_F^2`` in 3.5 / 3.1 of 8 singular values (low rank, as the thesis's Figure 10 says of
  trained models), but the row bound needs ``k'`` median 27 (max 32) > ``n``: at ``n = 8`` a
  random projection saves nothing; output error at ``k' = 1, 2, 4, 8``: ``P R^T R V`` 2.5, 1.6,
  1.4, 0.93 (one head), pooling 0.85, 0.76, 0.64, 0.

Shapes: ``N`` positions (the thesis's ``n``), ``K`` the projected rank ``k'``, ``E`` query/key
width, ``D`` value width, ``T`` draws of ``R``.

- :func:`jl_projection`: ``R``, ``N(0, 1/K)`` entries, from a seed.
- :func:`attention_probs`: ``P = softmax(Q K^T / sqrt(E))`` (:mod:`transformer_theory.core`).
- :func:`jl_attention` / :func:`printed_jl_attention`: ``P R^T R`` and the literal ``exp(A)
  D_A^-1 R^T R``.
- :func:`random_linformer`: eq. 17 with ``E = F = R`` (:func:`.core.linear.linformer_attention`).
- :func:`row_errors`, :func:`relative_error`, :func:`pair_distortion`: the corrected row bound's
  ratio, eq. 16's printed ratio, Lemma 2.1's squared-distance distortion.
- :func:`lemma_rank` / :func:`row_bound_rank`: Lemma 2.1's ``k`` and the row bound's.
- :func:`failure_rate`: the fraction of ``T`` draws whose largest row ratio exceeds ``eps``.
- :func:`rank_needed` / :func:`scaling_study`: the smallest ``k`` (on a grid) with failure rate
  ``<= delta``, against ``n``, with the slope of ``k`` against ``ln n``.
- :func:`output_error_vs_rank`: the attention output's error against ``k`` (``P R^T R V``,
  eq. 17 with ``E = F = R``, and the mean-pooling Linformer of :mod:`._models_efficient`).
- :func:`spectrum_rank`: how many singular values hold a fraction of ``||P||_F^2`` (the thesis's
  "attention is low rank", Figure 10).
- :func:`trained_study` / :func:`jl_study`: the measurements on trained models' attention, and
  everything ``transformer-theory efficient-attention --jl`` runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike

from transformer_theory import _validate, precision
from transformer_theory.core import attention, linear

__all__ = [
    "attention_probs",
    "binomial_critical",
    "failure_rate",
    "jl_attention",
    "jl_projection",
    "jl_study",
    "lemma_rank",
    "output_error_vs_rank",
    "pair_distortion",
    "printed_jl_attention",
    "random_linformer",
    "rank_needed",
    "relative_error",
    "row_bound_rank",
    "row_errors",
    "scaling_study",
    "spectrum_rank",
    "trained_study",
]


def jl_projection(seed: int | np.random.Generator, rank: int, n: int) -> np.ndarray:
    """``R_KxN`` with i.i.d. ``N(0, 1/K)`` entries (float64), so ``E[R^T R] = I``."""
    rank = _validate.check_int_arg("rank", rank, 1)
    n = _validate.check_int_arg("n", n, 1)
    rng = np.random.default_rng(seed)
    return rng.standard_normal((rank, n)) / math.sqrt(rank)


def attention_probs(q_NxE: ArrayLike, k_NxE: ArrayLike) -> np.ndarray:
    """``P = softmax(Q K^T / sqrt(E))`` (float64), the matrix eq. 16 approximates.

    Not jitted: the inputs are concrete, so a NaN or infinity in them is refused (``ValueError``
    naming the argument) rather than returned as a NaN matrix; so is a ``k`` whose width ``E``
    differs from ``q``'s."""
    precision.require_x64("q_NxE")
    q, k = jnp.asarray(q_NxE, jnp.float64), jnp.asarray(k_NxE, jnp.float64)
    _validate.check_ndim("q_NxE", q, 2)
    _validate.check_ndim("k_NxE", k, 2)
    if k.shape[1] != q.shape[1]:
        raise ValueError(f"k_NxE: expected width E = {q.shape[1]} like q_NxE, got {k.shape}")
    _validate.check_finite("q_NxE", q)
    _validate.check_finite("k_NxE", k)
    scores = attention.scale_scores(q @ k.T, q.shape[1])
    return np.asarray(attention.softmax_weights(scores), np.float64)


def jl_attention(p_NxN: ArrayLike, r_KxN: ArrayLike) -> np.ndarray:
    """``P~ = P R^T R`` with ``P = D_A^-1 exp(A)`` (the corrected order; see the module)."""
    p, r = np.asarray(p_NxN, np.float64), np.asarray(r_KxN, np.float64)
    if r.ndim != 2 or r.shape[1] != p.shape[1]:
        raise ValueError(f"r_KxN: expected shape (k, {p.shape[1]}), got {r.shape}")
    return (p @ r.T) @ r


def printed_jl_attention(a_NxN: ArrayLike, r_KxN: ArrayLike) -> np.ndarray:
    """The literal ``exp(A) D_A^-1 R^T R`` of Conti 2024, §2.1.3 (``D_A = diag(exp(A) 1)``): the
    columns scaled by the row sums, NOT a softmax unless every row sums alike."""
    a, r = np.asarray(a_NxN, np.float64), np.asarray(r_KxN, np.float64)
    e = np.exp(a)
    return (e / e.sum(axis=1)[None, :]) @ r.T @ r


def random_linformer(
    q_NxE: ArrayLike, k_NxE: ArrayLike, v_NxD: ArrayLike, r_KxN: ArrayLike
) -> np.ndarray:
    """Eq. 17 with ``E = F = R``: ``softmax(Q (R K)^T / sqrt(E)) (R V)`` (float64)."""
    precision.require_x64("q_NxE")
    q, k, v, r = (jnp.asarray(x, jnp.float64) for x in (q_NxE, k_NxE, v_NxD, r_KxN))
    return np.asarray(linear.linformer_attention(q, k, v, r, r)[0], np.float64)


def row_errors(p_NxN: ArrayLike, r_KxN: ArrayLike, w_N: ArrayLike) -> np.ndarray:
    """``|(P~ w - P w)_i| / (||P_i|| ||w||)`` for every row ``i``: the ratio the corrected bound
    keeps below ``eps``."""
    p, w = np.asarray(p_NxN, np.float64), np.asarray(w_N, np.float64)
    r = np.asarray(r_KxN, np.float64)
    z = r.T @ (r @ w) - w  # (R^T R - I) w
    return np.abs(p @ z) / (np.linalg.norm(p, axis=1) * np.linalg.norm(w))


def relative_error(p_NxN: ArrayLike, r_KxN: ArrayLike, w_N: ArrayLike) -> float:
    """Eq. 16's printed ratio ``||P~ w - P w|| / ||P w||`` (``inf`` where ``P w = 0`` and ``P~ w``
    is not)."""
    p, w = np.asarray(p_NxN, np.float64), np.asarray(w_N, np.float64)
    r = np.asarray(r_KxN, np.float64)
    err = float(np.linalg.norm(p @ (r.T @ (r @ w)) - p @ w))
    base = float(np.linalg.norm(p @ w))
    if base == 0.0:
        return math.inf if err > 0 else 0.0
    return err / base


def pair_distortion(x_MxN: ArrayLike, r_KxN: ArrayLike) -> float:
    """Lemma 2.1's quantity on the points ``x``: ``max_{u != v} | ||R (u - v)||^2 / ||u - v||^2 -
    1 |`` over every pair of distinct rows."""
    x, r = np.asarray(x_MxN, np.float64), np.asarray(r_KxN, np.float64)
    i, j = np.triu_indices(x.shape[0], 1)
    d = x[i] - x[j]
    norms = np.sum(d * d, axis=1)
    keep = norms > 0
    proj = d[keep] @ r.T
    return float(np.max(np.abs(np.sum(proj * proj, axis=1) / norms[keep] - 1.0), initial=0.0))


def lemma_rank(m: int, eps: float) -> int:
    """Lemma 2.1's smallest integer ``k > 8 ln(m) / eps^2``."""
    _validate.check_positive("m", m)
    if not 0 < eps < 1:
        raise ValueError(f"eps: expected 0 < eps < 1, got {eps}")
    return math.floor(8.0 * math.log(m) / eps**2) + 1


def row_bound_rank(n: int, eps: float, delta: float) -> int:
    """``ceil(4 ln(4 n / delta) / (eps^2 - 2 eps^3 / 3))``: the ``k`` at which Gaussian ``R`` keeps
    every row ratio of :func:`row_errors` below ``eps`` with probability ``>= 1 - delta`` (the
    union bound of the module docstring)."""
    _validate.check_positive("n", n)
    if not 0 < eps < 1:
        raise ValueError(f"eps: expected 0 < eps < 1, got {eps}")
    if not 0 < delta < 1:
        raise ValueError(f"delta: expected 0 < delta < 1, got {delta}")
    return math.ceil(4.0 * math.log(4.0 * n / delta) / (eps**2 - 2.0 * eps**3 / 3.0))


def failure_rate(
    p_NxN: ArrayLike, w_N: ArrayLike, rank: int, eps: float, trials: int, seed: int
) -> float:
    """The fraction of ``trials`` draws of ``R`` (``N(0, 1/rank)`` entries from ``seed``, drawn
    together: ``(trials, rank, N)``) whose largest :func:`row_errors` exceeds ``eps``."""
    _validate.check_positive("trials", trials)
    _validate.check_positive("rank", rank)
    p, w = np.asarray(p_NxN, np.float64), np.asarray(w_N, np.float64)
    rng = np.random.default_rng(seed)
    scale = np.linalg.norm(p, axis=1)[:, None] * np.linalg.norm(w)
    fails = 0
    chunk = max(1, 2**24 // (rank * p.shape[1]))  # at most 16M normals at a time
    for start in range(0, trials, chunk):
        t = min(chunk, trials - start)
        r_TxKxN = rng.standard_normal((t, rank, p.shape[1])) / math.sqrt(rank)
        z_TxN = np.einsum("tkn,tk->tn", r_TxKxN, r_TxKxN @ w) - w[None, :]
        ratios_NxT = np.abs(p @ z_TxN.T) / scale
        fails += int(np.sum(np.max(ratios_NxT, axis=0) > eps))
    return fails / trials


def binomial_critical(trials: int, delta: float, alpha: float) -> int:
    """The smallest ``c`` with ``Pr(Binomial(trials, delta) > c) <= alpha`` (SciPy, float64): at
    most ``c`` failures in ``trials`` draws is what a failure probability ``<= delta`` allows,
    wrongly rejected with probability at most ``alpha``."""
    from scipy.stats import binom

    c = int(binom.isf(alpha, trials, delta))
    while binom.sf(c, trials, delta) > alpha:  # isf rounds; settle on the exact smallest c
        c += 1
    while c > 0 and binom.sf(c - 1, trials, delta) <= alpha:
        c -= 1
    return c


def rank_needed(
    p_NxN: ArrayLike,
    w_N: ArrayLike,
    eps: float,
    delta: float,
    *,
    trials: int = 100,
    seed: int = 0,
    ranks: Sequence[int] | None = None,
) -> int | None:
    """The smallest ``k`` of ``ranks`` (default ``2^(j/4)`` rounded, 1 to ``4 n``) whose
    :func:`failure_rate` is ``<= delta`` (None if none is); each ``k`` draws from its own seed.
    ``eps`` and ``delta`` lie in ``(0, 1)`` (NaN refused: it compared as never exceeded)."""
    for name, value in (("eps", eps), ("delta", delta)):
        _validate.check_positive(name, value)
        if not value < 1:
            raise ValueError(f"{name}: expected 0 < {name} < 1, got {value}")
    n = np.asarray(p_NxN).shape[1]
    if ranks is None:
        ranks = sorted({int(round(2 ** (j / 4))) for j in range(0, 4 * int(math.log2(4 * n)) + 1)})
    for idx, k in enumerate(ranks):
        if failure_rate(p_NxN, w_N, k, eps, trials, seed + idx) <= delta:
            return int(k)
    return None


def _inputs(kind: str, n: int, dim: int, seed: int) -> tuple[np.ndarray, ...]:
    """``q, k, v`` of shape ``(n, dim)``, float64: ``"iid"`` standard normal (NumPy, from
    ``seed``), ``"local"`` :func:`._models_efficient.random_inputs`'s local kind."""
    if kind == "iid":
        return tuple(np.random.default_rng(seed).standard_normal((3, n, dim)))
    from transformer_theory.papers.conti2024._models_efficient import random_inputs

    q, k, v = random_inputs(jax.random.key(seed), 1, n, dim, kind)
    return tuple(np.asarray(x[0], np.float64) for x in (q, k, v))


def scaling_study(
    ns: Sequence[int],
    eps: float,
    delta: float,
    *,
    kinds: Sequence[str] = ("iid", "local"),
    dim: int = 32,
    trials: int = 100,
    seed: int = 0,
) -> dict:
    """For each input kind (:func:`._models_efficient.random_inputs`) and ``n``: ``P`` of one
    random draw, ``w`` its first value column, :func:`rank_needed` beside :func:`row_bound_rank` and
    :func:`lemma_rank` (``m = 2n``), and eq. 16's printed ratio at the ``k`` found (median over
    ``trials`` draws); then the least-squares slope of the ``k`` found against ``ln n`` per kind
    (``O(log n / eps^2)`` predicts a slope of at most ``4 / (eps^2 - 2 eps^3/3)``, the bound's).

    Returns:
      ``{"eps", "delta", "trials", "rows": [...], "slopes": {kind: slope}, "bound_slope"}``.
    """
    for n in ns:
        _validate.check_positive("ns", n)
    rows = []
    for kind in kinds:
        for n in ns:
            q, k, v = _inputs(kind, n, dim, seed + n)
            p = attention_probs(q, k)
            w = v[:, 0]
            found = rank_needed(p, w, eps, delta, trials=trials, seed=seed)
            rel = None
            if found is not None:
                rng = np.random.default_rng(seed + 1)
                rel = float(
                    np.median(
                        [relative_error(p, jl_projection(rng, found, n), w) for _ in range(trials)]
                    )
                )
            rows.append(
                {
                    "kind": kind,
                    "n": int(n),
                    "rank_needed": found,
                    "row_bound_rank": row_bound_rank(n, eps, delta),
                    "lemma_rank": lemma_rank(2 * n, eps),
                    "eq16_ratio_median": rel,
                }
            )
    slopes = {}
    for kind in kinds:
        pts = [(math.log(r["n"]), r["rank_needed"]) for r in rows if r["kind"] == kind]
        pts = [(x, y) for x, y in pts if y is not None]
        if len(pts) >= 2:
            slopes[kind] = float(np.polyfit(*zip(*pts, strict=True), 1)[0])
    return {
        "eps": eps,
        "delta": delta,
        "trials": trials,
        "rows": rows,
        "slopes": slopes,
        "bound_slope": 4.0 / (eps**2 - 2.0 * eps**3 / 3.0),
    }


def output_error_vs_rank(
    q_NxE: ArrayLike,
    k_NxE: ArrayLike,
    v_NxD: ArrayLike,
    ranks: Sequence[int],
    *,
    trials: int = 10,
    seed: int = 0,
) -> list[dict]:
    """The attention output's relative error ``||Y - P V||_F / ||P V||_F`` against ``k``, mean
    over ``trials`` draws of ``R``: ``jl`` (``Y = P R^T R V``, eq. 16's ``P~``), ``eq17_random``
    (eq. 17 with ``E = F = R``), and ``pooled`` (eq. 17 with
    :func:`._models_efficient.pooling_projection`,
    deterministic); ``lemma_distortion``: :func:`pair_distortion` of the rows of ``P``."""
    from transformer_theory.papers.conti2024._models_efficient import pooling_projection

    q, k, v = (np.asarray(x, np.float64) for x in (q_NxE, k_NxE, v_NxD))
    p = attention_probs(q, k)
    exact = p @ v
    base = np.linalg.norm(exact)
    rng = np.random.default_rng(seed)
    out = []
    for rank in ranks:
        _validate.check_positive("ranks", rank)
        jl, arch, dist = [], [], []
        for _ in range(trials):
            r = jl_projection(rng, rank, p.shape[1])
            jl.append(np.linalg.norm(jl_attention(p, r) @ v - exact) / base)
            arch.append(np.linalg.norm(random_linformer(q, k, v, r) - exact) / base)
            dist.append(pair_distortion(p, r))
        pool = pooling_projection(rank, p.shape[1]).astype(np.float64)
        pooled = np.linalg.norm(random_linformer(q, k, v, pool) - exact) / base
        out.append(
            {
                "rank": int(rank),
                "jl": float(np.mean(jl)),
                "eq17_random": float(np.mean(arch)),
                "pooled": float(pooled),
                "lemma_distortion": float(np.mean(dist)),
            }
        )
    return out


def spectrum_rank(p_NxN: ArrayLike, fraction: float = 0.9) -> int:
    """How many of ``P``'s largest singular values hold ``fraction`` of ``||P||_F^2``."""
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction: expected 0 < fraction <= 1, got {fraction}")
    s = np.linalg.svd(np.asarray(p_NxN, np.float64), compute_uv=False)
    energy = np.cumsum(s**2) / np.sum(s**2)
    return int(np.searchsorted(energy, fraction - 1e-12) + 1)


def trained_study(
    qkv: Sequence[tuple[str, ArrayLike, ArrayLike, ArrayLike]],
    eps: float,
    delta: float,
    *,
    trials: int = 100,
    seed: int = 0,
) -> list[dict]:
    """The same measurements on trained attention: for each ``(name, q_BxNxE, k_BxNxE,
    v_BxNxD)`` (every head and example stacked on ``B``, as
    :func:`._models_trained.trained_inputs` returns them), per head-example: ``P``'s
    :func:`spectrum_rank` (90% of ``||P||_F^2``), :func:`rank_needed` for its first value column
    (median, max, and how many found none up to ``4 N``), and :func:`output_error_vs_rank` at
    ``k = 1, 2, 4, .., N`` (mean over heads-examples).
    """
    out = []
    for name, q_b, k_b, v_b in qkv:
        q_b, k_b, v_b = (np.asarray(x, np.float64) for x in (q_b, k_b, v_b))
        n = q_b.shape[1]
        ranks = [2**j for j in range(int(math.log2(n)) + 1)]
        spectra, needed, errors = [], [], []
        for b in range(q_b.shape[0]):
            p = attention_probs(q_b[b], k_b[b])
            spectra.append(spectrum_rank(p))
            needed.append(rank_needed(p, v_b[b][:, 0], eps, delta, trials=trials, seed=seed))
            errors.append(output_error_vs_rank(q_b[b], k_b[b], v_b[b], ranks, trials=4, seed=b))
        mean_err = [
            {"rank": r, **{key: float(np.mean([e[i][key] for e in errors])) for key in keys}}
            for i, r in enumerate(ranks)
            for keys in [[key for key in errors[0][i] if key != "rank"]]
        ]
        found = [x for x in needed if x is not None]
        out.append(
            {
                "source": name,
                "n": int(n),
                "heads_examples": int(q_b.shape[0]),
                "spectrum_rank_90": {
                    "mean": float(np.mean(spectra)),
                    "min": int(min(spectra)),
                    "max": int(max(spectra)),
                },
                "rank_needed": {
                    "median": float(np.median(found)) if found else None,
                    "max": max(found) if found else None,
                    "not_found": len(needed) - len(found),
                },
                "errors": mean_err,
            }
        )
    return out


def jl_study(
    ns: Sequence[int] = (64, 128, 256, 512, 1024),
    *,
    eps: float = 0.5,
    delta: float = 0.1,
    trials: int = 100,
    error_len: int = 256,
    error_ranks: Sequence[int] = (4, 16, 64, 256),
    qkv: Sequence[tuple[str, ArrayLike, ArrayLike, ArrayLike]] = (),
    seed: int = 0,
) -> dict:
    """What ``transformer-theory efficient-attention --jl`` runs: :func:`scaling_study` over
    ``ns``; :func:`output_error_vs_rank` at ``error_len`` on one ``iid`` and one ``local`` draw
    (10 projections per rank); the spectra of those two ``P`` (:func:`spectrum_rank`); and
    :func:`trained_study` on ``qkv`` (trained models' activations, may be empty).

    Returns:
      ``{"scaling", "errors": {kind: rows}, "spectrum_rank_90": {kind: r}, "trained"}``.
    """
    for name, value in (("eps", eps), ("delta", delta)):  # NaN fails the test too
        if not 0 < value < 1:
            raise ValueError(f"{name}: expected 0 < {name} < 1, got {value}")
    _validate.check_int_arg("trials", trials, 1)  # before the studies, not minutes into them
    error_len = _validate.check_int_arg("error_len", error_len, 1)
    _validate.check_seed("seed", seed)
    errors, spectra = {}, {}
    for kind in ("iid", "local"):
        q, k, v = _inputs(kind, error_len, 32, seed)
        ranks = [r for r in error_ranks if r <= error_len]
        errors[kind] = output_error_vs_rank(q, k, v, ranks, trials=10, seed=seed)
        spectra[kind] = spectrum_rank(attention_probs(q, k))
    return {
        "scaling": scaling_study(ns, eps, delta, trials=trials, seed=seed),
        "errors": errors,
        "error_len": int(error_len),
        "spectrum_rank_90": spectra,
        "trained": trained_study(qkv, eps, delta, trials=trials, seed=seed),
    }
