"""RASP, the language (Weiss et al. 2021), and its interpreter: the semantics to compile.

A program is a graph of sequence operations (SOps), each a value per position:

- :data:`tokens`, :data:`indices` -- the input and the positions ``0..n-1``;
- :class:`Map` ``f(x_i)``, :class:`SequenceMap` ``f(x_i, y_i)`` -- elementwise;
- :class:`Aggregate` ``(selector, sop)`` -- at query ``i`` the value of the selected keys: a
  categorical aggregate returns the one value every selected key carries (the mean of one-hot
  vectors), a numerical one the mean ``(1/|S_i|) sum_{j in S_i} x_j`` (exact, as a ``Fraction``);
- :class:`SelectorWidth` ``|S_i|``.

A selector is :class:`Select` ``(keys, queries, predicate)`` -- key ``j`` is selected at query ``i``
iff ``predicate(keys_j, queries_i)``, a :class:`Comparison` or any function of the two values
(tracr's ``shift_by`` selects with ``lambda k, q: q == k + offset``) -- or a composite
:class:`SelectAnd`, :class:`SelectOr`, :class:`SelectNot` (tracr has none, its issue #4).

**The empty selection has a defined value**, compared at every position: a categorical aggregate
returns its ``default`` (``None`` unless declared; tracr's interpreter also says None, but its
compiled models turn it into 0 downstream, its issue #25), a numerical one returns 0. Order
comparisons with ``None`` are False; ``EQ``/``NEQ`` compare with ``==``.

**Causal evaluation** (``causal=True``) restricts every selector to keys ``j <= i``, what a causal
attention mask does.

**tracr's meaning of None** (``semantics="tracr"`` on a :class:`Map`, :class:`SequenceMap` or
:class:`Aggregate`; what :func:`~transformer_theory.rasp._tracr.from_tracr` and the
tracr-compatible module :mod:`transformer_theory.rasp.tracr` build): a Map or SequenceMap with a
None argument is None (its function is not called), as in tracr's ``DefaultRASPEvaluator``, and
an Aggregate's ``default`` is taken literally (a numerical aggregate with ``default=None`` is None
where its selection is empty). Under the default ``semantics="rasp"`` the function is applied to
None like to any value, and a numerical aggregate's empty selection reads its ``default``
(``None`` meaning 0).
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

__all__ = [
    "Comparison",
    "RASPExpr",
    "SOp",
    "Selector",
    "tokens",
    "indices",
    "Map",
    "SequenceMap",
    "LinearSequenceMap",
    "Full",
    "ConstantSOp",
    "Select",
    "SelectAnd",
    "SelectOr",
    "SelectNot",
    "Aggregate",
    "SelectorWidth",
    "evaluate",
    "evaluate_all",
    "selection",
    "apply",
    "prefix_program",
    "causal_mask",
    "SEMANTICS",
]

SEMANTICS = ("rasp", "tracr")
"""The two meanings of a None argument (module docstring)."""

_ids = itertools.count()


class Comparison(enum.Enum):
    """The predicates of :class:`Select`, applied as ``predicate(key, query)``."""

    EQ = "=="
    LT = "<"
    LEQ = "<="
    GT = ">"
    GEQ = ">="
    NEQ = "!="
    TRUE = "true"
    FALSE = "false"

    def __call__(self, key: Any, query: Any) -> bool:
        if self is Comparison.TRUE:
            return True
        if self is Comparison.FALSE:
            return False
        if self is Comparison.EQ:
            return key == query
        if self is Comparison.NEQ:
            return key != query
        if key is None or query is None:
            return False
        return {
            Comparison.LT: key < query,
            Comparison.LEQ: key <= query,
            Comparison.GT: key > query,
            Comparison.GEQ: key >= query,
        }[self]


class RASPExpr:
    """A node of a program; ``label`` names it in errors, the residual layout and the records."""

    kind = "expr"

    def __init__(self, label: str | None = None):
        self.id = next(_ids)
        self.label = label or _readable(self)

    def children(self) -> tuple[RASPExpr, ...]:
        """The expressions this one reads."""
        return ()

    def named(self, label: str) -> RASPExpr:
        """Rename (returns ``self``, for chaining)."""
        self.label = label
        return self

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label!r})"


def _short(e: RASPExpr, limit: int = 24) -> str:
    return e.label if len(e.label) <= limit else e.label[: limit - 3] + "..."


def _fname(f: Any, default: str) -> str:
    name = getattr(f, "__name__", None)
    return default if not name or name == "<lambda>" else name


def _readable(e: RASPExpr) -> str:
    """A default label from what the node does and reads, e.g. ``map(tokens)``,
    ``sequence_map(length, indices)``, ``aggregate(select(indices == opp_index), tokens)``
    (names longer than 24 characters shortened); unique labels are the compiler's concern."""
    c = [_short(x) for x in e.children()]
    if isinstance(e, (Map, SequenceMap)):
        return f"{_fname(e.f, e.kind)}({', '.join(c)})"
    if isinstance(e, Select):
        pred = getattr(e.predicate, "comparison", e.predicate)  # tracr's, wrapped
        op = pred.value if isinstance(pred, Comparison) else _fname(pred, "predicate")
        return f"select({c[0]} {op} {c[1]})"
    if isinstance(e, (SelectAnd, SelectOr)):
        return f"({c[0]} {'&' if type(e) is SelectAnd else '|'} {c[1]})"
    if isinstance(e, SelectNot):
        return f"~{c[0]}"
    if isinstance(e, Full):
        return f"full({e.fill!r})"
    if isinstance(e, SelectorWidth):
        return f"width({c[0]})"
    return f"{e.kind}({', '.join(c)})" if c else e.kind


