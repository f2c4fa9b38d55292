"""Chen & Zou 2024, Lemma 3: a linear classifier for pairwise linearly independent vectors with
distinct labels.

The paper's incremental procedure (§12), rows ``x_i`` and columns ``w_c`` of ``W: (D, C)``:

1. relabel so that ``x_i`` has class ``i``; for ``N = 2`` solve ``[x_0; x_1] [w_0 w_1] = I`` (eq.
   11);
2. for ``k = 2, 3, ...``: let ``i_k = argmax_{c<k} x_k . w_c``; solve ``x_{i_k} . dw = -1``,
   ``x_k . dw = 1`` (possible because ``x_{i_k}``, ``x_k`` are linearly independent); shrink
   ``dw <- dw / M`` until ``x_j . dw < eps`` for every earlier ``j != i_k``, with
   ``eps = min_j (o[j, j] - o[j, i_k])`` (eq. 12); set ``w_k = w_{i_k} + dw`` (eq. 13).

Then ``x_k`` scores ``1/M`` above its old best class, ``x_{i_k}`` scores ``1/M`` below its own
class on the new column, and every other earlier row keeps its argmax. We apply eq. 12 row by
row, ``M = max(1, 2 max_j (x_j . dw)_+ / (o[j, j] - o[j, i_k]))``: each earlier row keeps at least
half of its gap to column ``i_k`` against the new column, and rows that ``dw`` pushes down impose
nothing. (A single ``eps`` for all rows, as printed, is also correct but shrinks the margins
geometrically with ``N``.) Everything is float64 NumPy.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.progress import tqdm


def exactly_parallel(xa_D: ArrayLike, xb_D: ArrayLike) -> bool:
    """Whether ``xb = c xa`` for some real ``c``, decided exactly.

    Every float64 is a dyadic rational, so the test compares the cross products
    ``xb[j] xa[i] = xa[j] xb[i]`` as :class:`fractions.Fraction` values: no threshold, so vectors
    that differ anywhere (the distinct integer vectors of Theorem 5, however large) are never
    called parallel, and float multiples that rounding has made non-proportional are not either.
    Two zero vectors, or a zero vector and any other, count as parallel.
    """
    xa, xb = np.asarray(xa_D, np.float64), np.asarray(xb_D, np.float64)
    support = xa != 0
    if not support.any() or not (xb != 0).any():
        return True
    if not np.array_equal(support, xb != 0):
        return False  # c != 0 keeps the support
    idx = np.flatnonzero(support)
    ai, bi = Fraction(float(xa[idx[0]])), Fraction(float(xb[idx[0]]))
    return all(Fraction(float(xb[j])) * ai == Fraction(float(xa[j])) * bi for j in idx[1:])


def _pair_inverse(xa: np.ndarray, xb: np.ndarray, ia: int, ib: int) -> tuple[np.ndarray, float]:
    """``W_Dx2`` of minimum norm with ``[xa; xb] W = I`` (columns in the span of ``xa, xb``), and
    ``sin`` of the angle between ``xa`` and ``xb``.

    The hypothesis (not parallel) is decided exactly (:func:`exactly_parallel`), never by a
    threshold. The solve goes through a Householder QR of ``[xa xb]``: its error grows like
    ``eps / sin``, where the normal equations (the Gram matrix) would square that.
    """
    if exactly_parallel(xa, xb):
        raise ValueError(
            f"x_BxD: rows {ia} and {ib} are parallel; Lemma 3 needs pairwise linearly "
            "independent vectors"
        )
    q, r = np.linalg.qr(np.stack([xa, xb], axis=1))
    sin = abs(r[0, 0] * r[1, 1]) / (np.linalg.norm(xa) * np.linalg.norm(xb))
    return q @ np.linalg.inv(r.T), float(sin)


def _closest(min_sin) -> str:
    sin, a, b = min_sin
    return f"the closest pair solved, rows {a} and {b}, has sin(angle) = {sin:.3g}"


def scores_margins(x_BxD: ArrayLike, labels_B: ArrayLike, w_DxC: ArrayLike) -> np.ndarray:
    """Margins ``o[i, y_i] - max_{c != y_i} o[i, c]`` of ``o = X W`` (float64)."""
    o = np.asarray(x_BxD, np.float64) @ np.asarray(w_DxC, np.float64)
    y = np.asarray(labels_B)
    rows = np.arange(len(y))
    correct = o[rows, y]
    o[rows, y] = -np.inf
    return correct - o.max(axis=1)


def lemma3_classifier(
    x_BxD: ArrayLike,
    labels_B: ArrayLike,
    num_classes: int | None = None,
    progress: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 3's ``W`` with ``argmax_c (x_i W)[c] = y_i`` for every ``i``, by the incremental
    procedure.

    Args:
      x_BxD: ``N`` pairwise linearly independent vectors (rows).
      labels_B: distinct integer labels in ``[0, num_classes)``.
      num_classes: ``C >= N`` (default ``N``). Columns of classes no vector carries are set to the
        mean of the used columns, which is strictly below the best used column on every ``x_i``
        once the used columns separate (``N >= 2``).
      progress: show a tqdm bar over the ``N`` steps.
    Returns:
      ``(w_DxC, margins_B)`` in float64; ``margins_B[i] = (x_i W)[y_i] - max_{c != y_i} (x_i W)[c] >
      0``.
    Raises:
      ValueError: naming the argument, for bad shapes, repeated or out-of-range labels, parallel
        vectors, or (never expected) a non-positive margin after the construction. The hypothesis
        is checked on every pair the procedure solves for, and the result by its margins (an
        anti-parallel pair, outside the hypothesis, may still be separated and is then accepted).
    """
    x = np.asarray(x_BxD, np.float64)
    _validate.check_ndim("x_BxD", x, 2)
    y = np.asarray(labels_B)
    if y.ndim != 1 or y.shape[0] != x.shape[0]:
        raise ValueError(f"labels_B: expected shape ({x.shape[0]},), got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"labels_B: expected integer labels, got dtype {y.dtype}")
    n = x.shape[0]
    _validate.check_positive("x_BxD rows", n)
    C = n if num_classes is None else int(num_classes)
    if C < n:
        raise ValueError(
            f"num_classes: need at least N = {n} classes for N distinct labels, got {C}"
        )
    if len(np.unique(y)) != n:
        raise ValueError("labels_B: Lemma 3 needs distinct labels")
    if y.min() < 0 or y.max() >= C:
        raise ValueError(
            f"labels_B: labels must lie in [0, {C}), got min {y.min()} and max {y.max()}"
        )
    if not np.all(np.isfinite(x)):
        raise ValueError("x_BxD: entries must be finite")
    norms = np.linalg.norm(x, axis=1)
    if (norms == 0).any():
        raise ValueError(f"x_BxD: row {int(np.argmin(norms))} is zero (parallel to every vector)")

    D = x.shape[1]
    w = np.zeros((D, n))  # column i classifies x_i (internal labels = row order)
    # o[:, c] = X @ w_c for all rows (future rows included, so step k reads o[k, :k] directly).
    o = np.zeros((n, n))
    min_sin = None
    if n == 1:
        w[:, 0] = x[0] / (x[0] @ x[0])
        o[:, 0] = x @ w[:, 0]
    else:
        # N = 2 base case, eq. 11: [x0; x1] [w0 w1] = I (minimum-norm solution).
        w[:, :2], sin = _pair_inverse(x[0], x[1], 0, 1)
        min_sin = (sin, 0, 1)
        o[:, :2] = x @ w[:, :2]
        for k in tqdm(range(2, n), disable=not progress or None, desc="Lemma 3", leave=False):
            ik = int(np.argmax(o[k, :k]))
            pair, sin = _pair_inverse(x[ik], x[k], ik, k)
            dw = pair @ np.array([-1.0, 1.0])
            min_sin = min(min_sin, (sin, ik, k))
            others = np.arange(k) != ik
            gap = (o[np.arange(k), np.arange(k)] - o[:k, ik])[others]  # eq. 12's eps, row by row
            if not gap.min() > 0:
                raise ValueError(
                    "x_BxD: an earlier vector lost its margin (numerical breakdown of Lemma 3; "
                    f"{_closest(min_sin)})"
                )
            shift = np.maximum(
                x[:k][others] @ dw, 0.0
            )  # only upward shifts can overtake a row's class
            m = max(1.0, 2.0 * float(np.max(shift / gap)))
            w[:, k] = w[:, ik] + dw / m
            o[:, k] = x @ w[:, k]

    full = np.zeros((D, C))
    full[:, y] = w
    if C > n:
        unused = np.setdiff1d(np.arange(C), y)
        full[:, unused] = (w.mean(axis=1) if n > 1 else np.zeros(D))[:, None]
    margins = scores_margins(x, y, full)
    if not margins.min() > 0:
        raise ValueError(
            f"x_BxD: Lemma 3 produced a non-positive margin {margins.min():g} (numerical "
            f"breakdown{'; ' + _closest(min_sin) if n > 1 else ''})"
        )
    return full, margins
