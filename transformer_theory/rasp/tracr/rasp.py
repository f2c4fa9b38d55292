"""tracr's RASP names and behaviour (``tracr.rasp.rasp``), written here; see the package docstring.

A program written as ``from tracr.rasp import rasp`` runs with
``from transformer_theory.rasp.tracr import rasp``. Every expression is a node of tracr's shape
(``Map.f`` / ``.inner``, ``SequenceMap.fst`` / ``.snd``, ``Select.keys`` / ``.queries`` /
``.predicate``, ``Aggregate.selector`` / ``.sop`` / ``.default``, annotations ``name`` and
``encoding``); ``evaluate`` (and calling an expression) gives tracr's values: this library's
interpreter on the translated program (:func:`transformer_theory.rasp._tracr.from_tracr`), a
selector as its boolean matrix.
"""

from __future__ import annotations

import collections.abc
import copy
import enum
import functools
import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

__all__ = [
    "DEFAULT_ANNOTATORS",
    "Aggregate",
    "Comparison",
    "ConstantSOp",
    "ConstantSelector",
    "Encoding",
    "Full",
    "IndicesType",
    "LengthType",
    "LinearSequenceMap",
    "Map",
    "RASPExpr",
    "SOp",
    "Select",
    "Selector",
    "SelectorAnd",
    "SelectorNot",
    "SelectorOr",
    "SelectorWidth",
    "SequenceMap",
    "TokensType",
    "annotate",
    "categorical",
    "default_name",
    "evaluate",
    "get_encoding",
    "indices",
    "is_categorical",
    "is_numerical",
    "length",
    "numerical",
    "selector_and",
    "selector_not",
    "selector_or",
    "tokens",
]

DEFAULT_ANNOTATORS: dict[str, Callable[[RASPExpr], Any]] = {}
"""Lazily computed default annotations by key (``name``, ``encoding``), as in tracr."""


class _Annotations(collections.abc.Mapping):
    """An expression's annotations: read-only, a missing key filled from
    :data:`DEFAULT_ANNOTATORS` on first access."""

    def __init__(self, expr: RASPExpr, **kwargs: Any):
        self._expr = expr
        self._inner_dict: dict[str, Any] = dict(kwargs)

    def __getitem__(self, key: str) -> Any:
        if key not in self._inner_dict:
            if key not in DEFAULT_ANNOTATORS:
                raise KeyError(
                    f"No annotation exists for key '{key}'. Available keys: "
                    f"{set(self) | set(DEFAULT_ANNOTATORS)}"
                )
            self._inner_dict[key] = DEFAULT_ANNOTATORS[key](self._expr)
        return self._inner_dict[key]

    def __iter__(self):
        return iter(self._inner_dict)

    def __len__(self) -> int:
        return len(self._inner_dict)


class RASPExpr:
    """A RASP expression; ``expr(xs)`` evaluates it."""

    _ids = itertools.count(1)

    def __init__(self):
        self._annotations = _Annotations(self)

    def __call__(self, xs: Sequence[Any]) -> Any:
        return evaluate(self, xs)

    def eval(self, xs: Sequence[Any]) -> Any:
        """The expression's value on ``xs`` (as calling it)."""
        return evaluate(self, xs)

    @property
    def annotations(self) -> collections.abc.Mapping:
        return self._annotations

    @annotations.setter
    def annotations(self, annotations: collections.abc.Mapping) -> None:
        self._annotations = _Annotations(self, **annotations)

    @property
    def name(self) -> str:
        return self.annotations["name"]

    @property
    def children(self) -> Sequence[RASPExpr]:
        return []

    @functools.cached_property
    def unique_id(self) -> int:
        return next(self._ids)

    def copy(self) -> RASPExpr:
        """A shallow copy (tracr's: a new expression over the same children)."""
        return copy.copy(self)

    @property
    def label(self) -> str:
        return f"{self.name}_{self.unique_id}"

    def named(self, name: str) -> RASPExpr:
        """A copy annotated with ``name`` (tracr's ``named`` does not rename in place)."""
        return annotate(self, name=name)

    def annotated(self, **annotations: Any) -> RASPExpr:
        return annotate(self, **annotations)


def annotate(expr: RASPExpr, **annotations: Any) -> RASPExpr:
    """A copy of ``expr`` with ``annotations`` added (new ones overwrite)."""
    new = expr.copy()
    new.annotations = {**expr.annotations, **annotations}
    return new