class SOp(RASPExpr):
    """A sequence operation: one value per position. ``numerical`` SOps hold one number and are
    compiled to one residual dimension; categorical ones to a one-hot block."""

    numerical = False


class _Tokens(SOp):
    """The input tokens (the one instance is :data:`tokens`)."""

    kind = "tokens"


class _Indices(SOp):
    """The positions ``0..n-1`` (the one instance is :data:`indices`)."""

    kind = "indices"


tokens = _Tokens("tokens")
"""The input tokens."""
indices = _Indices("indices")
"""The positions ``0..n-1``."""


def _check_semantics(semantics: Any) -> str:
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics: expected one of {SEMANTICS}, got {semantics!r}")
    return semantics


def apply(e: Map | SequenceMap, *args: Any) -> Any:
    """``e``'s function on one position's arguments, with ``e``'s meaning of None (the one
    definition the interpreter and the compiler's value-set inference both call)."""
    if e.semantics == "tracr" and any(a is None for a in args):
        return None
    return e.f(*args)


def _check_sop(name: str, x: Any) -> SOp:
    if not isinstance(x, SOp):
        raise ValueError(f"{name}: expected a RASP SOp, got {type(x).__name__}")
    return x


class Map(SOp):
    """``f(x_i)`` at every position. ``numerical=True`` makes the result one number."""

    kind = "map"

    def __init__(
        self,
        f: Callable[[Any], Any],
        inner: SOp,
        *,
        numerical: bool = False,
        label: str | None = None,
        semantics: str = "rasp",
    ):
        if not callable(f):
            raise ValueError(f"f: expected a callable, got {type(f).__name__}")
        self.f, self.inner, self.numerical = f, _check_sop("inner", inner), bool(numerical)
        self.semantics = _check_semantics(semantics)
        super().__init__(label)

    def children(self) -> tuple[RASPExpr, ...]:
        return (self.inner,)


class SequenceMap(SOp):
    """``f(x_i, y_i)`` at every position (``x``, ``y`` categorical)."""

    kind = "sequence_map"

    def __init__(
        self,
        f: Callable[[Any, Any], Any],
        a: SOp,
        b: SOp,
        *,
        numerical: bool = False,
        label: str | None = None,
        semantics: str = "rasp",
    ):
        if not callable(f):
            raise ValueError(f"f: expected a callable, got {type(f).__name__}")
        self.f, self.a, self.b = f, _check_sop("a", a), _check_sop("b", b)
        self.numerical = bool(numerical)
        self.semantics = _check_semantics(semantics)
        super().__init__(label)

    def children(self) -> tuple[RASPExpr, ...]:
        return (self.a, self.b)


