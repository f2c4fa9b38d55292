"""The public functions: :func:`certify_dataset` (is the dataset impossible for the family?) and
:func:`accuracy_upper_bound` (how many examples can the family get right?), with the per-group
sound and exact bounds.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import numpy as np
import scipy.optimize as so
from numpy.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.theory.certificates.exact import _verify_map_exactly, check_certificate
from transformer_theory.theory.certificates.inputs import _check_dataset, contradictory_rows
from transformer_theory.theory.certificates.programs import (
    _find_core,
    _prepare,
    _solve_farkas,
    _solve_primal,
    _SolverGaveUp,
    solver_deadline,
)
from transformer_theory.theory.certificates.records import (
    _WINDOW,
    BoundRecord,
    Certificate,
    CertificateRecord,
    GroupResult,
)

# ----------------------------------------------------------------------------- public API


def certify_dataset(
    tokens_BxN: ArrayLike,
    labels_B: ArrayLike,
    vocab_size: int,
    num_classes: int | None = None,
    family: str = "relu_any_heads",
    *,
    minimize: bool = True,
    deadline: float | None = None,
) -> CertificateRecord:
    """Decide with a linear program whether a one-layer model of ``family`` could classify every
    example.

    Solves the relaxation ``P_t`` (module docstring) of every last-token group with HiGHS. For an
    infeasible group it returns the Farkas certificate -- one dependence per class and positive
    integer multipliers -- re-verified exactly by :func:`check_certificate`. Feasible everywhere:
    "no certificate", which proves nothing about the family (the relaxation admits any linear map).

    Args:
      tokens_BxN: integer token ids, one sequence per row.
      labels_B: integer class labels in ``[0, num_classes)``.
      vocab_size: ``V``; token ids must lie in ``[0, V)``.
      num_classes: ``C`` (default ``max(labels) + 1``).
      family: ``"relu_any_heads"`` or ``"softmax_one_head"`` -- the same program covers both.
      minimize: shrink each certificate to an irreducible set of examples (deletion filter).
      deadline: optional absolute ``time.perf_counter()`` time; groups not started by then are
        "undecided" (a command passes the deadline of its whole run).

    Returns:
      A :class:`CertificateRecord`; ``verdict == "impossible"`` with ``verified_exactly`` when a
      certificate was found and checked exactly.
    """
    with solver_deadline(deadline):
        return _certify_dataset(
            tokens_BxN,
            labels_B,
            vocab_size,
            num_classes,
            family,
            minimize=minimize,
            deadline=deadline,
        )


def _certify_dataset(
    tokens_BxN,
    labels_B,
    vocab_size: int,
    num_classes: int | None = None,
    family: str = "relu_any_heads",
    *,
    minimize: bool = True,
    deadline: float | None = None,
) -> CertificateRecord:
    """:func:`certify_dataset`'s body (the deadline is set for every HiGHS call)."""
    t0 = time.perf_counter()
    tokens, labels, C = _check_dataset(tokens_BxN, labels_B, vocab_size, num_classes, family)
    contradictions = contradictory_rows(tokens, labels)
    results = []
    for t, g in _prepare(tokens, labels):
        res = GroupResult(
            last_token=t, num_examples=len(g.indices), classes=g.classes, status="trivial"
        )
        if len(g.classes) > 1 and deadline is not None and time.perf_counter() > deadline:
            res.status, res.note = "undecided", "the time limit was reached before this group"
        elif len(g.classes) > 1:
            core, cert = _find_core(g, t, labels, np.arange(len(g.y)), minimize)
            if isinstance(cert, Certificate):
                ok, why = check_certificate(tokens, labels, vocab_size, cert, C)
                res.status, res.certificate, res.verified_exactly = "infeasible", cert, ok
                res.note = why
            elif cert == "undecided":
                res.status, res.note = (
                    "undecided",
                    "HiGHS gave no answer, or reported infeasible without an exactly verifiable "
                    "certificate",
                )
            else:
                x = _solve_primal(g, np.arange(len(g.y)))
                res.status = "feasible"
                res.verified_exactly = x is not None and _verify_map_exactly(
                    g, np.arange(len(g.y)), x
                )
                res.note = (
                    "a linear map of the counts separates this group (checked exactly)"
                    if res.verified_exactly
                    else (
                        "the Farkas system is infeasible; the separating map could not "
                        "be checked exactly"
                    )
                )
        else:
            res.verified_exactly, res.note = True, "one class only: nothing to separate"
        results.append(res)
    impossible = any(r.status == "infeasible" and r.verified_exactly for r in results)
    verdict = "impossible" if impossible else "no certificate"
    return CertificateRecord(
        family=family,
        verdict=verdict,
        verified_exactly=impossible,
        num_examples=int(len(labels)),
        seq_len=int(tokens.shape[1]),
        vocab_size=int(vocab_size),
        num_classes=C,
        groups=results,
        seconds=time.perf_counter() - t0,
        contradictions=contradictions,
    )


