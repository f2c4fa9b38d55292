"""A library of RASP programs (Weiss et al. 2021; the list of Lindner et al. 2023's tracr, written
here from their definitions), and this library's recognizers as RASP.

Each entry of :data:`PROGRAMS` is a :class:`ProgramSpec`: ``make(vocab)`` returns the output SOp,
with the default vocabulary and a one-line meaning. Outputs are per position; a recognizer's
answer for a whole string is its value at the last position (the prefix ``x_0..x_i`` at position
``i``), so the prefix programs also compile causally.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction

from transformer_theory.rasp._language import (
    Aggregate,
    Comparison,
    Map,
    Select,
    SelectAnd,
    SelectOr,
    SelectorWidth,
    SequenceMap,
    SOp,
    indices,
    tokens,
)

__all__ = ["PROGRAMS", "ProgramSpec", "get_program"]

TRUE, EQ, LT, LEQ = Comparison.TRUE, Comparison.EQ, Comparison.LT, Comparison.LEQ


def length() -> SOp:
    """``n`` at every position: the width of the all-true selector."""
    return SelectorWidth(Select(tokens, tokens, TRUE), label="length")


def reverse(sop: SOp = tokens) -> SOp:
    """``x_{n-1-i}``: select the key whose index is ``length - i - 1``."""
    opp = SequenceMap(lambda n, i: n - i - 1, length(), indices, label="opp_index")
    return Aggregate(Select(indices, opp, EQ), sop, label="reverse")


def histogram() -> SOp:
    """How many tokens equal ``x_i``."""
    return SelectorWidth(Select(tokens, tokens, EQ), label="histogram")


def sort_unique(vals: SOp, keys: SOp, label: str = "sort_unique") -> SOp:
    """``vals`` ordered by ``keys`` (distinct keys): position ``i`` reads the key with exactly
    ``i`` smaller keys. Repeated keys leave positions empty: the default None there."""
    smaller = SelectorWidth(Select(keys, keys, LT), label=f"{label}.target")
    return Aggregate(Select(smaller, indices, EQ), vals, label=label)


def sort(vals: SOp = tokens, keys: SOp = tokens, label: str = "sort") -> SOp:
    """Stable sort: keys made distinct as ``(key, index)`` pairs, then :func:`sort_unique`."""
    unique = SequenceMap(lambda k, i: (k, i), keys, indices, label=f"{label}.key")
    return sort_unique(vals, unique, label)


def sort_by_frequency() -> SOp:
    """Tokens by decreasing frequency (ties by position)."""
    neg = Map(lambda h: -h, histogram(), label="minus_histogram")
    return sort(tokens, neg, label="sort_by_frequency")


def frac_prevs(token: Hashable) -> SOp:
    """The fraction of ``x_0..x_i`` equal to ``token`` (numerical)."""
    hit = Map(lambda x: int(x == token), tokens, numerical=True, label=f"is_{token}")
    return Aggregate(Select(indices, indices, LEQ), hit, label="frac_prevs")


def shift(offset: int = 1, sop: SOp = tokens, default: Hashable = None) -> SOp:
    """``x_{i - offset}``; the first ``offset`` positions read ``default``."""
    back = Map(lambda i: i - offset, indices, label=f"index_minus_{offset}")
    return Aggregate(Select(indices, back, EQ), sop, default=default, label=f"shift_{offset}")


def detect_pattern(pattern: Sequence[Hashable]) -> SOp:
    """True at ``i`` iff ``x_{i-k+1} .. x_i`` equals ``pattern`` (``k = len(pattern) <= 3``: one
    table reads the ``k`` shifted copies)."""
    k = len(pattern)
    parts = [shift(k - 1 - j) if j < k - 1 else tokens for j in range(k)]
    hits = [
        Map(lambda v, p=p: v == p, s, label=f"is_{p}_at_{j}")
        for j, (p, s) in enumerate(zip(pattern, parts))
    ]
    out = hits[0]
    for h in hits[1:]:
        out = SequenceMap(lambda a, b: a and b, out, h)
    return out.named("detect_pattern")


def pair_balance(open_: Hashable, close: Hashable, label: str = "pair_balance") -> SOp:
    """``(#open - #close) / (i + 1)`` over ``x_0..x_i`` (numerical)."""
    step = Map(
        lambda x: 1 if x == open_ else (-1 if x == close else 0),
        tokens,
        numerical=True,
        label=f"{label}.step",
    )
    return Aggregate(Select(indices, indices, LEQ), step, label=label)


def shuffle_dyck(pairs: Sequence[tuple[Hashable, Hashable]]) -> SOp:
    """True at ``i`` iff ``x_0..x_i`` is in shuffle-Dyck-k (each pair's prefix balance never
    negative, zero at ``i``). The prefixes that went negative are found by ONE aggregate whose
    composite selector reads every pair's sign: depth 2 for any ``k``."""
    bals = [pair_balance(o, c, label=f"balance_{o}{c}") for o, c in pairs]
    negs = [Map(lambda b: b < 0, bal, label=f"{bal.label}.negative") for bal in bals]
    yes = Map(lambda _: True, indices, label="always")
    went_negative = (
        SelectOr(*[Select(n, yes, EQ) for n in negs[:2]])
        if len(negs) > 1
        else (Select(negs[0], yes, EQ))
    )
    for n in negs[2:]:
        went_negative = SelectOr(went_negative, Select(n, yes, EQ))
    earlier = SelectAnd(Select(indices, indices, LEQ), went_negative)
    one = Map(lambda _: 1, indices, numerical=True, label="one")
    any_neg = Aggregate(earlier, one, label="went_negative")
    zero = Map(lambda b: b == 0, bals[0], label=f"{bals[0].label}.zero")
    for bal in bals[1:]:
        zero = SequenceMap(lambda a, b: a and b, zero, Map(lambda b: b == 0, bal))
    return SequenceMap(lambda a, z: a == 0 and z, any_neg, zero, label="shuffle_dyck")


def majority(token: Hashable) -> SOp:
    """True at ``i`` iff ``token`` is a strict majority of ``x_0..x_i`` (MAJORITY)."""
    return Map(lambda f: f > Fraction(1, 2), frac_prevs(token), label="majority")


def parity(one: Hashable) -> SOp:
    """True at ``i`` iff ``x_0..x_i`` holds an odd number of ``one`` (PARITY): the count is the
    prefix fraction times ``i + 1``, read by one table over (fraction, index). Expressible, but
    the table has a step for every fraction where the parity flips (1720 hidden units at
    ``N = 40``, about ``N^2``), and from ``N = 48`` it passes the table limit and is refused."""
    frac = frac_prevs(one)
    return SequenceMap(lambda f, i: int(f * (i + 1)) % 2 == 1, frac, indices, label="parity")


@dataclasses.dataclass(frozen=True)
class ProgramSpec:
    """A library program: ``make(vocab)`` builds it; ``vocab`` and ``max_len`` the defaults the
    CLI and the tests use; ``causal`` whether its meaning survives a causal mask."""

    make: Callable[[Sequence[Hashable]], SOp]
    vocab: str
    max_len: int
    meaning: str
    causal: bool = False


PROGRAMS: dict[str, ProgramSpec] = {
    "length": ProgramSpec(lambda v: length(), "abc", 6, "n at every position"),
    "reverse": ProgramSpec(lambda v: reverse(), "abc", 6, "x_{n-1-i}"),
    "histogram": ProgramSpec(lambda v: histogram(), "abc", 6, "#{j : x_j = x_i}"),
    "sort": ProgramSpec(lambda v: sort(), "abc", 5, "stable sort of the tokens"),
    "sort_unique": ProgramSpec(
        lambda v: sort_unique(tokens, tokens),
        "abc",
        5,
        "tokens sorted by themselves; repeated tokens leave None (the declared default)",
    ),
    "sort_by_frequency": ProgramSpec(
        lambda v: sort_by_frequency(), "abc", 5, "tokens by decreasing frequency"
    ),
    "frac_prevs": ProgramSpec(
        lambda v: frac_prevs(v[0]),
        "ab",
        7,
        "fraction of x_0..x_i equal to the first token",
        causal=True,
    ),
    "shift": ProgramSpec(lambda v: shift(1), "abc", 6, "x_{i-1} (None at 0)", causal=True),
    "detect_pattern": ProgramSpec(
        lambda v: detect_pattern(list(v[:3])),
        "abc",
        6,
        "x_{i-2} x_{i-1} x_i = the first three tokens",
        causal=True,
    ),
    "pair_balance": ProgramSpec(
        lambda v: pair_balance(v[0], v[1]),
        "()",
        8,
        "(#open - #close)/(i+1) over the prefix",
        causal=True,
    ),
    "shuffle_dyck1": ProgramSpec(
        lambda v: shuffle_dyck([(v[0], v[1])]),
        "()",
        8,
        "prefix in shuffle-Dyck-1 (= Dyck-1)",
        causal=True,
    ),
    "shuffle_dyck2": ProgramSpec(
        lambda v: shuffle_dyck([(v[0], v[1]), (v[2], v[3])]),
        "()[]",
        5,
        "prefix in shuffle-Dyck-2",
        causal=True,
    ),
    "majority": ProgramSpec(
        lambda v: majority(v[0]),
        "ab",
        8,
        "the first token a strict majority of the prefix",
        causal=True,
    ),
    "dyck1": ProgramSpec(
        lambda v: shuffle_dyck([(v[0], v[1])]), "()", 8, "prefix in Dyck-1", causal=True
    ),
    "parity": ProgramSpec(
        lambda v: parity(v[1]),
        "01",
        8,
        "odd number of the second token in the prefix",
        causal=True,
    ),
}


def get_program(name: str, vocab: Sequence[Hashable] | None = None) -> tuple[SOp, list]:
    """``(program, vocab)`` of a library program (its default vocabulary unless given)."""
    if name not in PROGRAMS:
        raise ValueError(f"name: unknown program {name!r}; expected one of {sorted(PROGRAMS)}")
    spec = PROGRAMS[name]
    v = list(spec.vocab if vocab is None else vocab)
    return spec.make(v), v