class LinearSequenceMap(SequenceMap):
    """``p x_i + q y_i`` at every position (tracr's ``LinearSequenceMap``); of two numerical
    SOps it compiles to an exact linear MLP, no discretisation, no copy."""

    kind = "linear_sequence_map"

    def __init__(
        self,
        a: SOp,
        b: SOp,
        p: float,
        q: float,
        *,
        numerical: bool = True,
        label: str | None = None,
        semantics: str = "rasp",
    ):
        for name, c in (("p", p), ("q", q)):
            if isinstance(c, bool) or not isinstance(c, (int, float, Fraction)):
                raise ValueError(f"{name}: expected a number, got {c!r}")
            if not math.isfinite(c):
                raise ValueError(f"{name}: expected a finite number, got {c!r}")
        self.p, self.q = p, q
        super().__init__(
            lambda x, y: p * x + q * y, a, b, numerical=numerical, label=label, semantics=semantics
        )


class Full(SOp):
    """``fill`` at every position (``numerical=True``: one number)."""

    kind = "full"

    def __init__(self, fill: Hashable, *, numerical: bool = False, label: str | None = None):
        self.fill, self.numerical = fill, bool(numerical)
        super().__init__(label)


class ConstantSOp(SOp):
    """``values[i]`` at position ``i``. With ``check_length`` (tracr's default) it has a
    meaning only on inputs of length ``len(values)``; without, on every input up to it."""

    kind = "constant"

    def __init__(
        self,
        values: Sequence[Hashable],
        *,
        numerical: bool = False,
        check_length: bool = True,
        label: str | None = None,
    ):
        self.values, self.numerical = tuple(values), bool(numerical)
        if not self.values:
            raise ValueError("values: expected at least one value")
        self.check_length = bool(check_length)
        super().__init__(label)


class Selector(RASPExpr):
    """A boolean matrix ``S[i][j]``: is key ``j`` selected at query ``i``. Selectors combine as
    tracr's do: ``a & b`` (:class:`SelectAnd`), ``a | b`` (:class:`SelectOr`), ``~a``
    (:class:`SelectNot`)."""

    kind = "selector"

    def __and__(self, other: Selector) -> SelectAnd:
        return SelectAnd(self, other)

    def __or__(self, other: Selector) -> SelectOr:
        return SelectOr(self, other)

    def __invert__(self) -> SelectNot:
        return SelectNot(self)

    def leaves(self) -> list[Select]:
        """The :class:`Select` nodes this selector combines."""
        raise NotImplementedError

    def combine(self, bits: dict[int, bool]) -> bool:
        """This selector's value given each leaf's value (``bits[leaf.id]``)."""
        raise NotImplementedError


class Select(Selector):
    """Key ``j`` selected at query ``i`` iff ``predicate(keys_j, queries_i)``: a
    :class:`Comparison`, or a function ``(key, query) -> bool`` (compiled as its table over the
    two value sets, like a comparison). Keys and queries may be numerical (compiled through a
    categorical copy of each, an MLP)."""

    kind = "select"

    def __init__(
        self,
        keys: SOp,
        queries: SOp,
        predicate: Comparison | Callable[[Any, Any], bool],
        *,
        label: str | None = None,
    ):
        if not isinstance(predicate, Comparison) and not callable(predicate):
            raise ValueError(f"predicate: expected a Comparison or a function, got {predicate!r}")
        self.keys, self.queries = _check_sop("keys", keys), _check_sop("queries", queries)
        self.predicate = predicate
        super().__init__(label)

    def children(self) -> tuple[RASPExpr, ...]:
        return (self.keys, self.queries)

    def leaves(self) -> list[Select]:
        return [self]

    def combine(self, bits: dict[int, bool]) -> bool:
        return bits[self.id]


def _check_selector(name: str, x: Any) -> Selector:
    if not isinstance(x, Selector):
        raise ValueError(f"{name}: expected a RASP selector, got {type(x).__name__}")
    return x