def _min_hitting_set(
    cores: Sequence[Sequence[int]], n: int, time_limit: float | None = None
) -> list[int]:
    """Minimum set of local indices meeting every core (0/1 MILP, integer data, gap 0).

    Raises :class:`_SolverGaveUp` when HiGHS stops without proving optimality (e.g. at
    ``time_limit`` seconds).
    """
    if not cores:
        return []
    A = np.zeros((len(cores), n))
    for r, c in enumerate(cores):
        A[r, list(c)] = 1.0
    res = so.milp(
        np.ones(n),
        integrality=np.ones(n),
        bounds=so.Bounds(0, 1),
        constraints=so.LinearConstraint(A, lb=np.ones(len(cores)), ub=np.inf),
        options={"mip_rel_gap": 0.0}
        | ({} if time_limit is None else {"time_limit": max(time_limit, 0.01)}),
    )
    if res.status != 0:
        raise _SolverGaveUp(f"HiGHS status {res.status} on the hitting-set MILP: {res.message}")
    return [int(i) for i in np.flatnonzero(np.round(res.x) > 0.5)]


def _disjoint_cores(cores: Sequence[Sequence[int]]) -> int:
    """How many pairwise disjoint cores a greedy pass finds (smallest first): each forces one
    error, so this is a sound lower bound on the errors without any solver."""
    used: set[int] = set()
    count = 0
    for core in sorted(cores, key=len):
        if used.isdisjoint(core):
            used.update(core)
            count += 1
    return count


def _pack_cores(
    group, t, tokens, labels, vocab_size, local_subset, cores, minimize, deadline
) -> str:
    """Append disjoint certified cores found inside ``local_subset`` to ``cores``.

    Every example is tried as the seed of an L1 Farkas LP until no core through it remains in
    what is left, so on ``"feasible"`` no example left lies in any core: the rest is separable.
    Returns ``"feasible"``, ``"timeout"`` or ``"undecided"``.
    """
    rest = set(int(i) for i in local_subset)
    for seed in sorted(rest):
        while seed in rest:
            if time.perf_counter() > deadline:
                return "timeout"
            core, cert = _find_core(group, t, labels, sorted(rest), minimize, seed)
            if core is None:
                if cert == "undecided":
                    return "undecided"
                break
            ok, why = check_certificate(tokens, labels, vocab_size, cert)
            if not ok:  # never build a bound on an unverified core
                raise RuntimeError(f"internal error: a certificate failed its exact check ({why})")
            cores.append(core)
            rest -= set(core)
    return "feasible"


@dataclasses.dataclass(frozen=True)
class _BoundContext:
    """What a per-group bound needs besides the group."""

    last_token: int
    tokens: np.ndarray
    labels: np.ndarray
    vocab_size: int
    minimize: bool
    deadline: float
    max_iterations: int

    def pack(self, group, local_subset, cores) -> str:
        return _pack_cores(
            group,
            self.last_token,
            self.tokens,
            self.labels,
            self.vocab_size,
            local_subset,
            cores,
            self.minimize,
            self.deadline,
        )


@dataclasses.dataclass
class _GroupBound:
    """One group's share: at most ``max_correct`` right, ``lower`` provably reachable (when
    ``exact``), the certified cores (local indices) it rests on."""

    max_correct: int
    lower: int
    exact: bool
    iterations: int
    cores: list


def _separable_exactly(group, local_subset) -> bool:
    """A separating map of ``local_subset`` found by HiGHS and checked in exact rationals."""
    x = _solve_primal(group, np.asarray(local_subset))
    return x is not None and _verify_map_exactly(group, np.asarray(local_subset), x)


def _group_bound_sound(group, context: _BoundContext) -> _GroupBound:
    """Greedy disjoint certified cores: ``k`` of them force ``k`` errors.

    Large groups are packed inside windows of lexicographically sorted sequences first (small LPs;
    related sequences sit close), then over everything that is left. Without any core the whole
    group is separable, and the bound is attained when an exact separating map confirms it.
    """
    n = len(group.y)
    cores: list[list[int]] = []
    if n > _WINDOW:
        order = np.lexsort(context.tokens[group.indices].T[::-1])
        for start in range(0, n, _WINDOW):
            if context.pack(group, order[start : start + _WINDOW], cores) == "timeout":
                break
    used = {i for c in cores for i in c}
    end = context.pack(group, [i for i in range(n) if i not in used], cores)
    exact = end == "feasible" and not cores and _separable_exactly(group, np.arange(n))
    return _GroupBound(n - len(cores), n if exact else 0, exact, 1, cores)