def _lift(other: Any, self_first: bool, f: Callable[[Any, Any], Any], sop: SOp) -> SOp:
    if isinstance(other, SOp):
        return SequenceMap(f, sop, other) if self_first else SequenceMap(f, other, sop)
    if self_first:
        return Map(lambda x: f(x, other), sop)
    return Map(lambda x: f(other, x), sop)


class SOp(RASPExpr):
    """A sequence operation; comparison and arithmetic operators build Maps / SequenceMaps."""

    __hash__ = RASPExpr.__hash__

    def __lt__(self, other):
        return Map(lambda x: x < other, self)

    def __le__(self, other):
        return Map(lambda x: x <= other, self)

    def __eq__(self, other):
        return Map(lambda x: x == other, self)

    def __ne__(self, other):
        return Map(lambda x: x != other, self)

    def __gt__(self, other):
        return Map(lambda x: x > other, self)

    def __ge__(self, other):
        return Map(lambda x: x >= other, self)

    def __add__(self, other):
        return _lift(other, True, lambda x, y: x + y, self)

    def __radd__(self, other):
        return _lift(other, False, lambda x, y: x + y, self)

    def __sub__(self, other):
        return _lift(other, True, lambda x, y: x - y, self)

    def __rsub__(self, other):
        return _lift(other, False, lambda x, y: x - y, self)

    def __mul__(self, other):
        return _lift(other, True, lambda x, y: x * y, self)

    def __rmul__(self, other):
        return _lift(other, False, lambda x, y: x * y, self)

    def __truediv__(self, other):
        return _lift(other, True, lambda x, y: x / y, self)

    def __rtruediv__(self, other):
        return _lift(other, False, lambda x, y: x / y, self)

    def __invert__(self):
        return Map(lambda x: not x, self)

    def __and__(self, other):
        return _lift(other, True, lambda x, y: x and y, self)

    def __rand__(self, other):
        return _lift(other, False, lambda x, y: x and y, self)

    def __or__(self, other):
        return _lift(other, True, lambda x, y: x or y, self)

    def __ror__(self, other):
        # tracr's own __ror__ of a value computes ``x or other`` (self first): kept
        if isinstance(other, SOp):
            return SequenceMap(lambda x, y: x or y, other, self)
        return Map(lambda x: x or other, self)


class TokensType(SOp):
    """The input tokens."""

    @property
    def label(self) -> str:
        return "tokens"

    def __repr__(self) -> str:
        return "tokens"


class IndicesType(SOp):
    """The positions ``0..n-1``."""

    @property
    def label(self) -> str:
        return "indices"

    def __repr__(self) -> str:
        return "indices"


class LengthType(SOp):
    """The input's length at every position."""

    @property
    def label(self) -> str:
        return "length"

    def __repr__(self) -> str:
        return "length"


tokens = TokensType()
indices = IndicesType()
length = LengthType()


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise ValueError(what)


class Map(SOp):
    """``f`` elementwise on ``inner``; with ``simplify`` a Map of a Map is one Map (tracr's)."""

    def __init__(self, f: Callable[[Any], Any], inner: SOp, simplify: bool = True):
        super().__init__()
        _check(isinstance(inner, SOp), f"inner: expected a SOp, got {type(inner).__name__}")
        _check(callable(f) and not isinstance(f, RASPExpr), "f: expected a function")
        self.f, self.inner = f, inner
        if simplify and isinstance(inner, Map):
            inner_f = inner.f
            self.f = lambda t: f(inner_f(t))
            self.inner = inner.inner

    @property
    def children(self) -> Sequence[RASPExpr]:
        return [self.inner]


class SequenceMap(SOp):
    """``f`` elementwise on two SOps."""

    def __init__(self, f: Callable[[Any, Any], Any], fst: SOp, snd: SOp):
        super().__init__()
        for name, x in (("fst", fst), ("snd", snd)):
            _check(isinstance(x, SOp), f"{name}: expected a SOp, got {type(x).__name__}")
        _check(callable(f) and not isinstance(f, RASPExpr), "f: expected a function")
        self.f, self.fst, self.snd = f, fst, snd

    @property
    def children(self) -> Sequence[RASPExpr]:
        return [self.fst, self.snd]


class LinearSequenceMap(SequenceMap):
    """``fst_fac * x + snd_fac * y`` elementwise."""

    def __init__(self, fst: SOp, snd: SOp, fst_fac: float, snd_fac: float):
        super().__init__(lambda x, y: fst_fac * x + snd_fac * y, fst, snd)
        self.fst_fac, self.snd_fac = fst_fac, snd_fac


class Full(SOp):
    """``[fill] * len(xs)``."""

    def __init__(self, fill: Any):
        super().__init__()
        self.fill = fill


