"""SHUFFLE-DYCK-k and simple counter machines as data (Bhattamishra, Ahuja & Goyal 2020; rows
"SHUFFLE-DYCK-k" and "SSCMs" of Strobl et al. 2024's table): the machines, membership by each
language's own definition, samples with hard non-members, and the TRUE continuation sets (which
symbols may really follow a prefix). The recognizer is :mod:`._constructions_counters`.

A :class:`CounterMachine` has ``K`` integer counters, starting at 0 (or at given initial values);
each symbol adds a fixed vector ``updates[s]`` to them, whatever their values (the *simplified
stateless* condition of Bhattamishra et al.: one state, an update that depends on the input symbol
only); each symbol, and the end of the string, may be read only when its *guards* hold on the
counters before it (``counter == 0``, ``counter >= 1`` or ``counter >= 0``). A string is accepted
when every symbol's guards hold when it is read and the end's guards hold after the last. Built
here (:data:`LANGUAGES`):

- ``shuffle_dyck_k`` (k = 1, 2, 3): the shuffle of ``k`` Dyck-1 languages over ``2k`` symbols
  (``2t`` opens and ``2t + 1`` closes bracket type ``t``): one counter per type, ``+1`` / ``-1``;
  a close of type ``t`` needs ``c_t >= 1``; the end needs every ``c_t == 0``. So a string is a
  member iff no type's depth is negative in any prefix and every type's final depth is 0.
  ``shuffle_dyck_1`` is Dyck-1.
- ``boolexp_n`` (n = 3): n-ary Boolean expressions in prefix (Polish) notation, one of the
  languages Bhattamishra et al. name as an SSCM: operands ``0``, ``1`` (ids 0, 1) and one operator
  of each arity ``1 .. n`` (id ``1 + a``). One counter, the number of expressions still needed,
  starts at 1; an operand needs 1 fewer, an operator of arity ``a`` needs ``a - 1`` more; every
  symbol needs the counter ``>= 1`` and the end needs 0. The alphabet (one operator per arity)
  is ours.
- ``anbn`` (``a^n b^n``, ``a = 0, b = 1``) and ``anbncn`` (``a^n b^n c^n``): the order checked by
  counters too (``a`` needs ``#b + #c == 0``, ``b`` needs ``#c == 0``; ``b`` needs ``#a - #b >=
  1``, ``c`` needs ``#b - #c >= 1``; the end needs the differences 0). These are this module's
  machines: Bhattamishra et al. train on these languages but the machines are ours.

Shape letters: see :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence

import numpy as np

from transformer_theory import _validate
from transformer_theory.papers.formal_languages._tasks import _random_dyck

RELATIONS = ("zero", "positive", "nonnegative")  # counter == 0, >= 1, >= 0


@dataclasses.dataclass(frozen=True)
class CounterMachine:
    """A simplified stateless counter machine with guards (see the module docstring).

    Attributes:
      name: the language's name.
      symbols: one label per symbol id ``0 .. S-1``.
      updates: ``updates[s]`` is the integer vector (length ``K``) symbol ``s`` adds.
      guards: ``guards[s]``, pairs ``(counter, relation)`` that must hold before ``s`` is read
        (``relation`` in :data:`RELATIONS`).
      end_guards: the pairs that must hold after the last symbol.
      initial: the counters' values before any symbol (``()``: all 0).
    """

    name: str
    symbols: tuple[str, ...]
    updates: tuple[tuple[int, ...], ...]
    guards: tuple[tuple[tuple[int, str], ...], ...]
    end_guards: tuple[tuple[int, str], ...]
    initial: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        S = len(self.symbols)
        if S < 1:
            raise ValueError("symbols: expected at least one symbol")
        if len(self.updates) != S or len(self.guards) != S:
            raise ValueError(f"updates, guards: expected one entry per symbol ({S})")
        K = len(self.updates[0])
        if K < 1 or any(len(u) != K for u in self.updates):
            raise ValueError(f"updates: expected {S} integer vectors of one length >= 1")
        if any(isinstance(x, bool) or not isinstance(x, int) for u in self.updates for x in u):
            raise ValueError("updates: expected integers")
        if self.initial and (
            len(self.initial) != K
            or any(isinstance(x, bool) or not isinstance(x, int) for x in self.initial)
        ):
            raise ValueError(f"initial: expected () or {K} integers, got {self.initial!r}")
        for name, group in [("guards", g) for g in self.guards] + [("end_guards", self.end_guards)]:
            for counter, relation in group:
                if not (isinstance(counter, int) and 0 <= counter < K) or relation not in RELATIONS:
                    raise ValueError(
                        f"{name}: expected (counter in 0..{K - 1}, relation in {RELATIONS}), got "
                        f"{(counter, relation)!r}"
                    )

    @property
    def num_symbols(self) -> int:
        """``S``, the number of symbols (the model reads ``S + 1`` ids with BOS)."""
        return len(self.symbols)

    @property
    def num_counters(self) -> int:
        """``K``, the number of counters."""
        return len(self.updates[0])

    @property
    def start(self) -> tuple[int, ...]:
        """The counters before any symbol."""
        return self.initial or (0,) * self.num_counters

    @property
    def bos(self) -> int:
        """The start symbol's id, ``S``."""
        return len(self.symbols)


