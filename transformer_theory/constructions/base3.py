"""Base 3 for Theorem 5's single-head construction (Chen & Zou 2024, §14.2): exact integer
certificates that distinct templates get distinct layer-2 vectors.

No proof is known for base 3 (:mod:`.templates` proves base ``B >= l + 4``). Coordinate ``r < l`` of
the layer-2 last stream is ``v_r = 3^(l-1-r) + f(C(r))``, ``f(C) = (2 + |C|) S_C``,
``S_C = sum_{j in C} 3^(l-1-j)``, ``C(r)`` the positions sharing ``r``'s wildcard
(:func:`.templates.template_code`). Injectivity of ``f`` on the non-empty subsets of
``{0..L-1}`` implies distinct vectors for every ``l <= L``.

- :func:`block_collisions`: the carry automaton over the base-3 digits of both sides of
  ``(2+m) S_E = (2+m') S_E'`` (``O(L^6)`` work for all size pairs instead of ``2^L`` subsets);
  :func:`collision_witness` backtracks one collision; :func:`sort_collides` is the brute force.
- :func:`all_rgs`, :func:`codes`, :func:`direct_distinct`: every template of length ``l`` and its
  vector in int64 (no overflow below ``l = 36``).
- :func:`model_agrees`: the library's formula and the built model's float64 streams equal
  :func:`codes` (call with 64-bit mode on).
- :func:`certify`: all four to given bounds, one typed :class:`Base3Certificate`
  (``experiments/theorem5_base3_certify.py`` and the claims ledger run it).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import numpy as np

from transformer_theory import _validate

__all__ = [
    "Base3Certificate",
    "BlockCertificate",
    "DirectCheck",
    "LengthCount",
    "ModelCheck",
    "SortCheck",
    "all_rgs",
    "block_collisions",
    "carry_reachable",
    "certify",
    "code_factor",
    "codes",
    "collision_witness",
    "direct_distinct",
    "model_agrees",
    "sort_collides",
]


def code_factor(m: int) -> int:
    """The factor ``2 + |C|`` of ``f``."""
    return 2 + m


def carry_reachable(
    L: int, m: int, m2: int, mult: Callable[[int], int] = code_factor, keep: bool = False
) -> tuple[bool, list[np.ndarray] | None]:
    """Run the carry automaton for exponent sets of sizes ``m`` and ``m2`` within ``{0..L-1}``.

    Returns ``(collides, layers)``; ``layers[e]`` is the boolean state array before digit ``e``
    (only with ``keep``), indexed ``[carry + cmax, ones of E, ones of E']``.
    """
    p, q = mult(m), mult(m2)
    cmax = max(abs(p), abs(q))  # |c| <= cmax => |(c + p a - q b) / 3| <= cmax
    carries = np.arange(-cmax, cmax + 1)
    moves = []
    for a in (0, 1):
        for b in (0, 1):
            t = carries + p * a - q * b
            ok = t % 3 == 0
            dst = t[ok] // 3 + cmax
            assert dst.min() >= 0 and dst.max() <= 2 * cmax
            moves.append((a, b, np.flatnonzero(ok), dst))
    reach = np.zeros((2 * cmax + 1, m + 1, m2 + 1), bool)
    reach[cmax, 0, 0] = True
    layers = [reach] if keep else None
    for _ in range(L):
        new = np.zeros_like(reach)
        for a, b, src, dst in moves:
            new[dst, a:, b:] |= reach[src, : m + 1 - a, : m2 + 1 - b]
        reach = new
        if keep:
            layers.append(reach)
        if not reach.any():
            return False, layers
    return bool(reach[cmax, m, m2]), layers


def collision_witness(
    L: int, m: int, m2: int, mult: Callable[[int], int] = code_factor
) -> tuple[list[int], list[int]]:
    """Exponent sets ``(E, E')`` of sizes ``m``, ``m2`` with ``mult(m) S_E = mult(m2) S_E'``."""
    p, q = mult(m), mult(m2)
    found, layers = carry_reachable(L, m, m2, mult, keep=True)
    assert found
    cmax = (layers[0].shape[0] - 1) // 2
    E, E2 = [], []
    c, i, j = 0, m, m2
    for e in range(L - 1, -1, -1):
        for a in (0, 1):
            for b in (0, 1):
                prev_c, pi, pj = 3 * c - p * a + q * b, i - a, j - b
                if abs(prev_c) <= cmax and pi >= 0 and pj >= 0 and layers[e][prev_c + cmax, pi, pj]:
                    break
            else:
                continue
            break
        else:
            raise AssertionError("automaton backtrack failed")
        E += [e] * a
        E2 += [e] * b
        c, i, j = prev_c, pi, pj
    E, E2 = sorted(E), sorted(E2)
    assert p * sum(3**e for e in E) == q * sum(3**e for e in E2)  # exact: Python ints
    return E, E2


def block_collisions(L: int, mult: Callable[[int], int] = code_factor) -> list[tuple[int, int]]:
    """Every ``(m, m')``, ``1 <= m < m' <= L``, for which ``f`` collides on subsets of
    ``{0..L-1}`` of those sizes (equal sizes never collide: ``S`` is injective)."""
    return [
        (m, m2)
        for m in range(1, L + 1)
        for m2 in range(m + 1, L + 1)
        if carry_reachable(L, m, m2, mult)[0]
    ]


def sort_collides(L: int, mult: Callable[[int], int] = code_factor) -> bool:
    """Brute force: do two non-empty subsets of ``{0..L-1}`` share a value of ``f``?"""
    masks = np.arange(1, 1 << L, dtype=np.int64)
    S = np.zeros_like(masks)
    ones = np.zeros_like(masks)
    for e in range(L):
        bit = (masks >> e) & 1
        S += bit * 3**e
        ones += bit
    mults = np.array([mult(m) for m in range(L + 1)], np.int64)
    values = np.sort(mults[ones] * S)
    return bool((values[1:] == values[:-1]).any())


def all_rgs(l: int) -> np.ndarray:
    """Every template of length ``l`` as restricted growth strings, ``(Bell(l), l)`` int8."""
    rows = np.zeros((1, 1), np.int8)
    top = np.zeros(1, np.int64)
    for _ in range(l - 1):
        reps = top + 2  # the next wildcard is any of 0..top or a new one, top + 1
        offsets = np.repeat(np.cumsum(reps) - reps, reps)
        nxt = np.arange(int(reps.sum())) - offsets
        rows = np.concatenate([np.repeat(rows, reps, axis=0), nxt[:, None].astype(np.int8)], 1)
        top = np.maximum(np.repeat(top, reps), nxt)
    return rows


def codes(rgs: np.ndarray, base: int = 3) -> np.ndarray:
    """The vectors ``v`` of every template (rows), int64."""
    B, l = rgs.shape
    powers = np.array([base ** (l - 1 - j) for j in range(l)], np.int64)
    out = np.empty((B, l), np.int64)
    for r in range(l):
        same = rgs == rgs[:, r : r + 1]
        out[:, r] = powers[r] + (2 + same.sum(1)) * (same.astype(np.int64) @ powers)
    return out


def direct_distinct(l: int) -> tuple[bool, int]:
    """``(all vectors distinct, number of templates)`` for length ``l``."""
    v = codes(all_rgs(l))
    order = np.lexsort(v.T[::-1])
    v = v[order]
    return bool((v[1:] != v[:-1]).any(axis=1).all()), len(v)


def model_agrees(l: int) -> bool:
    """The library's formula and the built model's float64 streams equal :func:`codes`."""
    from transformer_theory.constructions import template_code, theorem5
    from transformer_theory.constructions._common import last_streams
    from transformer_theory.tasks import TemplateMatching

    rgs = all_rgs(l)
    want = codes(rgs)
    templates = [tuple(int(w) for w in row) for row in rgs]
    if [template_code(t) for t in templates] != [tuple(map(int, row)) for row in want]:
        return False
    task = TemplateMatching(l, templates)
    params = theorem5(task)
    reps = np.concatenate([rgs, np.full((len(rgs), 1), l)], axis=1).astype(np.int32)
    d = task.vocab_size
    streams = last_streams(params, reps)[:, d : d + l]
    return bool(np.array_equal(streams, want.astype(np.float64)))


@dataclasses.dataclass(frozen=True)
class BlockCertificate:
    """The carry automaton at ``L`` and at ``L + 1`` (a witness of the first collision there)."""

    L: int
    injective: bool
    collisions: list[tuple[int, int]]
    next_L_collisions: list[tuple[int, int]]
    next_L_witness: tuple[list[int], list[int]] | None
    seconds: float


@dataclasses.dataclass(frozen=True)
class SortCheck:
    """Brute force for every ``L' <= L``: where ``f`` collides, and whether the automaton agrees."""

    L: int
    collides_at: list[int]
    agrees: bool
    seconds: float


@dataclasses.dataclass(frozen=True)
class LengthCount:
    """Every template of one length: how many, and whether their vectors are all distinct."""

    templates: int
    distinct: bool


@dataclasses.dataclass(frozen=True)
class DirectCheck:
    """Per length ``l``, every template's vector computed exactly."""

    lengths: dict[int, LengthCount]
    seconds: float


@dataclasses.dataclass(frozen=True)
class ModelCheck:
    """Per length ``l``: do ``template_code`` and the model's float64 streams equal the formula?"""

    lengths: dict[int, bool]
    seconds: float


@dataclasses.dataclass(frozen=True)
class Base3Certificate:
    """The four certificates of :func:`certify`; :attr:`holds` when every one does."""

    blocks: BlockCertificate
    sort: SortCheck
    direct: DirectCheck
    model: ModelCheck

    @property
    def holds(self) -> bool:
        """``f`` injective at ``blocks.L``, brute force agreeing, every vector distinct, the
        model equal to the formula."""
        return (
            self.blocks.injective
            and self.sort.agrees
            and all(c.distinct for c in self.direct.lengths.values())
            and all(self.model.lengths.values())
        )


def certify(blocks: int, sort: int, direct: int, model: int) -> Base3Certificate:
    """The automaton to ``blocks`` (and ``blocks + 1``), the brute force to ``sort``, every template
    to length ``direct``, the model to length ``model`` (float64 streams: 64-bit mode must be on).

    Raises:
      ValueError: a bound (named) is not a positive integer.
    """
    for name, value in (("blocks", blocks), ("sort", sort), ("direct", direct), ("model", model)):
        _validate.check_int_arg(name, value)
    t0 = time.perf_counter()
    bad = block_collisions(blocks)
    nxt = block_collisions(blocks + 1)
    witness = collision_witness(blocks + 1, *nxt[0]) if nxt else None
    block = BlockCertificate(blocks, not bad, bad, nxt, witness, round(time.perf_counter() - t0, 2))
    t0 = time.perf_counter()
    sort_bad = [L for L in range(1, sort + 1) if sort_collides(L)]
    agree = all((L in sort_bad) == bool(block_collisions(L)) for L in range(1, sort + 1))
    brute = SortCheck(sort, sort_bad, agree, round(time.perf_counter() - t0, 2))
    t0 = time.perf_counter()
    lengths = {}
    for l in range(1, direct + 1):
        distinct, count = direct_distinct(l)
        lengths[l] = LengthCount(count, distinct)
    every = DirectCheck(lengths, round(time.perf_counter() - t0, 2))
    t0 = time.perf_counter()
    agrees = {l: model_agrees(l) for l in range(1, model + 1)}
    built = ModelCheck(agrees, round(time.perf_counter() - t0, 2))
    return Base3Certificate(block, brute, every, built)