class SelectAnd(Selector):
    """Both selectors select the key."""

    kind = "select_and"

    def __init__(self, a: Selector, b: Selector, *, label: str | None = None):
        self.a, self.b = _check_selector("a", a), _check_selector("b", b)
        super().__init__(label)

    def children(self) -> tuple[RASPExpr, ...]:
        return (self.a, self.b)

    def leaves(self) -> list[Select]:
        return self.a.leaves() + self.b.leaves()

    def combine(self, bits: dict[int, bool]) -> bool:
        return self.a.combine(bits) and self.b.combine(bits)


class SelectOr(SelectAnd):
    """Either selector selects the key."""

    kind = "select_or"

    def combine(self, bits: dict[int, bool]) -> bool:
        return self.a.combine(bits) or self.b.combine(bits)


class SelectNot(Selector):
    """The complement of a selector."""

    kind = "select_not"

    def __init__(self, a: Selector, *, label: str | None = None):
        self.a = _check_selector("a", a)
        super().__init__(label)

    def children(self) -> tuple[RASPExpr, ...]:
        return (self.a,)

    def leaves(self) -> list[Select]:
        return self.a.leaves()

    def combine(self, bits: dict[int, bool]) -> bool:
        return not self.a.combine(bits)


class Aggregate(SOp):
    """The selected keys' value at each query (numerical: their mean; categorical: their common
    value); an empty selection reads ``default`` (numerical: a number, ``None`` meaning 0 unless
    ``semantics="tracr"``, where it means None)."""

    kind = "aggregate"

    def __init__(
        self,
        selector: Selector,
        sop: SOp,
        *,
        default: Hashable = None,
        label: str | None = None,
        semantics: str = "rasp",
    ):
        self.selector, self.sop = _check_selector("selector", selector), _check_sop("sop", sop)
        self.numerical = sop.numerical
        self.semantics = _check_semantics(semantics)
        if self.numerical and default is not None:
            try:
                ok = math.isfinite(Fraction(default))
            except (TypeError, ValueError, OverflowError):
                ok = False
            if isinstance(default, bool) or not ok:
                raise ValueError(
                    f"default: a numerical aggregate's empty selection is a number, got {default!r}"
                )
        if self.numerical and default is None and semantics == "rasp":
            default = 0
        self.default = default
        super().__init__(label)

    def children(self) -> tuple[RASPExpr, ...]:
        return (self.selector, self.sop)


class SelectorWidth(SOp):
    """``|S_i|``, the number of keys selected at query ``i`` (categorical ``0..n``;
    ``numerical=True``: one number)."""

    kind = "selector_width"

    def __init__(self, selector: Selector, *, numerical: bool = False, label: str | None = None):
        self.selector = _check_selector("selector", selector)
        self.numerical = bool(numerical)
        super().__init__(label)

    def children(self) -> tuple[RASPExpr, ...]:
        return (self.selector,)


def selection(
    sel: Selector, values: dict[int, list[Any]], n: int, causal: bool = False
) -> list[list[bool]]:
    """``S[i][j]`` of ``sel`` given the evaluated SOps ``values`` (by id)."""
    out = []
    for i in range(n):
        row = []
        for j in range(n):
            bits = {
                leaf.id: bool(leaf.predicate(values[leaf.keys.id][j], values[leaf.queries.id][i]))
                for leaf in sel.leaves()
            }
            row.append(sel.combine(bits) and (j <= i or not causal))
        out.append(row)
    return out


def _sops_in(expr: RASPExpr) -> list[SOp]:
    """Every SOp ``expr`` depends on, children before parents (``expr`` last)."""
    order: list[SOp] = []
    seen: set[int] = set()

    def visit(e: RASPExpr) -> None:
        if e.id in seen:
            return
        seen.add(e.id)
        for c in e.children():
            visit(c)
        if isinstance(e, SOp):
            order.append(e)

    visit(expr)
    return order


