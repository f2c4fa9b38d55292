"""Restricted isometry and orthogonality (Candes & Tao 2005) of the drawn Rademacher matrix ``U``
behind Sanford, Hsu & Telgarsky 2023's qSA unit (Theorem 2, proof outline): its measured ``(q,
delta)`` constants; the matrix itself is drawn where the unit is built
(:func:`._constructions_qsa.rademacher`, re-exported here).

Shape letters: :mod:`transformer_theory.glossary` (``E`` = the rows ``m`` of ``U``, ``K`` key
positions).
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from transformer_theory.papers.sanford2023._constructions_qsa import rademacher  # re-exported

__all__ = ["RIPReport", "rademacher", "rip_constants"]


@dataclasses.dataclass(frozen=True)
class RIPReport:
    """The constants of the ``(q, delta)`` restricted isometry and orthogonality property.

    ``isometry = max |lambda - 1|`` over the eigenvalues of ``U_T^T U_T``, ``|T| = q``;
    ``orthogonality = max ||U_T^T U_T'||_2`` over disjoint ``|T| = q``, ``|T'| = min(2q, N - q)``
    (Candes & Tao 2005, "Decoding by linear programming", their ``theta_{q,2q}``). The slides
    omit "disjoint"; without it ``v = v'`` would force ``||Uv||^2 <= delta``, contradicting the
    isometry, so disjoint supports are what is meant. ``U`` has the property for ``delta`` iff
    both constants are ``<= delta``. ``exhaustive``: every pair ``(T, T')`` was enumerated,
    otherwise ``pairs`` random pairs.
    """

    isometry: float
    orthogonality: float
    pairs: int
    exhaustive: bool

    def holds(self, delta: float) -> bool:
        return self.isometry <= delta and self.orthogonality <= delta


def rip_constants(
    u_ExK: np.ndarray, q: int, *, max_pairs: int = 200_000, seed: int = 0
) -> RIPReport:
    """Measure the RIP/ROP constants of ``u_ExK`` at sparsity ``q`` (see :class:`RIPReport`).

    Enumerates all ``C(N, q) * C(N - q, 2q)`` pairs when that is at most ``max_pairs``, otherwise
    samples ``max_pairs`` random disjoint pairs (a lower bound on the true constants).
    """
    u = np.asarray(u_ExK, np.float64)
    n = u.shape[1]
    if not 1 <= int(q) < n:
        raise ValueError(f"q: expected 1 <= q < N = {n}, got {q}")
    other = min(2 * q, n - q)
    total = math.comb(n, q) * math.comb(n - q, other)
    rng = np.random.default_rng(seed)
    if total <= max_pairs:
        t_list, s_list = [], []
        for t in itertools.combinations(range(n), q):  # lexicographic, as _tasks.all_subsets
            rest = [j for j in range(n) if j not in t]
            for s in itertools.combinations(rest, other):
                t_list.append(t)
                s_list.append(s)
        t_idx, s_idx = np.array(t_list), np.array(s_list)
    else:
        perm = np.argsort(rng.uniform(size=(max_pairs, n)), axis=-1)
        t_idx, s_idx = perm[:, :q], perm[:, q : q + other]
    iso, orth = 0.0, 0.0
    for start in range(0, len(t_idx), 20_000):
        ut = u[:, t_idx[start : start + 20_000]].transpose(1, 0, 2)  # (B, E, q)
        us = u[:, s_idx[start : start + 20_000]].transpose(1, 0, 2)
        eig = np.linalg.eigvalsh(np.einsum("bet,bes->bts", ut, ut))
        iso = max(iso, float(np.max(np.abs(eig - 1.0))))
        sv = np.linalg.norm(np.einsum("bet,bes->bts", ut, us), ord=2, axis=(1, 2))
        orth = max(orth, float(np.max(sv)))
    return RIPReport(iso, orth, len(t_idx), total <= max_pairs)