def _holds(relation: str, value: int) -> bool:
    return (
        value == 0 if relation == "zero" else (value >= 1 if relation == "positive" else value >= 0)
    )


def shuffle_dyck(k: int) -> CounterMachine:
    """SHUFFLE-DYCK-k: ``2t`` opens and ``2t + 1`` closes bracket type ``t`` (``t < k``)."""
    k = _validate.check_int_arg("k", k, 1)
    symbols, updates, guards = [], [], []
    for t in range(k):
        unit = tuple(1 if j == t else 0 for j in range(k))
        symbols += [f"({t}", f"){t}"]
        updates += [unit, tuple(-x for x in unit)]
        guards += [(), ((t, "positive"),)]
    end = tuple((t, "zero") for t in range(k))
    return CounterMachine(f"shuffle_dyck_{k}", tuple(symbols), tuple(updates), tuple(guards), end)


def anbn() -> CounterMachine:
    """``a^n b^n`` (``n >= 0``): counters ``#a - #b`` and ``#b``."""
    return CounterMachine(
        "anbn",
        ("a", "b"),
        ((1, 0), (-1, 1)),
        (((1, "zero"),), ((0, "positive"),)),
        ((0, "zero"),),
    )


def anbncn() -> CounterMachine:
    """``a^n b^n c^n`` (``n >= 0``): counters ``#a - #b``, ``#b - #c``, ``#b + #c``, ``#c``."""
    return CounterMachine(
        "anbncn",
        ("a", "b", "c"),
        ((1, 0, 0, 0), (-1, 1, 1, 0), (0, -1, 1, 1)),
        (((2, "zero"),), ((0, "positive"), (3, "zero")), ((1, "positive"),)),
        ((0, "zero"), (1, "zero")),
    )


def boolexp(n: int) -> CounterMachine:
    """n-ary Boolean expressions in prefix notation: operands ``0``, ``1`` and one operator of
    each arity ``1 .. n`` (id ``1 + a``); one counter, the expressions still needed (from 1)."""
    n = _validate.check_int_arg("n", n, 1)
    arities = [0, 0, *range(1, n + 1)]
    return CounterMachine(
        f"boolexp_{n}",
        ("0", "1", *(f"op{a}" for a in range(1, n + 1))),
        tuple((a - 1,) for a in arities),
        tuple(((0, "positive"),) for _ in arities),
        ((0, "zero"),),
        initial=(1,),
    )


