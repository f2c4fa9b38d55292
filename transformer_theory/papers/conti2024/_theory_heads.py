"""Positional, syntactic and rare-token heads, found by projection (Conti 2024, §3.1.1-3.1.2).

Conti 2024 observes three kinds of attention heads in a trained translation model and models a
head's map ``A`` (rows = queries, columns = keys) as ``A ~ P + E`` (eq. 19): a structured part
``P`` from one of three families ``Sigma = Sigma_1 u Sigma_2(w) u Sigma_3`` (eq. 20) plus a sparse
error ``E`` with small entries ``|e_ij| <= eps``:

- ``Sigma_1``, **positional** heads: the diagonal -- each query reads its own position. We allow
  the diagonal shifted by ``offset`` (``j = i + offset``, ``|offset| <= max_offset``), the
  previous- and next-token heads of Voita et al. 2019 (Conti 2024's ref. [12]); ``offset = 0`` is
  the thesis's ``I_n``;
- ``Sigma_2(w)``, **syntactic** heads: band matrices ``b_ij = 0`` unless ``-w <= j - i <= w``
  (the thesis's bandwidths ``w_1 = w_2 = w``), with any entries inside the band -- its "dropout"
  of a multi-diagonal matrix, i.e. blocks of nearby words reading each other;
- ``Sigma_3``, **rare-token** heads: columns of ones -- every query reads one of a few key
  positions ``t_1..t_s`` (the thesis's ``(t, w)`` blocks, with the identity elsewhere), so the
  structured part is free on the diagonal and on ``s <= max_columns`` whole columns.

Each family fixes a *support* ``S`` (where ``P`` is free); the set
``X_S = {P + E : P zero off S, |e_ij| <= eps}`` is convex and closed, and the L1 projection of
eq. 21-22, ``min_{X in X_S} sum_ij |a_ij - x_ij|``, separates entry by entry: on ``S`` the
residual is 0, off ``S`` it is ``max(|a_ij| - eps, 0)`` (clip ``a_ij`` into ``[-eps, eps]``).
That closed form is the linear program's optimum (``tests/papers/conti2024/test_heads.py`` checks it
against SciPy's HiGHS on the LP of eq. 21). The best support of each family is found exactly:
the offsets and bandwidth by enumeration, the rare-token columns by their residual gains, which
add up over disjoint columns, so the ``s`` largest are optimal.

Two corrections to the printed argument. (1) Conti 2024 calls ``E`` *sparse*; a cardinality
bound is not convex, and the convexity proof only uses ``|e_ij| <= eps``, so the convex set above
is the one the existence argument covers. ``max_errors`` adds the cardinality bound back: for a
fixed support the optimum then keeps the ``max_errors`` entries of largest gain
``min(|a_ij|, eps)`` (exact, also checked against a mixed-integer program in the tests). (2) The
thesis concludes uniqueness from the projection theorem for Hilbert spaces; the L1 norm is not a
Hilbert norm and L1 projections need not be unique in general -- here the optimum *value* (the
residual) is what is used, and it is unique.

**Classification.** The score of a family is its relative residual
``rho = residual / sum_ij |a_ij|`` in ``[0, 1]``. Larger families fit at least as well
(``Sigma_2(w)`` contains the diagonals with ``|offset| <= w``), so a head gets the *simplest*
family whose score is within ``slack`` of the best one, in the order positional (``n`` free
entries) < rare-token (``n + s n``) < syntactic (``(2w + 1) n``). A head is **other** when no
family explains it much better than it explains a structureless map: when, for every family, its
score exceeds ``unexplained_above`` times the score of the uniform map of the same shape (uniform
over ``j <= i`` for a causal map, recognized by exact zeros above the diagonal). "Other" is not
"diffuse": a sharp head whose key depends on the content -- a translation's word alignment,
which reorders -- is in none of the families as printed (it is a permuted diagonal, see below);
``concentration`` (the mean over rows of the
largest weight's share of the row, 1 for one key per row, ``1/K`` for uniform) tells the two
apart. ``eps`` defaults
to half the map's mean absolute entry (``1 / 2K`` for a row-stochastic ``Q x K`` map),
which makes the scores independent of the map's scale -- so the ReLU maps of Chen & Zou 2024's
models, which are not normalized, are classified the same way; a ReLU map that is all zero (the
head reads nothing on that input) is **empty**.

**Up to a permutation.** Conti 2024 allows each family "up to a proper permutation" (§3.1, eq.
19: ``I_n P`` with ``P`` a permutation matrix; §3.1.2: "adjusting its shape with a proper
permutation"), so a sharp alignment that reorders -- each query reading one key, a different key
for each query -- is a *permuted diagonal*, a positional head. :func:`diagonal_order` finds the
permutation: putting the pairs ``(i, sigma(i))`` on the support removes
``g_ij = max(|a_ij| - eps, 0)`` from the residual, and these gains add up over disjoint pairs, so
the best permuted diagonal is the assignment problem ``max_sigma sum_i g_{i sigma(i)}``
(``scipy.optimize.linear_sum_assignment``; ``tests/papers/conti2024/test_heads.py`` checks it
against all permutations for small ``n``). The map's columns (rows, for a map with more queries
than keys) are reordered so that the assignment lands on the main diagonal, and the three
families are then fitted to the reordered map (the band and the rare-token columns are taken
around the permuted diagonal). Every record carries both classifications: the plain one
(``kind``, ``score``) and, under ``"permuted"``, the one with the permutation. With
``max_errors`` the assignment is the one optimal without the cardinality bound (the projection
for that support is still exact).

Shapes follow :mod:`transformer_theory.glossary`: one map is ``QxK``; several examples of one
head are ``BxQxK``. The study the ``heads`` command runs on trained models (records, files,
figures) is :mod:`._study_heads`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import linear_sum_assignment

from transformer_theory.settings import setting

__all__ = [
    "FAMILIES",
    "KINDS",
    "SYNTHETIC",
    "HeadClassifySettings",
    "check_options_fit",
    "choose_kind",
    "classify_head",
    "classify_map",
    "classify_model",
    "concentration",
    "default_epsilon",
    "diagonal_order",
    "fit_families",
    "offsets",
    "permute",
    "positional_support",
    "project",
    "rare_token_support",
    "synthetic_head",
    "syntactic_support",
    "uniform_like",
    "with_aligned_shares",
]

FAMILIES = ("positional", "rare_token", "syntactic")
KINDS = FAMILIES + ("other", "empty")
SYNTHETIC = FAMILIES + ("diffuse",)  # what synthetic_head builds


@dataclasses.dataclass(frozen=True)
class HeadClassifySettings:
    """How heads are projected and classified (see the module docstring).

    Attributes:
      max_offset: positional heads may sit on the diagonals ``j = i + offset``, ``|offset| <=
        max_offset``.
      bandwidth: ``w`` of ``Sigma_2(w)``.
      max_columns: at most this many rare-token columns.
      epsilon: the error bound ``eps`` (None: half the mean absolute entry of each map).
      max_errors: at most this many non-zero error entries (None: no cardinality bound).
      slack: a simpler family wins when its score is within ``slack`` of the best.
      unexplained_above: a head is ``"other"`` when every family's score exceeds this fraction of
        that family's score on the uniform map of the same shape.
    """

    max_offset: int = 1
    bandwidth: int = 2
    max_columns: int = setting(2, positive=True)
    epsilon: float | None = None
    max_errors: int | None = None
    slack: float = setting(0.1, positive=True)
    unexplained_above: float = 0.5

    def __post_init__(self) -> None:
        for name in ("max_offset", "bandwidth", "max_columns"):
            v = getattr(self, name)
            if not (isinstance(v, (int, np.integer)) and v >= 0):
                raise ValueError(f"{name}: expected a non-negative integer, got {v!r}")
        if self.epsilon is not None and not self.epsilon >= 0:
            raise ValueError(f"epsilon: expected a non-negative bound or None, got {self.epsilon}")
        if self.max_errors is not None and not (
            isinstance(self.max_errors, (int, np.integer)) and self.max_errors >= 0
        ):
            raise ValueError(
                f"max_errors: expected a non-negative count or None, got {self.max_errors!r}"
            )
        if not 0 <= self.slack <= 1:
            raise ValueError(f"slack: expected a fraction in [0, 1], got {self.slack}")
        if not 0 < self.unexplained_above <= 1:
            raise ValueError(
                f"unexplained_above: expected a fraction in (0, 1], got {self.unexplained_above}"
            )

    def replace(self, **changes: object) -> HeadClassifySettings:
        """A copy with ``changes`` (validated again)."""
        return dataclasses.replace(self, **changes)


def _check_map(name: str, a: ArrayLike, ndim: int) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"{name}: expected {ndim} dimensions, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty map, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name}: entries must be finite")
    return arr


def offsets(q: int, k: int) -> np.ndarray:
    """``offset[i, j] = j - i`` for a ``q x k`` map (key position minus query position)."""
    return np.arange(k)[None, :] - np.arange(q)[:, None]


def positional_support(q: int, k: int, offset: int = 0) -> np.ndarray:
    """``Sigma_1``: the diagonal ``j = i + offset``."""
    return offsets(q, k) == offset


def syntactic_support(q: int, k: int, bandwidth: int) -> np.ndarray:
    """``Sigma_2(w)``: the band ``|j - i| <= w``."""
    return np.abs(offsets(q, k)) <= bandwidth


def rare_token_support(q: int, k: int, columns: Sequence[int]) -> np.ndarray:
    """``Sigma_3``: the diagonal and whole key columns ``columns``."""
    s = positional_support(q, k, 0)
    s[:, list(columns)] = True
    return s


def default_epsilon(a_QxK: ArrayLike) -> float:
    """Half the mean absolute entry: ``1 / (2K)`` for a row-stochastic map."""
    a = np.asarray(a_QxK, np.float64)
    return 0.5 * float(np.abs(a).mean())


def project(
    a_QxK: ArrayLike, support_QxK: ArrayLike, epsilon: float, max_errors: int | None = None
) -> tuple[np.ndarray, float]:
    """The L1 projection of ``a_QxK`` onto ``{P + E : P zero off the support, |e| <= eps}``.

    Conti 2024, eq. 21-22, in closed form: ``x = a`` on the support, ``clip(a, -eps, eps)`` off it;
    with ``max_errors``, only the ``max_errors`` off-support entries of largest gain
    ``min(|a|, eps)`` keep a non-zero error (the rest are 0).

    Returns:
      ``(x_QxK, residual)`` with ``residual = sum |a - x|``.
    """
    a = _check_map("a_QxK", a_QxK, 2)
    support = np.asarray(support_QxK, bool)
    if support.shape != a.shape:
        raise ValueError(f"support_QxK: expected shape {a.shape}, got {support.shape}")
    if not epsilon >= 0:
        raise ValueError(f"epsilon: expected a non-negative bound, got {epsilon}")
    x = np.where(support, a, np.clip(a, -epsilon, epsilon))
    if max_errors is not None:
        gain = np.where(support, -1.0, np.minimum(np.abs(a), epsilon)).ravel()
        off = int((~support).sum())
        if max_errors < off:
            drop = np.argsort(-gain, kind="stable")[max_errors:]
            flat = x.ravel()
            flat[drop[~support.ravel()[drop]]] = 0.0
            x = flat.reshape(a.shape)
    return x, float(np.abs(a - x).sum())


def _off_residual(a: np.ndarray, epsilon: float) -> np.ndarray:
    """Per-entry residual of an entry left off the support: ``max(|a| - eps, 0)``."""
    return np.maximum(np.abs(a) - epsilon, 0.0)


def uniform_like(a_QxK: ArrayLike) -> np.ndarray:
    """The structureless map of ``a_QxK``'s shape and row masses: each row spread evenly over its
    keys -- over ``j <= i`` when ``a_QxK`` is causal (square, exactly zero above the diagonal)."""
    a = _check_map("a_QxK", a_QxK, 2)
    q, k = a.shape
    allowed = np.ones((q, k), bool)
    if q == k and q > 1 and not np.triu(a, 1).any():
        allowed = np.tril(allowed)
    rows = np.abs(a).sum(axis=1, keepdims=True)
    return allowed * rows / allowed.sum(axis=1, keepdims=True)


def check_options_fit(options: HeadClassifySettings, q: int, k: int) -> None:
    """Raise ``ValueError`` naming the option when a family's support covers the whole ``q x k``
    map: then every map fits that family exactly, and "syntactic" or "rare-token" would be a
    verdict about the option, not about the head (``--bandwidth 1000`` on a 9 x 9 map)."""
    widest = max(q, k) - 1  # |i - j| <= widest holds on every entry
    if options.bandwidth >= widest:
        raise ValueError(
            f"bandwidth: w = {options.bandwidth} covers the whole {q} x {k} map (|i - j| <= "
            f"{widest} everywhere), so every head would be syntactic; use w < {widest}"
        )
    if options.max_columns >= k:
        raise ValueError(
            f"max_columns: {options.max_columns} columns cover all {k} keys of the {q} x {k} "
            f"map, so every head would be rare-token; use at most {k - 1}"
        )


def fit_families(
    a_QxK: ArrayLike, options: HeadClassifySettings = HeadClassifySettings()
) -> dict[str, dict]:
    """Project ``a_QxK`` onto each family; returns ``family -> {score, residual, fit}``.

    ``fit`` names the best support: ``{"offset": o}``, ``{"columns": [t, ...]}`` or
    ``{"bandwidth": w}``; ``score`` is the relative residual (0 = explained exactly).
    """
    a = _check_map("a_QxK", a_QxK, 2)
    q, k = a.shape
    check_options_fit(options, q, k)
    mass = float(np.abs(a).sum())
    eps = default_epsilon(a) if options.epsilon is None else options.epsilon

    def result(support, fit):
        _, res = project(a, support, eps, options.max_errors)
        return dict(score=res / mass if mass > 0 else 0.0, residual=res, fit=fit)

    fits = {}
    best = None
    for o in range(-options.max_offset, options.max_offset + 1):
        r = result(positional_support(q, k, o), {"offset": o})
        if best is None or r["residual"] < best["residual"] - 1e-15:
            best = r
    fits["positional"] = best
    # Rare-token columns: the residual a column removes (beyond the diagonal) adds over columns,
    # so the largest gains are the optimal set when there is no cardinality bound on E.
    gains = np.where(positional_support(q, k, 0), 0.0, _off_residual(a, eps)).sum(axis=0)
    columns = sorted(int(c) for c in np.argsort(-gains, kind="stable")[: options.max_columns])
    fits["rare_token"] = result(rare_token_support(q, k, columns), {"columns": columns})
    w = options.bandwidth
    fits["syntactic"] = result(syntactic_support(q, k, w), {"bandwidth": w})
    return fits


def choose_kind(
    scores: dict[str, float],
    baseline: dict[str, float],
    options: HeadClassifySettings = HeadClassifySettings(),
) -> str:
    """The simplest family within ``slack`` of the best score, or ``"other"`` when every family
    scores above ``unexplained_above`` times its ``baseline`` (its score on the uniform map; a
    family that explains the uniform map exactly tells nothing and is left out of that test)."""
    informative = [f for f in FAMILIES if baseline[f] > 0]
    if informative and all(
        scores[f] > options.unexplained_above * baseline[f] for f in informative
    ):
        return "other"
    best = min(scores[f] for f in FAMILIES)
    return next(f for f in FAMILIES if scores[f] <= best + options.slack)


def concentration(a_QxK: ArrayLike) -> float:
    """Mean over rows (with any weight) of the largest entry's share of the row: 1 when each
    query reads one key, ``1 / K`` for uniform rows."""
    a = np.abs(_check_map("a_QxK", a_QxK, 2))
    rows = a.sum(axis=1)
    live = rows > 0
    return float((a.max(axis=1)[live] / rows[live]).mean()) if live.any() else 0.0


def diagonal_order(a_QxK: ArrayLike, epsilon: float) -> tuple[str, np.ndarray]:
    """The permutation that makes ``a_QxK`` as diagonal as possible (see the module docstring).

    Solves ``max_sigma sum_i g_{i, sigma(i)}`` over injective ``sigma`` (rows to distinct
    columns, or columns to distinct rows when ``Q > K``), ``g = max(|a| - eps, 0)`` the residual
    an entry removes when it joins the support.

    Returns:
      ``(axis, order)``: ``axis`` is ``"columns"`` (``Q <= K``; ``a[:, order]`` has the assigned
      entries on its diagonal) or ``"rows"`` (``Q > K``; ``a[order]`` has them there).
    """
    a = _check_map("a_QxK", a_QxK, 2)
    if not epsilon >= 0:
        raise ValueError(f"epsilon: expected a non-negative bound, got {epsilon}")
    q, k = a.shape
    rows, cols = linear_sum_assignment(_off_residual(a, epsilon), maximize=True)
    if q <= k:  # every row is assigned, in order
        rest = np.setdiff1d(np.arange(k), cols)
        return "columns", np.concatenate([cols, rest]).astype(int)
    order = np.empty(q, int)
    order[cols] = rows  # row rows[m] moves to position cols[m], onto the diagonal
    order[k:] = np.setdiff1d(np.arange(q), rows)
    return "rows", order


def permute(a_QxK: ArrayLike, axis: str, order: Sequence[int] | np.ndarray) -> np.ndarray:
    """``a_QxK`` with its ``axis`` (``"columns"`` or ``"rows"``) reordered by ``order``."""
    a = np.asarray(a_QxK, np.float64)
    return a[:, order] if axis == "columns" else a[np.asarray(order)]


def _kind_of(a: np.ndarray, uniform: np.ndarray, eps: float, options: HeadClassifySettings) -> dict:
    fits = fit_families(a, options.replace(epsilon=eps))
    scores = {f: fits[f]["score"] for f in FAMILIES}
    base = fit_families(uniform, options.replace(epsilon=eps))
    baseline = {f: base[f]["score"] for f in FAMILIES}
    kind = choose_kind(scores, baseline, options)
    return dict(
        kind=kind,
        score=min(scores.values()) if kind == "other" else scores[kind],
        scores=scores,
        baseline=baseline,
        fits={f: fits[f]["fit"] for f in FAMILIES},
    )


def classify_map(a_QxK: ArrayLike, options: HeadClassifySettings = HeadClassifySettings()) -> dict:
    """One map: ``{kind, score, scores: {family: score}, baseline: {family: score of the uniform
    map}, fits: {family: fit}, concentration, permuted}``; ``score`` is the chosen family's (for
    ``"other"``, the best family's). ``permuted`` holds the same keys for the classification up
    to a permutation (module docstring), plus ``axis`` and ``order`` (:func:`diagonal_order`);
    the uniform baseline gets its own best permutation."""
    a = _check_map("a_QxK", a_QxK, 2)
    if not np.abs(a).sum() > 0:  # a ReLU head that attends to nothing on this input
        fits = fit_families(a, options)
        empty = dict(
            kind="empty",
            score=0.0,
            scores={f: fits[f]["score"] for f in FAMILIES},
            baseline=dict.fromkeys(FAMILIES, 0.0),
            fits={f: fits[f]["fit"] for f in FAMILIES},
        )
        order = list(range(a.shape[1] if a.shape[0] <= a.shape[1] else a.shape[0]))
        axis = "columns" if a.shape[0] <= a.shape[1] else "rows"
        return dict(empty, concentration=0.0, permuted=dict(empty, axis=axis, order=order))
    eps = default_epsilon(a) if options.epsilon is None else options.epsilon
    uniform = uniform_like(a)
    out = _kind_of(a, uniform, eps, options)
    axis, order = diagonal_order(a, eps)
    u_axis, u_order = diagonal_order(uniform, eps)
    perm = _kind_of(permute(a, axis, order), permute(uniform, u_axis, u_order), eps, options)
    perm.update(axis=axis, order=[int(i) for i in order])
    return dict(out, concentration=concentration(a), permuted=perm)


def _vote(per: list[dict]) -> dict:
    counts = {k: sum(p["kind"] == k for p in per) for k in KINDS}
    kind = max(KINDS, key=lambda k: (counts[k], -KINDS.index(k)))
    agreement = counts[kind] / len(per)
    if kind == "empty":
        per = [p for p in per if p["kind"] != "empty"] or per
    mean = {f: float(np.mean([p["scores"][f] for p in per])) for f in FAMILIES}
    family = kind if kind in FAMILIES else min(FAMILIES, key=lambda f: mean[f])
    fits = [p["fits"][family] for p in per]
    keys = [repr(f) for f in fits]
    fit = fits[keys.index(max(keys, key=keys.count))]
    return dict(
        kind=kind,
        score=mean[family],
        agreement=agreement,
        kinds={k: v for k, v in counts.items() if v},
        scores=mean,
        fit=fit,
    )


def classify_head(
    maps_BxQxK: ArrayLike, options: HeadClassifySettings = HeadClassifySettings()
) -> dict:
    """A head seen on several inputs: classify each map, then vote.

    Returns ``{kind, score, agreement, kinds: {kind: count}, scores: {family: mean score},
    concentration, examples, fit, permuted}``: ``kind`` is the most frequent per-example kind
    (ties to the simpler one), ``agreement`` the share of examples that agree, ``score`` the mean
    score of that family over the examples (the best family's for ``"other"`` and ``"empty"``; an
    ``"empty"`` head -- ReLU attention that reads nothing on most inputs -- is scored on its
    non-empty inputs), and ``fit`` the most frequent best support of that family. ``permuted``
    holds ``{kind, score, agreement, kinds, scores, fit, order}`` of the classification up to a
    permutation (``order``: the most frequent :func:`diagonal_order`).
    """
    maps = _check_map("maps_BxQxK", maps_BxQxK, 3)
    per = [classify_map(m, options) for m in maps]
    out = _vote(per)
    perm = _vote([p["permuted"] for p in per])
    orders = [repr(p["permuted"]["order"]) for p in per]
    best = max(orders, key=orders.count)
    perm.update(axis=per[0]["permuted"]["axis"], order=per[orders.index(best)]["permuted"]["order"])
    return dict(
        out,
        concentration=float(np.mean([p["concentration"] for p in per])),
        examples=len(per),
        permuted=perm,
    )


def synthetic_head(
    kind: str, n: int, rng: np.random.Generator, *, noise: float = 0.1, sharpness: float = 4.0
) -> np.ndarray:
    """A row-stochastic ``n x n`` map of one kind, for demonstrations: ``softmax(sharpness * P +
    noise * Z)`` with ``P`` a random member of the family and ``Z`` standard normal.

    ``"positional"``: a diagonal with offset in ``{-1, 0, 1}``; ``"rare_token"``: one random column;
    ``"syntactic"``: random blocks of 2-3 neighbouring positions reading each other;
    ``"diffuse"``: ``P = 0`` (classified ``"other"``).
    """
    if kind not in SYNTHETIC:
        raise ValueError(f"kind: expected one of {SYNTHETIC}, got {kind!r}")
    if not (isinstance(n, (int, np.integer)) and n >= 2):
        raise ValueError(f"n: expected an integer >= 2, got {n!r}")
    p = np.zeros((n, n))
    if kind == "positional":
        p = positional_support(n, n, int(rng.integers(-1, 2))).astype(float)
    elif kind == "rare_token":
        p[:, int(rng.integers(n))] = 1.0
    elif kind == "syntactic":
        start = 0
        while start < n:
            size = int(rng.integers(2, 4))
            p[start : start + size, start : start + size] = 1.0
            start += size
    s = sharpness * p + noise * rng.normal(size=(n, n))
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def classify_model(
    maps: list[tuple[str, int, np.ndarray]], options: HeadClassifySettings = HeadClassifySettings()
) -> list[dict]:
    """Classify every head of a model: one record per head.

    Args:
      maps: ``(attention, layer, maps_BxHxQxK)`` triples -- ``attention`` names the kind of
        attention (``"self"`` for Chen & Zou 2024's layers; ``"encoder"``, ``"decoder"``,
        ``"cross"`` for the encoder-decoder), ``maps_BxHxQxK`` the weights of the layer's ``H``
        heads on ``B`` inputs.
      options: see :class:`HeadClassifySettings`.
    Returns:
      ``[{attention, layer, head, kind, score, agreement, kinds, scores, examples, fit,
      permuted}, ...]`` (``permuted``: the classification up to a permutation).
    """
    records = []
    for attention, layer, m in maps:
        arr = _check_map("maps", m, 4)
        for h in range(arr.shape[1]):
            rec = dict(attention=str(attention), layer=int(layer), head=h)
            rec.update(classify_head(arr[:, h], options))
            records.append(rec)
    return records


def with_aligned_shares(
    records: list[dict], maps: list[tuple[str, int, np.ndarray]], align_BxT: ArrayLike
) -> list[dict]:
    """``records`` (of :func:`classify_model` on ``maps``), each cross-attention head's with
    ``share_on_aligned_word``: the mean weight its queries put on the source position
    ``align_BxT`` names for their target token (positions without one, ``-1``, left out)."""
    align = np.asarray(align_BxT)
    cross = {layer: m for att, layer, m in maps if att == "cross"}
    rows = align >= 0
    out = []
    for rec in records:
        if rec["attention"] == "cross":
            m = np.asarray(cross[rec["layer"]])[:, rec["head"]]  # (B, T, N)
            on = np.take_along_axis(m, np.maximum(align, 0)[..., None], axis=-1)[..., 0]
            rec = dict(rec, share_on_aligned_word=float(on[rows].mean()))
        out.append(rec)
    return out