def evaluate_all(
    programs: SOp | Sequence[SOp], xs: Sequence[Hashable], causal: bool = False
) -> dict[int, list[Any]]:
    """The value of every SOp ``programs`` depend on, by ``id``, on the input ``xs``.

    Raises:
      ValueError: naming the operation and the input, for a categorical aggregate whose selected
        keys carry different values (undefined in RASP: the compiled mean of one-hots is no value).
    """
    progs = [programs] if isinstance(programs, SOp) else list(programs)
    if not isinstance(xs, Sequence):
        raise ValueError(f"xs: expected a sequence of tokens, got {xs!r:.80}")
    n = len(xs)
    values: dict[int, list[Any]] = {}
    for p in progs:
        for e in _sops_in(_check_sop("programs", p)):
            if e.id in values:
                continue
            if isinstance(e, _Tokens):
                v = list(xs)
            elif isinstance(e, _Indices):
                v = list(range(n))
            elif isinstance(e, Full):
                v = [e.fill] * n
            elif isinstance(e, ConstantSOp):
                k = len(e.values)
                if (e.check_length and n != k) or n > k:
                    raise ValueError(
                        f"{e.label}: a constant of length {k} has no value on input "
                        f"{list(xs)} of length {n}"
                    )
                v = list(e.values[:n])
            elif isinstance(e, Map):
                v = [apply(e, x) for x in values[e.inner.id]]
            elif isinstance(e, SequenceMap):
                v = [apply(e, x, y) for x, y in zip(values[e.a.id], values[e.b.id])]
            elif isinstance(e, SelectorWidth):
                v = [sum(row) for row in selection(e.selector, values, n, causal)]
            elif isinstance(e, Aggregate):
                v = []
                for i, row in enumerate(selection(e.selector, values, n, causal)):
                    picked = [x for x, s in zip(values[e.sop.id], row) if s]
                    if not picked:
                        v.append(e.default)
                    elif e.numerical:
                        if any(x is None for x in picked):
                            raise ValueError(
                                f"{e.label}: numerical aggregate over None at position {i} of "
                                f"input {list(xs)}"
                            )
                        v.append(sum(Fraction(x) for x in picked) / len(picked))
                    elif len(set(picked)) == 1:
                        v.append(picked[0])
                    else:
                        raise ValueError(
                            f"{e.label}: categorical aggregate over different values "
                            f"{sorted(set(map(repr, picked)))} at position {i} of input {list(xs)}"
                        )
            else:  # pragma: no cover - every SOp kind is above
                raise ValueError(f"programs: unknown SOp {e!r}")
            values[e.id] = v
    return values


def prefix_program(program: SOp) -> SOp:
    """A program whose (non-causal) meaning is ``program``'s causal meaning: every selector
    that an ``Aggregate`` or ``SelectorWidth`` reads is AND-ed with ``Select(indices, indices,
    LEQ)`` (key ``j <= i``, what the causal mask does), the rest copied with its labels."""
    import copy

    done: dict[int, RASPExpr] = {}

    def rebuild(e: RASPExpr) -> RASPExpr:
        if e.id in done:
            return done[e.id]
        if isinstance(e, (_Tokens, _Indices)):
            return e
        new = copy.copy(e)
        new.id = next(_ids)
        for name in ("inner", "a", "b", "keys", "queries", "selector", "sop"):
            if isinstance(getattr(e, name, None), RASPExpr):
                setattr(new, name, rebuild(getattr(e, name)))
        if isinstance(e, (Aggregate, SelectorWidth)):
            new.selector = SelectAnd(
                new.selector, causal_mask(), label=f"{e.selector.label}.causal"
            )
        done[e.id] = new
        return new

    return _check_sop("program", rebuild(_check_sop("program", program)))


def causal_mask() -> Select:
    """``Select(indices, indices, LEQ)``: key ``j`` at query ``i`` iff ``j <= i`` (marked, so a
    causal compilation knows the mask already does it)."""
    sel = Select(indices, indices, Comparison.LEQ, label="causal_mask")
    sel.is_causal_mask = True
    return sel


def evaluate(program: SOp, xs: Sequence[Hashable], causal: bool = False) -> list[Any]:
    """The program's value at every position of the input ``xs`` (its semantics)."""
    return evaluate_all(program, xs, causal)[program.id]
