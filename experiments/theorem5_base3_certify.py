"""Certify Theorem 5's single-head construction in the paper's base 3 (Chen & Zou 2024, §14.2):
distinct templates get distinct layer-2 vectors, for every template length ``l`` up to a bound.

No proof is known for base 3 (``transformer_theory.constructions.templates`` proves base
``B >= l + 4``). Coordinate ``r < l`` of the layer-2 last stream is

    v_r = 3^(l-1-r) + f(C(r)),   f(C) = (2 + |C|) S_C,   S_C = sum_{j in C} 3^(l-1-j),

``C(r)`` the positions that share ``r``'s wildcard (:func:`template_code`; the tests compare it
with the model's streams). Three certificates, all in exact integer arithmetic:

1. ``blocks``: ``f`` is injective on the non-empty subsets of ``{0, ..., L-1}``. That implies
   distinct vectors for every ``l <= L`` (two templates with the same vector would need
   ``f(C(r)) = f(C'(r))`` with ``C(r) != C'(r)`` for some ``r``). With exponent sets ``E``, ``E'``
   (``S = sum_{e in E} 3^e``) of sizes ``m < m'`` a collision is ``(2+m) S_E = (2+m') S_E'``;
   a carry automaton reads the base-3 digits of both sides from the lowest (``a_e = [e in E]``,
   ``b_e = [e in E']``): the carry ``c`` must satisfy ``c + (2+m) a_e - (2+m') b_e = 0 mod 3`` and
   become ``(c + ...) / 3``; a collision exists iff the state ``(carry 0, m ones, m' ones)`` is
   reachable after ``L`` digits. ``|carry| <= max(2+m, 2+m')`` throughout, so the state space is
   finite: ``O(L^6)`` work for all pairs ``(m, m')`` instead of ``2^L`` subsets.
2. ``sort``: the same statement by brute force (all ``2^L - 1`` values of ``f``, sorted), to
   cross-check the automaton where both reach.
3. ``direct``: every template of length ``l`` (all Bell(l) restricted growth strings), its vector
   ``v`` computed exactly (int64, no overflow below ``l = 36``), all distinct; and for small ``l``
   the library's own :func:`template_code` and the built model's float64 streams agree with it.

Command (2 CPU cores, idle)::

    python experiments/theorem5_base3_certify.py --out results/theorem5_base3

Result (2 x86-64 cores shared with other jobs, load ~1): ``blocks`` certifies every ``L <= 33``
and finds the first collision at ``L = 34``: ``E`` (18 exponents) and ``E'`` (24 exponents) with
``20 S_E = 26 S_E'`` (both sides 152,359,720,173,206,000), so the block certificate covers
``l <= 33`` and no longer holds from ``l = 34`` (1.6 s); ``sort`` agrees with the automaton for
every ``L <= 24`` (7.1 s); ``direct`` finds all vectors distinct for every ``l <= 12``
(4,213,597 templates at ``l = 12``; 8.5 s); the model's streams equal the formula for every
``l <= 8`` (4.6 s). Total 22 s wall. Whether two whole templates of length ``>= 34`` collide is
open (the collisions of ``f`` would have to line up over every block of both templates); float64
stops holding the vectors exactly beyond ``l = 30`` anyway.

``--smoke`` (``--size smoke``) runs tiny bounds in a second (used by the tests); the options are
the fields of :class:`Base3CertifySettings`, read as an experiment's (``get_config(size)``).
"""

import dataclasses
import os
import sys
import time

import numpy as np

from transformer_theory.precision import enable_x64
from transformer_theory.settings import check_minimums, setting


def _mult(m: int) -> int:
    """The factor ``2 + |C|`` of ``f``."""
    return 2 + m


def _reachable(L: int, m: int, m2: int, mult=_mult, keep: bool = False):
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


def _witness(L: int, m: int, m2: int, mult=_mult) -> tuple[list[int], list[int]]:
    """Exponent sets ``(E, E')`` of sizes ``m``, ``m2`` with ``mult(m) S_E = mult(m2) S_E'``."""
    p, q = mult(m), mult(m2)
    found, layers = _reachable(L, m, m2, mult, keep=True)
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


def block_collisions(L: int, mult=_mult) -> list[tuple[int, int]]:
    """Every ``(m, m')``, ``1 <= m < m' <= L``, for which ``f`` collides on subsets of
    ``{0..L-1}`` of those sizes (equal sizes never collide: ``S`` is injective)."""
    return [
        (m, m2)
        for m in range(1, L + 1)
        for m2 in range(m + 1, L + 1)
        if _reachable(L, m, m2, mult)[0]
    ]


