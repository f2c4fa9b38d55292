"""Exact arithmetic: integer and rational null vectors from an LP's support, the exact re-
verification of a certificate (:func:`check_certificate`) and of a separating map.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from transformer_theory.theory import dependence
from transformer_theory.theory.certificates.inputs import _check_dataset, _Group
from transformer_theory.theory.certificates.records import _MAX_MAP_BITS, Certificate

# ----------------------------------------------------------------------------- exact arithmetic


def _integer_nullvector(E_int, support):
    """Exact solution of ``E[:, support] u = 0`` as a positive integer vector, or None.

    A simplex vertex of the Farkas system has linearly independent support columns once the
    normalization row is added, so the null space of ``E[:, support]`` is one-dimensional and
    the float solution fixes it up to scale; python-flint computes it exactly.
    """
    import flint

    sub = E_int[:, support].tocoo()
    rows_used = np.unique(sub.row)
    dense = np.zeros((len(rows_used), len(support)), np.int64)
    dense[np.searchsorted(rows_used, sub.row), sub.col] = sub.data
    null, nullity = flint.fmpz_mat(dense.tolist()).nullspace()
    if nullity != 1:
        return None
    v = [int(null[r, 0]) for r in range(len(support))]
    if all(x <= 0 for x in v):
        v = [-x for x in v]
    if not all(x > 0 for x in v):
        return None
    g = math.gcd(*v)
    return [x // g for x in v]


def _rational_nullvector(E_int, support, u_float):
    """Fallback: round ``u`` to small rationals and keep it if ``E u = 0`` holds exactly."""
    for max_den in (10**3, 10**6, 10**9):
        fr = [Fraction(float(x)).limit_denominator(max_den) for x in u_float]
        if not all(f > 0 for f in fr):
            continue
        den = math.lcm(*(f.denominator for f in fr))
        v = [int(f * den) for f in fr]
        sub = E_int[:, support].tocsr()
        # Exact integer product with Python ints (no int64 overflow).
        ok = all(
            sum(
                int(sub.data[k]) * v[int(sub.indices[k])]
                for k in range(sub.indptr[r], sub.indptr[r + 1])
            )
            == 0
            for r in range(sub.shape[0])
        )
        if ok:
            g = math.gcd(*v)
            return [x // g for x in v]
    return None


def _certificate_from_pairs(group: _Group, last_token, labels, pair_ids, weights):
    """Build the :class:`Certificate` (global indices, class ids) from integer multipliers."""
    ex_local = sorted({int(group.pair_example[j]) for j in pair_ids})
    pos = {e: r for r, e in enumerate(ex_local)}
    G: dict[int, list[int]] = {}
    duals = []
    for j, w in zip(pair_ids, weights):
        i, c = int(group.pair_example[j]), int(group.pair_class[j])
        yi, ci = group.classes[group.y[i]], group.classes[c]
        duals.append((int(group.indices[i]), ci, int(w)))
        G.setdefault(yi, [0] * len(ex_local))[pos[i]] += int(w)
        G.setdefault(ci, [0] * len(ex_local))[pos[i]] -= int(w)
    duals.sort()
    return Certificate(
        last_token=int(last_token),
        examples=tuple(int(group.indices[i]) for i in ex_local),
        duals=tuple(duals),
        relations={k: tuple(v) for k, v in sorted(G.items())},
    )


def check_certificate(
    tokens_BxN: ArrayLike,
    labels_B: ArrayLike,
    vocab_size: int,
    certificate: Certificate,
    num_classes: int | None = None,
) -> tuple[bool, str]:
    """Re-verify a certificate in exact integer arithmetic, independently of any LP.

    Checks: every example exists and ends with ``certificate.last_token``; every multiplier is a
    positive integer on a wrong class ``c != y_i``; the relations equal the columns of
    ``G = sum u_{i,c} e_i (e_{y_i} - e_c)^T``; and each nonzero relation is a dependence
    (``dependence.is_dependence``: equal per-position token multisets, Def. 3). Together these
    make ``sum u_{i,c} (o_i[y_i] - o_i[c]) = 0`` for every one-layer model of either family, so
    not every margin can be positive.

    Args:
      tokens_BxN: the dataset's token ids.
      labels_B: its labels.
      vocab_size: ``V``.
      certificate: the :class:`Certificate` (or its ``to_dict()``).
      num_classes: ``C`` (default ``max(labels) + 1``); every wrong class must lie in ``[0, C)``.

    Returns:
      ``(ok, reason)``; ``reason`` names the first failed condition.
    """
    if isinstance(certificate, dict):
        certificate = Certificate.from_dict(certificate)
    tokens, labels, C = _check_dataset(
        tokens_BxN, labels_B, vocab_size, num_classes, "relu_any_heads"
    )
    B = tokens.shape[0]
    ex = list(certificate.examples)
    if not ex:
        return False, "the certificate involves no example"
    if len(set(ex)) != len(ex) or any(not 0 <= e < B for e in ex):
        return False, f"examples must be distinct indices in [0, {B}), got {ex}"
    if any(int(tokens[e, -1]) != certificate.last_token for e in ex):
        return False, f"not every example ends with the last token {certificate.last_token}"
    if not certificate.duals:
        return False, "no multiplier: the certificate must have at least one positive u"
    pos = {e: r for r, e in enumerate(ex)}
    G: dict[int, list[int]] = {}
    for e, c, w in certificate.duals:
        if e not in pos:
            return (
                False,
                f"multiplier on example {e}, which is not among the certificate's examples",
            )
        if not (isinstance(w, (int, np.integer)) and w > 0):
            return False, f"multiplier u[{e},{c}] = {w} is not a positive integer"
        if not 0 <= c < C:
            return False, f"multiplier u[{e},{c}] is on class {c}, outside [0, {C})"
        if c == int(labels[e]):
            return False, f"multiplier u[{e},{c}] is on the true class of example {e}"
        G.setdefault(int(labels[e]), [0] * len(ex))[pos[e]] += int(w)
        G.setdefault(int(c), [0] * len(ex))[pos[e]] -= int(w)
    given = {int(k): [int(x) for x in v] for k, v in certificate.relations.items()}
    nonzero = {k: v for k, v in G.items() if any(v)}
    if {k: v for k, v in given.items() if any(v)} != nonzero:
        return False, "the relations are not the columns of G = sum u_ic e_i (e_{y_i} - e_c)^T"
    if not nonzero:
        return False, "every relation is zero"
    sub = tokens[np.asarray(ex)]
    for k, lam in sorted(nonzero.items()):
        if not dependence.is_dependence(sub, lam, vocab_size):
            return (
                False,
                f"the relation of class {k} is not a dependence (per-position token counts differ)",
            )
    return (
        True,
        "verified exactly: every relation is a dependence and the multipliers are "
        "positive integers",
    )


def _verify_map_exactly(group: _Group, local_subset, x_float) -> bool:
    """Rationalize the separating map ``x`` and check ``E^T x > 0`` exactly on ``local_subset``."""
    mask = group.pair_mask(local_subset)
    if not mask.any():
        return True
    Et = group.E[:, mask].T.tocsr()
    for bits in (20, 30, 40, _MAX_MAP_BITS):
        X = [int(v) for v in np.round(np.asarray(x_float, np.float64) * 2.0**bits)]
        ok = True
        for r in range(Et.shape[0]):
            s = sum(
                int(Et.data[k]) * X[int(Et.indices[k])]
                for k in range(Et.indptr[r], Et.indptr[r + 1])
            )
            if s <= 0:
                ok = False
                break
        if ok:
            return True
    return False