class ConstantSOp(SOp):
    """A constant sequence (``check_length``: the input must have its length)."""

    def __init__(self, value: Sequence[Any], check_length: bool = True):
        super().__init__()
        self.value, self.check_length = value, check_length


def sop_not(sop: SOp) -> SOp:
    return Map(lambda t: not t, sop)


class Comparison(enum.Enum):
    """The predicates of ``Select``, applied as ``predicate(key, query)``; None raises."""

    EQ = "=="
    LT = "<"
    LEQ = "<="
    GT = ">"
    GEQ = ">="
    NEQ = "!="
    TRUE = "True"
    FALSE = "False"

    def __call__(self, key: Any, query: Any) -> bool:
        if key is None:
            raise ValueError("key is None!")
        if query is None:
            raise ValueError("query is None!")
        from transformer_theory.rasp._language import Comparison as _C

        return _C[self.name](key, query)


class Selector(RASPExpr):
    """A selector; ``&``, ``|``, ``~`` combine selectors (simplified as tracr simplifies)."""

    def __and__(self, other):
        return selector_and(self, other)

    def __rand__(self, other):
        return selector_and(other, self)

    def __or__(self, other):
        return selector_or(self, other)

    def __ror__(self, other):
        return selector_or(other, self)

    def __invert__(self):
        return selector_not(self)


class Select(Selector):
    """Key ``j`` selected at query ``i`` iff ``predicate(keys[j], queries[i])``."""

    def __init__(self, keys: SOp, queries: SOp, predicate: Callable[[Any, Any], bool]):
        super().__init__()
        for name, x in (("keys", keys), ("queries", queries)):
            _check(isinstance(x, SOp), f"{name}: expected a SOp, got {type(x).__name__}")
        self.keys, self.queries, self.predicate = keys, queries, predicate

    @property
    def children(self) -> Sequence[RASPExpr]:
        return [self.keys, self.queries]


class ConstantSelector(Selector):
    """A constant selector matrix (for testing, as in tracr)."""

    def __init__(self, value: Sequence[Sequence[bool]], check_length: bool = True):
        super().__init__()
        self.value, self.check_length = value, check_length


class SelectorWidth(SOp):
    """How many keys the selector selects at each query."""

    def __init__(self, selector: Selector):
        super().__init__()
        _check(isinstance(selector, Selector), "selector: expected a Selector")
        self.selector = selector

    @property
    def children(self) -> Sequence[RASPExpr]:
        return [self.selector]


class _SelectorPair(Selector):
    def __init__(self, fst: Selector, snd: Selector):
        super().__init__()
        for name, x in (("fst", fst), ("snd", snd)):
            _check(isinstance(x, Selector), f"{name}: expected a Selector")
        self.fst, self.snd = fst, snd

    @property
    def children(self) -> Sequence[RASPExpr]:
        return [self.fst, self.snd]


class SelectorAnd(_SelectorPair):
    """Both selectors select the key."""


class SelectorOr(_SelectorPair):
    """Either selector selects the key."""


class SelectorNot(Selector):
    def __init__(self, inner: Selector):
        super().__init__()
        _check(isinstance(inner, Selector), "inner: expected a Selector")
        self.inner = inner

    @property
    def children(self) -> Sequence[RASPExpr]:
        return [self.inner]


def selector_not(inner: Selector, simplify: bool = True) -> Selector:
    """``~inner``; a Select becomes one Select with the negated predicate."""
    if simplify and isinstance(inner, Select):
        return Select(inner.keys, inner.queries, lambda k, q: not inner.predicate(k, q))
    return SelectorNot(inner)


def _attempt_simplify(fst: Select, snd: Select, combine) -> Select | None:
    """One Select for two over the same keys and queries (a ``Full`` side matches any SOp,
    its fill baked into the predicate), as tracr simplifies; None where they differ."""
    p1, p2 = fst.predicate, snd.predicate
    keys = queries = None
    if isinstance(fst.keys, Full):
        keys, p1 = snd.keys, (lambda k, q, p=p1: p(fst.keys.fill, q))
    if isinstance(snd.keys, Full):
        keys, p2 = fst.keys, (lambda k, q, p=p2: p(snd.keys.fill, q))
    if isinstance(fst.queries, Full):
        queries, p1 = snd.queries, (lambda k, q, p=p1: p(k, fst.queries.fill))
    if isinstance(snd.queries, Full):
        queries, p2 = fst.queries, (lambda k, q, p=p2: p(k, snd.queries.fill))
    if fst.keys is snd.keys:
        keys = fst.keys
    if fst.queries is snd.queries:
        queries = fst.queries
    if keys is None or queries is None:
        return None
    return Select(keys, queries, lambda k, q: combine(p1(k, q), p2(k, q)))