def sort_collides(L: int, mult=_mult) -> bool:
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


SIZES = ("smoke", "default")


@dataclasses.dataclass(frozen=True)
class Base3CertifySettings:
    """The bounds each of the four checks runs to, and where the record goes.

    Attributes:
      blocks: certify f on the subsets of {0..L-1}.
      sort: brute-force cross-check up to this L.
      direct: enumerate all templates up to this l.
      model: compare with the model up to this l.
      out: output directory (theorem5_base3_certify.json).
    """

    blocks: int = setting(33, positive=True)
    sort: int = setting(24, positive=True)
    direct: int = setting(12, positive=True)
    model: int = setting(8, positive=True)
    out: str = os.path.join("results", "theorem5_base3")

    def __post_init__(self):
        check_minimums(self)


def get_config(size: str = "default") -> Base3CertifySettings:
    """``"default"``: the bounds measured above; ``"smoke"``: tiny bounds (a test runs it)."""
    if size == "smoke":
        return Base3CertifySettings(blocks=12, sort=10, direct=7, model=4)
    return Base3CertifySettings()


def main(argv=None) -> int:
    from transformer_theory.cli._common import script_settings

    args = script_settings(argv, get_config, SIZES, description=__doc__.split("\n\n")[0])
    enable_x64()  # an entry point: the model's streams are compared in float64
    from transformer_theory.jsonio import write_json

    os.makedirs(args.out, exist_ok=True)
    record: dict = {}
    ok = True

    t0 = time.perf_counter()
    bad = block_collisions(args.blocks)
    nxt = block_collisions(args.blocks + 1)
    witness = _witness(args.blocks + 1, *nxt[0]) if nxt else None
    record["blocks"] = dict(
        L=args.blocks,
        injective=not bad,
        collisions=bad,
        next_L_collisions=nxt,
        next_L_witness=witness,
        seconds=round(time.perf_counter() - t0, 2),
    )
    ok &= not bad
    print(
        f"blocks: f injective on the subsets of {{0..{args.blocks - 1}}}: {not bad}"
        + (f" (collisions {bad})" if bad else "")
        + f"; at L = {args.blocks + 1}: "
        + (f"collides for sizes {nxt}, e.g. E = {witness[0]}, E' = {witness[1]}" if nxt else "none")
        + f"  [{record['blocks']['seconds']} s]",
        flush=True,
    )

    t0 = time.perf_counter()
    sort_bad = [L for L in range(1, args.sort + 1) if sort_collides(L)]
    agree = all((L in sort_bad) == bool(block_collisions(L)) for L in range(1, args.sort + 1))
    record["sort"] = dict(
        L=args.sort, collides_at=sort_bad, agrees=agree, seconds=round(time.perf_counter() - t0, 2)
    )
    ok &= agree
    print(
        f"sort: brute force over 2^L subsets, L <= {args.sort}: "
        f"collisions at {sort_bad or 'none'}; "
        f"agrees with the automaton: {agree}  [{record['sort']['seconds']} s]",
        flush=True,
    )

    t0 = time.perf_counter()
    direct = {}
    for l in range(1, args.direct + 1):
        distinct, count = direct_distinct(l)
        direct[l] = dict(templates=count, distinct=distinct)
        ok &= distinct
    record["direct"] = dict(lengths=direct, seconds=round(time.perf_counter() - t0, 2))
    print(
        f"direct: every template of length l <= {args.direct} "
        f"({direct[args.direct]['templates']:,} at l = {args.direct}) gets its own vector: "
        f"{all(v['distinct'] for v in direct.values())}  [{record['direct']['seconds']} s]",
        flush=True,
    )

    t0 = time.perf_counter()
    model = {l: model_agrees(l) for l in range(1, args.model + 1)}
    record["model"] = dict(lengths=model, seconds=round(time.perf_counter() - t0, 2))
    ok &= all(model.values())
    print(
        f"model: template_code and the float64 streams of theorem5 equal the formula for every "
        f"l <= {args.model}: {all(model.values())}  [{record['model']['seconds']} s]",
        flush=True,
    )

    path = os.path.join(args.out, "theorem5_base3_certify.json")
    write_json(path, record, default_str=True)
    print(f"wrote {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