def _group_bound_exact(group, context: _BoundContext) -> _GroupBound:
    """Implicit hitting sets: the relaxation's optimum, proved from both sides.

    Each round: a minimum hitting set of the cores so far (MILP); if the rest is separable (an
    exactly verified map), the hitting set is optimal and the bound exact. Otherwise new cores are
    extracted from the rest. When rounds, time or the solver run out, the certified cores still
    bound the errors: by the hitting-set MILP if it can be solved, else by disjoint cores.
    """
    n = len(group.y)
    cores: list[list[int]] = []
    iterations = 0
    for _ in range(context.max_iterations):
        iterations += 1
        try:
            remaining = context.deadline - time.perf_counter()
            hit = set(_min_hitting_set(cores, n, time_limit=remaining))
            rest = [i for i in range(n) if i not in hit]
            before = len(cores)
            # One LP first: when the rest is already separable, no seed needs trying.
            separable = _solve_farkas(group, rest) is None
        except _SolverGaveUp:
            break
        end = "feasible" if separable else context.pack(group, rest, cores)
        if end != "feasible" or len(cores) == before:
            # No new core: the rest is separable, so the hitting set is optimal.
            if end == "feasible" and _separable_exactly(group, rest):
                return _GroupBound(len(rest), len(rest), True, iterations, cores)
            break
    try:
        errors = len(_min_hitting_set(cores, n, max(context.deadline - time.perf_counter(), 1)))
    except _SolverGaveUp:
        errors = _disjoint_cores(cores)
    return _GroupBound(n - errors, 0, False, iterations, cores)


def accuracy_upper_bound(
    tokens_BxN: ArrayLike,
    labels_B: ArrayLike,
    vocab_size: int,
    num_classes: int | None = None,
    family: str = "relu_any_heads",
    *,
    method: str = "exact",
    max_iterations: int = 200,
    time_limit: float = 60.0,
    minimize: bool = True,
    deadline: float | None = None,
) -> BoundRecord:
    """Upper bound on how many examples a one-layer model of ``family`` can classify correctly.

    ``method="exact"``: implicit hitting sets (module docstring) -- the optimum of the relaxation,
    proved from both sides (certified cores + a MILP hitting set; an exactly verified separating
    map on the rest). Falls back to the best sound bound found so far when ``max_iterations`` or
    ``time_limit`` runs out (then ``exact`` is False). ``method="sound"``: greedy disjoint
    certified cores; ``k`` cores force ``k`` errors. Each core is re-verified exactly.

    Args:
      tokens_BxN, labels_B, vocab_size, num_classes, family: as in :func:`certify_dataset`.
      method: ``"exact"`` or ``"sound"``.
      max_iterations: hitting-set rounds per group (exact method).
      time_limit: seconds for the whole computation.
      minimize: shrink cores to irreducible ones (tighter sound bounds, fewer rounds).
      deadline: an absolute ``time.perf_counter()`` time that replaces ``time_limit`` (a command
        passes the deadline of its whole run, loading included).

    When HiGHS stops without an answer (a status other than optimal or infeasible), the group
    keeps the cores certified so far and the bound falls back to the sound one they give
    (``exact`` False); the record never claims more than the solver proved.

    Returns:
      A :class:`BoundRecord`; e.g. Theorem 2's toy set gives ``max_correct = 3`` of 4.
    """
    limit = time.perf_counter() + time_limit if deadline is None else deadline
    with solver_deadline(limit):
        return _accuracy_upper_bound(
            tokens_BxN,
            labels_B,
            vocab_size,
            num_classes,
            family,
            method=method,
            max_iterations=max_iterations,
            time_limit=time_limit,
            minimize=minimize,
            deadline=deadline,
        )


def _accuracy_upper_bound(
    tokens_BxN,
    labels_B,
    vocab_size: int,
    num_classes: int | None = None,
    family: str = "relu_any_heads",
    *,
    method: str = "exact",
    max_iterations: int = 200,
    time_limit: float = 60.0,
    minimize: bool = True,
    deadline: float | None = None,
) -> BoundRecord:
    """:func:`accuracy_upper_bound`'s body (the deadline is set for every HiGHS call)."""
    _validate.check_choice("method", method, ("exact", "sound"))
    _validate.check_positive("max_iterations", max_iterations)
    _validate.check_positive("time_limit", time_limit)
    t0 = time.perf_counter()
    deadline = t0 + time_limit if deadline is None else deadline
    tokens, labels, _ = _check_dataset(tokens_BxN, labels_B, vocab_size, num_classes, family)
    total_bound, total_lower, exact, iterations = 0, 0, True, 0
    all_cores = []
    bound_group = _group_bound_sound if method == "sound" else _group_bound_exact
    for t, g in _prepare(tokens, labels):
        n = len(g.y)
        if len(g.classes) == 1:
            total_bound += n
            total_lower += n
            continue
        context = _BoundContext(t, tokens, labels, vocab_size, minimize, deadline, max_iterations)
        result = bound_group(g, context)
        total_bound += result.max_correct
        total_lower += result.lower
        exact &= result.exact
        iterations += result.iterations
        all_cores += [[int(g.indices[i]) for i in c] for c in result.cores]
    B = len(labels)
    lower = total_lower if exact else None
    return BoundRecord(
        family=family,
        method=method,
        num_examples=B,
        max_correct=int(total_bound),
        exact=bool(exact),
        lower_bound=lower,
        cores=all_cores,
        iterations=iterations,
        seconds=time.perf_counter() - t0,
    )
