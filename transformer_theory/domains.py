"""Domains: the sets a statement quantifies over, as objects that know their size and enumerate
their elements.

A ledger row (:class:`transformer_theory.ledger.Row`) names the domain of the statement it is
about (``Row.domain``: the printed statement's, or the library's own statement's) and its check
reports the sub-domain it covered, element by element, through a :class:`Tally`. The ledger then
counts what was covered against the sub-domain's own size and reads *how* the sub-domain relates
to the statement's domain (:func:`relation`): the whole of a finite set, every size of a family up
to a bound, a grid of a continuum, samples, one instance. Nothing a row or a check writes in words
decides that: the words in CLAIMS.md are generated from these objects (:meth:`Domain.words`).

The kinds:

- finite sets, enumerated: :class:`Strings` (every string over an alphabet of the given
  lengths), :class:`Grid` (a product of integer / rational / named axes), :class:`Enumerated`
  (a named list: datasets, programs, template pairs, model configurations), :class:`Product`,
  :class:`Filtered` (the members of a finite set that satisfy a stated predicate);
  :class:`Counted` (a finite set known by its count, its elements reported in batches);
- :class:`Family`: a family with a size parameter (``n = 1, 2, ...``, unbounded unless ``stop``
  is given) whose member at each size is a finite domain; :meth:`Family.upto` and
  :meth:`Family.at` are its finite sub-domains (every element at each listed size);
- :class:`Continuum`: a set of real numbers, vectors or weights (uncountable);
  :meth:`Continuum.grid` is a finite grid of its points, :meth:`Continuum.enclosure` the whole
  set covered by one ball enclosure (arb arithmetic over an interval box);
- :class:`Exists`: "there exists a W such that (for every element of ``of``) ...": the statement
  is existential in W, its witness is the library's object, and the check covers ``of``;
- :class:`Trained` and :class:`Record`: the domains of measurements (a training run, a committed
  record); no check over them proves anything.

Derived sub-domains: :meth:`Domain.sample` (``n`` seeded draws), :meth:`Domain.instance` (one
element), and the family / continuum ones above. Each knows its ``parent``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Any

from transformer_theory import _validate

__all__ = [
    "RELATIONS",
    "Continuum",
    "Counted",
    "Domain",
    "Enumerated",
    "Exists",
    "Family",
    "Filtered",
    "Grid",
    "Product",
    "Record",
    "Strings",
    "Tally",
    "Trained",
    "relation",
    "statement_kind",
]

#: How a covered sub-domain relates to a statement's domain, strongest first:
#: ``all`` (the whole finite domain, or a continuum enclosed whole), ``upto`` (every element at
#: several sizes of a family: listed), ``grid`` (the points of a finite grid of a continuum),
#: ``samples`` (seeded draws), ``instance`` (one element, or every element at ONE size of a
#: family), ``none`` (nothing covered, or a measurement's domain).
RELATIONS: tuple[str, ...] = ("all", "upto", "grid", "samples", "instance", "none")

# A Tally keeps the keys of the recorded elements (to see duplicates and strangers) up to this
# many; beyond, it only counts.
_KEY_LIMIT = 2_000_000


def _n(k: int) -> str:
    return f"{k:,}"


def _span(ns: Sequence[int]) -> str:
    ns = sorted(ns)
    if len(ns) > 2 and ns == list(range(ns[0], ns[-1] + 1)):
        return f"{ns[0]}-{ns[-1]}"
    return ", ".join(map(str, ns))


class Domain:
    """A set a statement quantifies over. Subclasses are frozen dataclasses.

    ``size``: the number of elements (``None`` for an unbounded family or a continuum);
    ``elements()``: every element, once each (finite domains only); ``contains(e)``: membership
    (``None`` where it cannot be decided); ``key(e)``: a hashable key of an element (to count
    distinct elements); ``words()``: the domain in words, with its size; ``parent``: the domain
    this one was derived from (``None`` for a statement's own).
    """

    @property
    def size(self) -> int | None:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    @property
    def finite(self) -> bool:
        return self.size is not None

    def elements(self) -> Iterator[Any]:
        raise ValueError(f"domain: {self.words()} is not finite: its elements cannot be listed")

    def contains(self, element: Any) -> bool | None:
        return None

    def key(self, element: Any) -> Hashable:
        return _hashable(element)

    def words(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def __str__(self) -> str:
        return self.words()

    # -- derived sub-domains -------------------------------------------------------------------
    def sample(
        self, n: int, seed: int, draw: Callable[[int, int], Any] | None = None, *, what: str = ""
    ) -> Samples:
        """``n`` seeded draws from this domain (``draw(seed, i)`` gives the i-th; by default a
        seeded choice among the elements of a finite domain)."""
        return Samples(self, n, seed, draw, what)

    def instance(self, what: str, element: Any = None) -> Instance:
        """One element of this domain (``what``: which, e.g. ``"seed 0"``)."""
        return Instance(self, what, element)


def _hashable(e: Any) -> Hashable:
    if isinstance(e, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in e.items()))
    if isinstance(e, (list, tuple)):
        return tuple(_hashable(x) for x in e)
    if hasattr(e, "tolist"):  # numpy arrays and scalars
        return _hashable(e.tolist())
    try:
        hash(e)
    except TypeError:
        return repr(e)
    return e


# ---------------------------------------------------------------------------------------------
# finite sets
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Strings(Domain):
    """Every string over ``alphabet`` of each length in ``lengths`` (as tuples of symbols).

    ``Strings("01", range(1, 6))``: the 62 binary strings of lengths 1-5."""

    alphabet: tuple
    lengths: tuple[int, ...]
    what: str = "string"

    def __init__(self, alphabet: Iterable, lengths: Iterable[int], what: str = "string"):
        alphabet = tuple(alphabet)
        lengths = tuple(sorted(set(int(n) for n in lengths)))
        if not alphabet:
            raise ValueError("alphabet: expected at least one symbol")
        if len(set(alphabet)) != len(alphabet):
            raise ValueError(f"alphabet: repeated symbols in {alphabet!r}")
        if not lengths or lengths[0] < 0:
            raise ValueError(f"lengths: expected lengths >= 0, got {lengths!r}")
        object.__setattr__(self, "alphabet", alphabet)
        object.__setattr__(self, "lengths", lengths)
        object.__setattr__(self, "what", what)

    @property
    def size(self) -> int:
        return sum(len(self.alphabet) ** n for n in self.lengths)

    def elements(self) -> Iterator[tuple]:
        for n in self.lengths:
            yield from itertools.product(self.alphabet, repeat=n)

    def contains(self, element: Any) -> bool:
        s = tuple(_hashable(element)) if not isinstance(element, str) else tuple(element)
        return len(s) in self.lengths and all(x in self.alphabet for x in s)

    def key(self, element: Any) -> Hashable:
        return tuple(element) if isinstance(element, str) else _hashable(element)

    def words(self) -> str:
        sigma = "{" + ", ".join(map(str, self.alphabet)) + "}"
        ls = self.lengths
        length = f"length {ls[0]}" if len(ls) == 1 else f"lengths {_span(ls)}"
        return f"every {self.what} over {sigma} of {length} ({_n(self.size)} {self.what}s)"


@dataclasses.dataclass(frozen=True)
class Grid(Domain):
    """The product of named axes, each a finite list of values (integers, rationals, names).

    ``Grid({"q": range(1, 4), "N": (8, 16)}, over="integers")``: six (q, N) pairs. Elements
    are dicts ``{axis: value}``. ``over`` says what the axes' values are (``"integers"``,
    ``"rationals"``, ``"choices"``)."""

    axes: tuple[tuple[str, tuple], ...]
    over: str = "integers"

    def __init__(self, axes: Any, over: str = "integers"):
        items = axes.items() if hasattr(axes, "items") else axes
        axes_t = tuple((str(k), tuple(v)) for k, v in items)
        if not axes_t or any(not v for _, v in axes_t):
            raise ValueError(f"axes: expected non-empty axes, got {axes!r}")
        object.__setattr__(self, "axes", axes_t)
        object.__setattr__(self, "over", over)

    @property
    def size(self) -> int:
        return math.prod(len(v) for _, v in self.axes)

    def elements(self) -> Iterator[dict]:
        names = [k for k, _ in self.axes]
        for combo in itertools.product(*(v for _, v in self.axes)):
            yield dict(zip(names, combo))

    def contains(self, element: Any) -> bool:
        return isinstance(element, dict) and all(
            k in element and element[k] in v for k, v in self.axes
        )

    def words(self) -> str:
        parts = []
        for k, v in self.axes:
            ints = all(isinstance(x, int) and not isinstance(x, bool) for x in v)
            parts.append(f"{k} in {{{_span(v) if ints else ', '.join(map(str, v))}}}")
        unit = {"integers": "integer points", "rationals": "rational points"}.get(
            self.over, "points"
        )
        return f"every {' x '.join(parts)} ({_n(self.size)} {unit})"


@dataclasses.dataclass(frozen=True)
class Counted(Domain):
    """A finite set named in words whose size is counted, not listed (``count``: e.g. every input
    of every task whose parameters sum to ``s``, counted from the tasks' sizes). Its elements
    cannot be enumerated here, so a check over it reports them in batches
    (:meth:`Tally.record_count`): the tally then sees a shortfall or an excess, never a
    duplicate or a stranger, which is why a check that can list its elements should use a
    listing domain (:class:`Strings`, :class:`Grid`, :class:`Enumerated`) instead."""

    what: str
    count: int

    def __post_init__(self):
        _validate.check_int_arg("count", self.count, 0)

    @property
    def size(self) -> int:
        return self.count

    def words(self) -> str:
        return f"{self.what} ({self.count:,})"


@dataclasses.dataclass(frozen=True)
class Enumerated(Domain):
    """A named finite list (datasets, programs, template pairs, model configurations).

    ``Enumerated("the four datasets of Theorem 2", ("toy", "a", "b", "c"))``."""

    name: str
    items: tuple
    what: str = "element"

    def __init__(self, name: str, items: Iterable, what: str = "element"):
        items = tuple(items)
        if not items:
            raise ValueError(f"items: {name!r} has no elements")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "items", items)
        object.__setattr__(self, "what", what)

    @property
    def size(self) -> int:
        return len(self.items)

    def elements(self) -> Iterator[Any]:
        return iter(self.items)

    def contains(self, element: Any) -> bool:
        k = _hashable(element)
        return any(_hashable(x) == k for x in self.items)

    def words(self) -> str:
        plural = self.what if self.size == 1 else f"{self.what}s"
        return f"{self.name} ({_n(self.size)} {plural})"


@dataclasses.dataclass(frozen=True)
class Product(Domain):
    """Every tuple ``(e_1, ..., e_k)`` with ``e_i`` in ``parts[i]``."""

    parts: tuple[Domain, ...]

    def __init__(self, *parts: Domain):
        if len(parts) < 2 or not all(isinstance(p, Domain) for p in parts):
            raise ValueError("parts: expected two or more Domains")
        object.__setattr__(self, "parts", tuple(parts))

    @property
    def size(self) -> int | None:
        sizes = [p.size for p in self.parts]
        return None if any(s is None for s in sizes) else math.prod(sizes)

    def elements(self) -> Iterator[tuple]:
        if not self.finite:
            return super().elements()
        return itertools.product(*(p.elements() for p in self.parts))

    def contains(self, element: Any) -> bool | None:
        if not isinstance(element, tuple) or len(element) != len(self.parts):
            return False
        got = [p.contains(e) for p, e in zip(self.parts, element)]
        return None if None in got else all(got)

    def key(self, element: Any) -> Hashable:
        return tuple(p.key(e) for p, e in zip(self.parts, element))

    def words(self) -> str:
        return " x ".join(f"[{p.words()}]" for p in self.parts)


@dataclasses.dataclass(frozen=True)
class Filtered(Domain):
    """The elements of the finite domain ``of`` that satisfy ``predicate`` (``which`` says it in
    words: ``"balanced"``). Its size is counted by enumerating ``of``."""

    of: Domain
    predicate: Callable[[Any], bool]
    which: str

    def __post_init__(self) -> None:
        if not self.of.finite:
            raise ValueError(f"of: {self.of.words()} is not finite")

    @functools.cached_property
    def size(self) -> int:
        return sum(1 for _ in self.elements())

    def elements(self) -> Iterator[Any]:
        return (e for e in self.of.elements() if self.predicate(e))

    def contains(self, element: Any) -> bool | None:
        inside = self.of.contains(element)
        return None if inside is None else bool(inside and self.predicate(element))

    def key(self, element: Any) -> Hashable:
        return self.of.key(element)

    def words(self) -> str:
        return f"the {self.which} elements of {self.of.words()} ({_n(self.size)})"


# ---------------------------------------------------------------------------------------------
# families with a size parameter
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Family(Domain):
    """A family with size parameter ``parameter`` = ``start``, ``start + 1``, ... (unbounded
    unless ``stop``) whose member at size ``n`` is the finite domain ``member(n)``.

    ``Family("L", lambda L: Strings("01", [L]), start=1, what="binary strings")``: every
    binary string of every length. Statements "for every n" quantify over it; a check covers
    :meth:`upto` (every size up to a bound) or :meth:`at` (listed sizes)."""

    parameter: str
    member: Callable[[int], Domain]
    what: str
    start: int = 0
    stop: int | None = None

    @property
    def size(self) -> int | None:
        if self.stop is None:
            return None
        return sum(self.member(n).size for n in range(self.start, self.stop + 1))

    def elements(self) -> Iterator[Any]:
        if self.stop is None:
            return super().elements()
        return itertools.chain.from_iterable(
            self.member(n).elements() for n in range(self.start, self.stop + 1)
        )

    def contains(self, element: Any) -> bool | None:
        return None

    def words(self) -> str:
        if self.stop is None:
            return f"{self.what}, for every {self.parameter} >= {self.start}"
        return f"{self.what}, {self.parameter} = {self.start}-{self.stop}"

    def upto(self, bound: int) -> Sizes:
        """Every element at every size ``start..bound``."""
        return self.at(range(self.start, int(bound) + 1))

    def at(self, sizes: Iterable[int]) -> Sizes:
        """Every element at each of the listed sizes."""
        sizes = tuple(sorted(set(int(n) for n in sizes)))
        if not sizes:
            raise ValueError(f"sizes: no {self.parameter} given")
        if sizes[0] < self.start or (self.stop is not None and sizes[-1] > self.stop):
            raise ValueError(f"sizes: {self.parameter} = {sizes} outside {self.words()}")
        return Sizes(self, sizes)


@dataclasses.dataclass(frozen=True)
class Sizes(Domain):
    """Every element of ``family`` at each size in ``sizes`` (a finite sub-domain)."""

    parent: Domain  # the Family the sizes are of
    sizes: tuple[int, ...]

    @property
    def size(self) -> int:
        return sum(self.parent.member(n).size for n in self.sizes)

    def elements(self) -> Iterator[Any]:
        return itertools.chain.from_iterable(self.parent.member(n).elements() for n in self.sizes)

    def contains(self, element: Any) -> bool | None:
        got = [self.parent.member(n).contains(element) for n in self.sizes]
        return True if True in got else (None if None in got else False)

    def key(self, element: Any) -> Hashable:
        return self.parent.member(self.sizes[0]).key(element)

    def words(self) -> str:
        p = self.parent
        which = f"{p.parameter} = {_span(self.sizes)}"
        if len(self.sizes) == 1:
            inner = p.member(self.sizes[0]).words()
            return f"{p.what} at {which} only: {inner}"
        return f"{p.what} at every {which} ({_n(self.size)} elements)"


# ---------------------------------------------------------------------------------------------
# continua
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Continuum(Domain):
    """A set of real numbers, vectors or weights (``what``: ``"every eps in (0, 1)"``,
    ``"every real weight of the family"``). Uncountable: covered by a ball enclosure of the
    whole set (:meth:`enclosure`), a finite grid of its points (:meth:`grid`), samples, or one
    instance."""

    what: str

    @property
    def size(self) -> None:
        return None

    def words(self) -> str:
        return self.what

    def grid(self, points: Domain) -> GridOf:
        """The finite set ``points`` (a :class:`Grid` or :class:`Enumerated`) of this continuum."""
        return GridOf(self, points)

    def enclosure(self, box: str) -> Enclosure:
        """The whole continuum, covered by ball arithmetic over ``box`` (its one element)."""
        return Enclosure(self, box)


@dataclasses.dataclass(frozen=True)
class GridOf(Domain):
    """A finite grid ``points`` of the continuum ``parent``."""

    parent: Domain  # the Continuum the grid is of
    points: Domain

    @property
    def size(self) -> int:
        return self.points.size

    def elements(self) -> Iterator[Any]:
        return self.points.elements()

    def contains(self, element: Any) -> bool | None:
        return self.points.contains(element)

    def key(self, element: Any) -> Hashable:
        return self.points.key(element)

    def words(self) -> str:
        return f"a grid of {self.parent.words()}: {self.points.words()}"


@dataclasses.dataclass(frozen=True)
class Enclosure(Domain):
    """The continuum ``parent`` as one box ``box`` that ball arithmetic covers whole."""

    parent: Domain  # the Continuum enclosed
    box: str

    def __post_init__(self) -> None:
        # ball arithmetic covers a set of reals whole; an unbounded family of finite sets (every
        # n) is covered only size by size, never by one enclosure
        if not isinstance(self.parent, Continuum):
            raise ValueError(
                f"parent: only a Continuum is enclosed whole, not {self.parent.words()}"
            )

    @property
    def size(self) -> int:
        return 1

    def elements(self) -> Iterator[str]:
        yield self.box

    def contains(self, element: Any) -> bool:
        return element == self.box

    def words(self) -> str:
        return f"{self.parent.words()}, enclosed whole ({self.box})"


# ---------------------------------------------------------------------------------------------
# samples and instances
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Samples(Domain):
    """``n`` seeded draws from ``parent`` (``draw(seed, i)``; by default a seeded choice among
    a finite parent's elements). ``what`` names the draws (``"random models"``)."""

    parent: Domain
    n: int
    seed: int
    draw: Callable[[int, int], Any] | None = None
    what: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"n: expected a positive number of samples, got {self.n!r}")
        if self.draw is None and not self.parent.finite:
            raise ValueError("draw: a sample of an infinite domain needs its draw(seed, i)")

    @property
    def size(self) -> int:
        return self.n

    def elements(self) -> Iterator[Any]:
        if self.draw is not None:
            return (self.draw(self.seed, i) for i in range(self.n))
        import random

        items = list(self.parent.elements())
        rng = random.Random(self.seed)
        return (items[rng.randrange(len(items))] for _ in range(self.n))

    def contains(self, element: Any) -> bool | None:
        return self.parent.contains(element)

    def key(self, element: Any) -> Hashable:
        # a draw's element is keyed by its value (a check usually records the draw's index)
        return _hashable(element) if self.draw is not None else self.parent.key(element)

    def words(self) -> str:
        what = f" {self.what}" if self.what else ""
        return f"{_n(self.n)} seeded draws{what} (seed {self.seed}) from {self.parent.words()}"


@dataclasses.dataclass(frozen=True)
class Instance(Domain):
    """One element of ``parent`` (``what``: which one, e.g. ``"seed 0"``, ``"eps = 0.1"``)."""

    parent: Domain
    what: str
    element: Any = None

    @property
    def size(self) -> int:
        return 1

    def elements(self) -> Iterator[Any]:
        yield self.element if self.element is not None else self.what

    def contains(self, element: Any) -> bool:
        return True

    def key(self, element: Any) -> Hashable:
        return "instance"

    def words(self) -> str:
        return f"one instance ({self.what}) of {self.parent.words()}"


# ---------------------------------------------------------------------------------------------
# existential statements and measurements
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Exists(Domain):
    """ "There exists ``witness`` such that, for every element of ``of``, ...": an existential
    statement. The library's object is the candidate witness; the check covers ``of`` (or a
    sub-domain of it). Only an impossibility certificate refutes it; a candidate that fails
    refutes nothing."""

    witness: str
    of: Domain

    @property
    def size(self) -> int | None:
        return self.of.size

    def elements(self) -> Iterator[Any]:
        return self.of.elements()

    def contains(self, element: Any) -> bool | None:
        return self.of.contains(element)

    def key(self, element: Any) -> Hashable:
        return self.of.key(element)

    def words(self) -> str:
        return f"there exists {self.witness} for {self.of.words()}"

    def upto(self, bound: int) -> Sizes:
        if not isinstance(self.of, Family):
            raise ValueError("upto: only a family has sizes")
        return self.of.upto(bound)

    def at(self, sizes: Iterable[int]) -> Sizes:
        if not isinstance(self.of, Family):
            raise ValueError("at: only a family has sizes")
        return self.of.at(sizes)


@dataclasses.dataclass(frozen=True)
class Trained(Domain):
    """Models trained now (``what``: the runs): the domain of an empirical statement."""

    what: str

    @property
    def size(self) -> None:
        return None

    def words(self) -> str:
        return self.what


@dataclasses.dataclass(frozen=True)
class Record(Domain):
    """A committed result file (``path``), produced by ``produced_by``."""

    path: str
    produced_by: str = ""

    @property
    def size(self) -> int:
        return 1

    def elements(self) -> Iterator[str]:
        yield self.path

    def words(self) -> str:
        by = f", produced by {self.produced_by}" if self.produced_by else ""
        return f"{self.path}{by}"


# ---------------------------------------------------------------------------------------------
# how a covered sub-domain relates to a statement's domain
# ---------------------------------------------------------------------------------------------
def _derived_from(covered: Domain, statement: Domain) -> bool:
    d: Domain | None = covered
    while d is not None:
        if d is statement or d == statement:
            return True
        d = getattr(d, "parent", None)
    return False


def _unwrap(d: Domain) -> Domain:
    return d.of if isinstance(d, Exists) else d


def relation(statement: Domain, covered: Domain) -> str:
    """How ``covered`` (a finite sub-domain a check went through) relates to ``statement`` (the
    statement's domain): one of :data:`RELATIONS`.

    A covered domain not derived from the statement's (by :meth:`Family.upto` / ``at``,
    :meth:`Continuum.grid` / ``enclosure``, :meth:`Domain.sample` / ``instance``, or the
    statement's domain itself) relates as ``none``: the check did not cover what the statement
    is about. A :class:`Product` relates part by part, as its weakest part."""
    statement = _unwrap(statement)
    if isinstance(statement, (Trained, Record)):
        return "none"
    if isinstance(statement, Product) and isinstance(covered, Product):
        if len(statement.parts) != len(covered.parts):
            return "none"
        rels = [relation(s, c) for s, c in zip(statement.parts, covered.parts)]
        return max(rels, key=RELATIONS.index)
    if covered is statement or covered == statement:
        return "all" if statement.finite else "none"
    if not _derived_from(covered, statement):
        return "none"
    if isinstance(covered, Samples):
        return "samples"
    if isinstance(covered, Instance):
        return "instance"
    if isinstance(covered, Enclosure):
        return "all" if isinstance(covered.parent, Continuum) else "none"
    if isinstance(covered, GridOf):
        return "grid"
    if isinstance(covered, Sizes):
        if statement.finite and covered.size == statement.size:
            return "all"
        return "upto" if len(covered.sizes) > 1 else "instance"
    return "none"


def statement_kind(domain: Domain) -> str:
    """The quantifier a statement over ``domain`` has, read from the object: ``exists`` (an
    :class:`Exists`), ``empirical`` (trained models or a record), ``continuum`` (a set of
    reals, or a product with one), ``infinite`` (an unbounded family), else ``finite``."""
    if isinstance(domain, Exists):
        return "exists"
    if isinstance(domain, (Trained, Record)):
        return "empirical"
    parts = domain.parts if isinstance(domain, Product) else (domain,)
    if any(isinstance(p, Continuum) for p in parts):
        return "continuum"
    if any(isinstance(_unwrap(p), Family) and not p.finite for p in parts):
        return "infinite"
    if domain.finite:
        return "finite"
    return "infinite"


# ---------------------------------------------------------------------------------------------
# counting what a check covered
# ---------------------------------------------------------------------------------------------
class Tally:
    """What a check evaluated, element by element, counted against ``domain``'s own size.

    A check draws the elements (``for e in tally:`` yields the domain's elements, or it
    enumerates them itself) and records each one it has EVALUATED, after evaluating it
    (``tally.record(e)``; ``tally.record_count(n)`` for a vectorised batch, counted but not told
    apart). Drawing is not covering: an element drawn and skipped is missing. The ledger reads
    :attr:`complete`: every element of the domain recorded once and no stranger. A check that
    skips an element, evaluates one twice in place of another, or evaluates an element outside
    the domain is incomplete, whatever its words say.
    """

    def __init__(self, domain: Domain):
        if not isinstance(domain, Domain):
            raise ValueError(f"domain: expected a Domain, got {type(domain).__name__}")
        if not domain.finite:
            raise ValueError(f"domain: {domain.words()} is not finite: no check covers it whole")
        self.domain = domain
        self.seen = 0
        self.strangers = 0
        self.duplicates = 0
        self._keys: set | None = set()

    def __iter__(self) -> Iterator[Any]:
        return self.domain.elements()

    def record(self, element: Any) -> None:
        """``element`` was evaluated."""
        inside = self.domain.contains(element)
        if inside is False:
            self.strangers += 1
            return
        if self._keys is not None:
            k = self.domain.key(element)
            if k in self._keys:
                self.duplicates += 1
                return
            self._keys.add(k)
            if len(self._keys) > _KEY_LIMIT:
                self._keys = None
        self.seen += 1

    def record_all(self, elements: Iterable[Any]) -> None:
        """Each of ``elements`` was evaluated."""
        for e in elements:
            self.record(e)

    def record_count(self, n: int) -> None:
        """``n`` elements were evaluated in a batch (counted, not told apart)."""
        if isinstance(n, bool) or not isinstance(n, int) and not hasattr(n, "__index__"):
            raise ValueError(f"n: expected a count, got {n!r}")
        if n < 0:
            raise ValueError(f"n: expected a count >= 0, got {n}")
        self.seen += int(n)

    @property
    def size(self) -> int:
        return self.domain.size

    @property
    def complete(self) -> bool:
        return self.seen == self.size and not self.strangers and not self.duplicates

    def shortfall(self) -> str:
        """What is missing, in words (empty when complete)."""
        parts = []
        if self.seen < self.size:
            parts.append(f"covered {_n(self.seen)} of {_n(self.size)} elements")
        if self.seen > self.size:
            parts.append(f"counted {_n(self.seen)} elements in a domain of {_n(self.size)}")
        if self.strangers:
            parts.append(f"{_n(self.strangers)} evaluated elements outside the domain")
        if self.duplicates:
            parts.append(f"{_n(self.duplicates)} elements evaluated twice")
        return "; ".join(parts)