LANGUAGES: dict[str, Callable[[], CounterMachine]] = {
    "shuffle_dyck_1": functools.partial(shuffle_dyck, 1),
    "shuffle_dyck_2": functools.partial(shuffle_dyck, 2),
    "shuffle_dyck_3": functools.partial(shuffle_dyck, 3),
    "boolexp_3": functools.partial(boolexp, 3),
    "anbn": anbn,
    "anbncn": anbncn,
}


def machine(language: str) -> CounterMachine:
    """The machine of ``language`` (a key of :data:`LANGUAGES`)."""
    _validate.check_choice("language", language, tuple(LANGUAGES))
    return LANGUAGES[language]()


def _symbols(m: CounterMachine, string: Sequence[int] | np.ndarray) -> list[int]:
    out = [int(x) for x in np.asarray(string).ravel()]
    if any(not 0 <= x < m.num_symbols for x in out):
        raise ValueError(f"string: symbols must lie in 0..{m.num_symbols - 1}, got {out}")
    return out


def counter_values(m: CounterMachine, string: Sequence[int] | np.ndarray) -> np.ndarray:
    """The counters after every prefix: ``(L + 1, K)`` integers, row 0 the empty prefix."""
    steps = np.array([m.updates[s] for s in _symbols(m, string)], np.int64)
    steps = steps.reshape(-1, m.num_counters)
    start = np.array([m.start], np.int64)
    return np.concatenate([start, start + np.cumsum(steps, 0)])


def machine_accepts(m: CounterMachine, string: Sequence[int] | np.ndarray) -> bool:
    """The machine's own run: every symbol's guards before it, the end's guards after."""
    symbols = _symbols(m, string)
    counts = counter_values(m, symbols)
    for i, s in enumerate(symbols):
        if not all(_holds(rel, int(counts[i, c])) for c, rel in m.guards[s]):
            return False
    return all(_holds(rel, int(counts[-1, c])) for c, rel in m.end_guards)


