"""The HiGHS linear programs: the Farkas system (optionally seeded and L1-minimal), the primal
separating map, and the extraction of a certified infeasible core.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator

import numpy as np
import scipy.optimize as so
import scipy.sparse as sp

from transformer_theory.theory.certificates.exact import (
    _certificate_from_pairs,
    _integer_nullvector,
    _rational_nullvector,
)
from transformer_theory.theory.certificates.inputs import _Group, _groups
from transformer_theory.theory.certificates.records import (
    _DELETION_MIN,
    _MAX_SEED_TRIES,
    _SUPPORT_RTOL,
)

# ----------------------------------------------------------------------------- linear programs


# The absolute time.perf_counter() deadline of the running public call (None: no limit). Every
# HiGHS call gets the time left as its own time limit, so one large LP cannot run far past it.
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)


@contextlib.contextmanager
def solver_deadline(deadline: float | None) -> Iterator[None]:
    """Within the block, every HiGHS call stops at ``deadline`` (``time.perf_counter()``)."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def highs_options(options: dict | None = None) -> dict | None:
    """``options`` plus HiGHS's ``time_limit``: the seconds left before the current deadline."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return options
    return dict(options or {}, time_limit=max(deadline - time.perf_counter(), 0.01))


class _SolverGaveUp(Exception):
    """HiGHS ended without an answer (iteration or time limit, numerical trouble: any status
    other than optimal or infeasible). The callers degrade to "undecided" or to the sound bound,
    never to a verdict the solver did not give."""


def _solve_farkas(group: _Group, local_subset, seed: int | None = None, tight: bool = False):
    """Farkas LP on ``local_subset``: ``(pair_ids, float u)`` if ``P_t`` is infeasible there, else
    None.

    Without ``seed``: ``E u = 0, sum u = 1, u >= 0``. With ``seed`` (a local example index):
    ``E u = 0, sum_c u_{seed,c} = 1, u >= 0`` minimizing ``sum u`` -- an L1 objective, which
    favours the lightest (usually smallest) certificate through that example; infeasible means no
    certificate inside ``local_subset`` uses ``seed`` at all. ``tight`` re-solves with feasibility
    tolerances 1e-10 (instead of HiGHS's 1e-7) for a vertex whose support is recovered exactly.
    """
    cols = np.flatnonzero(group.pair_mask(local_subset))
    if len(cols) == 0:
        return None
    E = group.columns(cols)
    if seed is None:
        norm, cost = np.ones(len(cols)), np.zeros(len(cols))
    else:
        norm, cost = (group.pair_example[cols] == seed).astype(np.float64), np.ones(len(cols))
        if not norm.any():
            return None
    A_eq = (
        np.vstack([E, norm[None, :]])
        if isinstance(E, np.ndarray)
        else sp.vstack([E, sp.csr_matrix(norm[None, :])]).tocsc()
    )
    b_eq = np.zeros(A_eq.shape[0])
    b_eq[-1] = 1.0
    # Dual simplex returns a vertex, whose support is small and exactly recoverable.
    options = (
        {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
        if tight
        else None
    )
    res = so.linprog(
        cost,
        A_eq=A_eq,
        b_eq=b_eq,
        bounds=(0, None),
        method="highs-ds",
        options=highs_options(options),
    )
    if res.status == 2:  # infeasible Farkas system <=> feasible P_t (or: seed in no certificate)
        return None
    if res.status != 0:
        raise _SolverGaveUp(f"HiGHS status {res.status} on the Farkas system: {res.message}")
    u = np.asarray(res.x)
    keep = u > _SUPPORT_RTOL * u.max()
    return cols[keep], u[keep]


def _try_farkas(group: _Group, local_subset, seed: int | None = None):
    """:func:`_solve_farkas`, None when HiGHS gives up (used where None only means "no smaller
    core found", so giving up costs tightness, never soundness)."""
    try:
        return _solve_farkas(group, local_subset, seed)
    except _SolverGaveUp:
        return None


def _solve_primal(group: _Group, local_subset):
    """A separating map ``x`` with ``E^T x >= 1`` on ``local_subset``, or None if HiGHS finds
    none."""
    mask = group.pair_mask(local_subset)
    if not mask.any():
        return np.zeros(group.E.shape[0])
    A = -group.E[:, mask].T.astype(np.float64)
    res = so.linprog(
        np.zeros(group.E.shape[0]),
        A_ub=A,
        b_ub=-np.ones(A.shape[0]),
        bounds=(None, None),
        method="highs",
        options=highs_options(),
    )
    return np.asarray(res.x) if res.status == 0 else None


def _exact_certificate(group: _Group, last_token, labels, pair_ids, u):
    """Integer multipliers on the support of ``u`` (exact null vector, else rounding) or None."""
    w = _integer_nullvector(group.E, pair_ids)
    if w is None:
        w = _rational_nullvector(group.E, pair_ids, u)
    if w is None:
        return None
    return _certificate_from_pairs(group, last_token, labels, pair_ids, w)


def _core_of(group: _Group, sol):
    return sorted({int(group.pair_example[j]) for j in sol[0]})


def _find_core(
    group: _Group, last_token, labels, local_subset, minimize: bool, seed: int | None = None
):
    """A certified infeasible subset of ``local_subset`` (local indices) and its certificate.

    Returns ``(core_local, certificate)``; ``(None, None)`` if there is none (through ``seed``,
    if given); ``(None, "undecided")`` if HiGHS reports one but no exact certificate was found.
    With ``minimize`` the core is first replaced by the lightest one through each of a few of
    its examples (L1-seeded LPs), then a deletion filter makes it irreducible (removing any
    example makes the rest separable).
    """
    try:
        sol = _solve_farkas(group, local_subset, seed)
        if sol is None:
            return None, None
        cert = _exact_certificate(group, last_token, labels, *sol)
        if cert is None:  # rounding failed: one tighter solve, then give up honestly
            sol = _solve_farkas(group, local_subset, seed, tight=True)
            cert = None if sol is None else _exact_certificate(group, last_token, labels, *sol)
    except _SolverGaveUp:
        return None, "undecided"
    if cert is None:
        return None, "undecided"
    core = _core_of(group, sol)
    if not minimize:
        return core, cert
    if seed is None:
        for s in core[:_MAX_SEED_TRIES]:
            sol2 = _try_farkas(group, local_subset, s)
            cert2 = None if sol2 is None else _exact_certificate(group, last_token, labels, *sol2)
            if cert2 is not None and len(_core_of(group, sol2)) < len(core):
                core, cert = _core_of(group, sol2), cert2
    k = 0
    while k < len(core) and len(core) > _DELETION_MIN:
        trial = core[:k] + core[k + 1 :]
        sol2 = _try_farkas(group, trial)
        cert2 = None if sol2 is None else _exact_certificate(group, last_token, labels, *sol2)
        if cert2 is not None:
            core, cert = _core_of(group, sol2), cert2
            continue  # the new core omits core[k]; position k now holds the next candidate
        k += 1
    return core, cert


def _prepare(tokens, labels):
    return [(t, _Group(tokens[idx], labels[idx], idx)) for t, idx in _groups(tokens)]