def selector_and(fst: Selector, snd: Selector, simplify: bool = True) -> Selector:
    if simplify and isinstance(fst, Select) and isinstance(snd, Select):
        out = _attempt_simplify(fst, snd, lambda a, b: a and b)
        if out is not None:
            return out
    return SelectorAnd(fst, snd)


def selector_or(fst: Selector, snd: Selector, simplify: bool = True) -> Selector:
    if simplify and isinstance(fst, Select) and isinstance(snd, Select):
        out = _attempt_simplify(fst, snd, lambda a, b: a or b)
        if out is not None:
            return out
    return SelectorOr(fst, snd)


class Aggregate(SOp):
    """The selected keys' value (numerical: their mean); ``default`` where none is selected."""

    def __init__(self, selector: Selector, sop: SOp, default: Any = None):
        super().__init__()
        _check(isinstance(selector, Selector), "selector: expected a Selector")
        _check(isinstance(sop, SOp), f"sop: expected a SOp, got {type(sop).__name__}")
        _check(
            default is None or isinstance(default, (str, float, bool, int)),
            f"default: expected None, str, float, bool or int, got {default!r}",
        )
        self.selector, self.sop, self.default = selector, sop, default

    @property
    def children(self) -> Sequence[RASPExpr]:
        return [self.selector, self.sop]


class Encoding(enum.Enum):
    """How a SOp is encoded in the residual stream."""

    CATEGORICAL = "categorical"
    NUMERICAL = "numerical"


def numerical(sop: RASPExpr) -> RASPExpr:
    return annotate(sop, encoding=Encoding.NUMERICAL)


def categorical(sop: RASPExpr) -> RASPExpr:
    return annotate(sop, encoding=Encoding.CATEGORICAL)


def get_encoding(sop: SOp) -> Encoding:
    return sop.annotations["encoding"]


def is_numerical(sop: SOp) -> bool:
    return get_encoding(sop) == Encoding.NUMERICAL


def is_categorical(sop: SOp) -> bool:
    return get_encoding(sop) == Encoding.CATEGORICAL


def default_encoding(expr: RASPExpr) -> Encoding:
    if not isinstance(expr, SOp):
        raise TypeError(f"expr {expr} is not a SOp.")
    return Encoding.CATEGORICAL


_default_name_by_class = {
    TokensType: "tokens",
    IndicesType: "indices",
    LengthType: "length",
    LinearSequenceMap: "linear_sequence_map",
    SequenceMap: "sequence_map",
    Map: "map",
    Full: "full",
    ConstantSOp: "constant_sop",
    SelectorWidth: "selector_width",
    Aggregate: "aggregate",
    SOp: "sop",
    Select: "select",
    SelectorOr: "selector_or",
    SelectorAnd: "selector_and",
    SelectorNot: "selector_not",
    ConstantSelector: "constant_selector",
    Selector: "selector",
}


def default_name(expr: RASPExpr) -> str:
    for cls, name in _default_name_by_class.items():
        if isinstance(expr, cls):
            return name
    raise NotImplementedError(f"{expr} was not given a default name!")


DEFAULT_ANNOTATORS["encoding"] = default_encoding
DEFAULT_ANNOTATORS["name"] = default_name


def _float(v: Any) -> Any:
    return float(v) if isinstance(v, Fraction) else v


def evaluate(expr: RASPExpr, xs: Sequence[Any], causal: bool = False) -> Any:
    """``expr`` on ``xs``: a SOp's value per position, a selector's matrix ``[query][key]``
    (``causal``: every selector masked to keys ``j <= i``, tracr's ``causal_eval``)."""
    from transformer_theory.rasp import _language as lang
    from transformer_theory.rasp import _tracr

    if isinstance(expr, Selector):
        probe = Aggregate(expr, tokens)  # translated with the selector, never evaluated
        sel = _tracr.from_tracr(probe).selector
        trace = lang.evaluate_all([s for lf in sel.leaves() for s in (lf.keys, lf.queries)], xs)
        return lang.selection(sel, trace, len(xs), causal)
    if not isinstance(expr, SOp):
        raise ValueError(f"expr: expected a RASP expression, got {type(expr).__name__}")
    return [_float(v) for v in lang.evaluate(_tracr.from_tracr(expr), list(xs), causal)]