def is_member(language: str, string: Sequence[int] | np.ndarray) -> bool:
    """Membership by the language's definition, not by its machine: per-type depths (never
    negative, 0 at the end) for SHUFFLE-DYCK-k, a parse of one whole prefix expression for
    ``boolexp_n`` (iterative: the count of operands still owed, so a string of any length is
    parsed without recursion), the block pattern for ``a^n b^n (c^n)``."""
    m = machine(language)
    s = _symbols(m, string)
    if language.startswith("boolexp"):
        owed = 1  # expressions still to read: one in all
        for x in s:
            if owed == 0:  # a whole expression was read and symbols are left
                return False
            owed += max(x - 1, 0) - 1  # id 1 + a is the operator of arity a
        return owed == 0
    if language.startswith("shuffle_dyck"):
        depth = [0] * (m.num_symbols // 2)
        for x in s:
            depth[x // 2] += -1 if x % 2 else 1
            if depth[x // 2] < 0:
                return False
        return not any(depth)
    blocks = m.num_symbols
    n, rest = divmod(len(s), blocks)
    return rest == 0 and s == [x for x in range(blocks) for _ in range(n)]


# --------------------------------------------------------------------------- samples


def _random_shuffle_member(rng: np.random.Generator, k: int, length: int) -> np.ndarray:
    """A member of SHUFFLE-DYCK-k of even ``length``: ``k`` Dyck words (pair counts split at
    random), interleaved in a uniformly random order."""
    pairs = rng.multinomial(length // 2, np.full(k, 1.0 / k))
    words = [_random_dyck(rng, 2 * int(p)) for p in pairs]  # 0 = open, 1 = close
    order = rng.permutation(np.repeat(np.arange(k), 2 * pairs))
    out, seen = np.zeros(length, np.int64), np.zeros(k, np.int64)
    for i, t in enumerate(order):
        out[i] = 2 * t + words[t][seen[t]]
        seen[t] += 1
    return out


def _dip(rng: np.random.Generator, k: int, length: int) -> np.ndarray:
    """A member with one type's depth-0 ``open .. close`` pair swapped: that type dips to -1
    while every final count stays 0; tries for one where the total depth stays >= 0."""
    best = None
    for _ in range(32):
        s = _random_shuffle_member(rng, k, length)
        t = int(rng.choice(np.unique(s // 2)))
        where = np.flatnonzero(s // 2 == t)
        depth = np.cumsum(np.where(s[where] % 2 == 0, 1, -1))
        # the opens of type t at depth 0 before them: their matching close is the first return
        starts = [j for j in range(len(where)) if (depth[j - 1] if j else 0) == 0]
        j = int(rng.choice(starts))
        close = j + int(np.flatnonzero(depth[j:] == 0)[0])
        s[where[j]], s[where[close]] = 2 * t + 1, 2 * t
        total = np.cumsum(np.where(s % 2 == 0, 1, -1))
        best = s
        if total.min() >= 0:
            break
    return best


def _random_expression(rng: np.random.Generator, m: CounterMachine, length: int) -> np.ndarray:
    """A random member of ``boolexp_n`` of ``length``: each symbol drawn among those that keep
    the expressions still needed between 1 and the symbols left (0 after the last)."""
    need, out = 1, []
    for left in range(length - 1, -1, -1):
        ok = [
            x
            for x in range(m.num_symbols)
            if (1 <= need + m.updates[x][0] <= left) or (left == 0 and need + m.updates[x][0] == 0)
        ]
        x = int(rng.choice(ok))
        need += m.updates[x][0]
        out.append(x)
    return np.array(out, np.int64)


def counter_sample(
    language: str, length: int, count: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``count`` strings of ``length``: members and hard non-members, with their kind.

    SHUFFLE-DYCK-k (even ``length`` >= 2): a third members (``"member"``), a third ``"dip"`` (a
    type below 0 in a prefix, every final count 0, the total depth kept >= 0 where the draw
    allows), a third ``"final"`` (a member whose last symbol is replaced: a close of another
    type, or for k = 1 an open, so only the end is wrong). ``anbn``/``anbncn`` (``length`` a
    multiple of the symbol count): the one member first, then ``"near"`` misses (two adjacent
    symbols swapped, or one changed, redrawn until outside the language); ``boolexp_n``: random
    expressions (each symbol drawn among those that can still complete one) and near misses of
    them, alternately. Labels come from :func:`is_member`, never from the generator.

    Returns:
      ``(strings_BxN, labels_B, kinds)``.
    """
    m = machine(language)
    length = _validate.check_int_arg("length", length, 1)
    count = _validate.check_int_arg("count", count, 1)
    seed = _validate.check_int_arg("seed", seed, 0)
    rng = np.random.default_rng(seed)
    strings, kinds = [], []
    if language.startswith("shuffle_dyck"):
        if length % 2:
            raise ValueError(f"length: SHUFFLE-DYCK needs an even length, got {length}")
        k = m.num_symbols // 2
        for i in range(count):
            kind = ("member", "dip", "final")[i % 3]
            if kind == "dip":
                s = _dip(rng, k, length)
            else:
                s = _random_shuffle_member(rng, k, length)
            if kind == "final":
                t = s[-1] // 2
                s[-1] = 2 * ((t + 1) % k) + 1 if k > 1 else 0
            strings.append(s)
            kinds.append(kind)
    else:
        blocks = m.num_symbols
        if language.startswith("boolexp"):
            member = None
        elif length % blocks:
            raise ValueError(f"length: {language} needs a multiple of {blocks}, got {length}")
        else:
            member = np.repeat(np.arange(blocks), length // blocks)
        for i in range(count):
            base = member if member is not None else _random_expression(rng, m, length)
            near = i > 0 if member is not None else i % 2 == 1
            s = base.copy()
            for _ in range(32 if near else 0):  # a perturbation that leaves the language
                s = base.copy()
                if rng.random() < 0.5:
                    j = int(rng.integers(length - 1))
                    s[j], s[j + 1] = s[j + 1], s[j]
                if (s == base).all() or rng.random() < 0.5:
                    j = int(rng.integers(length))
                    s[j] = (s[j] + 1 + int(rng.integers(blocks - 1))) % blocks
                if not is_member(language, s):
                    break
            strings.append(s)
            kinds.append("near" if near else "member")
    out = np.stack(strings).astype(np.int32)
    labels = np.array([is_member(language, s) for s in out], bool)
    return out, labels, kinds


# ------------------------------------------------------------------------ continuation sets

END = "end"


def _completions(language: str, prefix: list[int]) -> list[list[int]]:
    """Candidate completions ``u`` of ``prefix``: if ``prefix`` is a prefix of ANY member, one
    of these completes it (the argument per language below), so ``prefix`` is a prefix of a
    member iff ``is_member(prefix + u)`` for one of them. Only :func:`is_member` (the
    languages' definitions: per-type depths, a recursive-descent parse, the block pattern)
    decides; the machines' guards are not used.

    - SHUFFLE-DYCK-k: the closes of each type's open depth. If ``prefix + v`` is a member, no
      type's depth is negative in a prefix of ``prefix``, so closing each open type is one.
    - ``boolexp_n``: ``0^K``, ``K <= (n - 1) |prefix| + 1``. A prefix of an expression leaves
      ``K`` sub-expressions open (each symbol opens at most ``n - 1`` more); ``K`` operands
      close them.
    - ``a^m b^m (c^m)``: the member with ``m <= |prefix| + 1`` having ``prefix`` as its prefix
      (a prefix with a ``b`` or ``c`` fixes ``m = #a <= |prefix|``; ``a^i`` is a prefix of the
      member with ``m = i``).
    """
    m = machine(language)
    if language.startswith("shuffle_dyck"):
        k = m.num_symbols // 2
        depth = [0] * k
        for x in prefix:
            depth[x // 2] += -1 if x % 2 else 1
        if min(depth) < 0:
            return []
        return [[2 * t + 1 for t in range(k) for _ in range(depth[t])]]
    if language.startswith("boolexp"):
        n = m.num_symbols - 2
        return [[0] * K for K in range((n - 1) * len(prefix) + 2)]
    blocks = m.num_symbols
    out = []
    for size in range(len(prefix) + 2):
        member = [x for x in range(blocks) for _ in range(size)]
        if len(member) >= len(prefix) and member[: len(prefix)] == prefix:
            out.append(member[len(prefix) :])
    return out


def viable(language: str, prefix: Sequence[int]) -> bool:
    """``prefix`` is a prefix of some member of ``language`` (:func:`_completions`)."""
    p = [int(x) for x in prefix]
    return any(is_member(language, p + u) for u in _completions(language, p))


def continuation_set(language: str, prefix: Sequence[int]) -> frozenset:
    """The TRUE continuation set of ``prefix``: the symbols ``a`` with ``prefix + a`` a prefix
    of a member, and :data:`END` if ``prefix`` is itself a member."""
    p = [int(x) for x in prefix]
    S = machine(language).num_symbols
    out = {a for a in range(S) if viable(language, p + [a])}
    if is_member(language, p):
        out.add(END)
    return frozenset(out)


def _viable_leaves(language: str, max_length: int) -> tuple[list[list[int]], int]:
    """The maximal strings of the tree of viable prefixes of length ``<= max_length`` (each
    viable prefix is a prefix of one of them) and the number of viable prefixes."""
    S = machine(language).num_symbols
    leaves, count = [], 0
    stack = [[]]
    while stack:
        p = stack.pop()
        count += 1
        children = [p + [a] for a in range(S) if len(p) < max_length and viable(language, p + [a])]
        if children:
            stack.extend(reversed(children))
        else:
            leaves.append(p)
    return leaves, count
