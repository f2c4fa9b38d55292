"""The domains the formal-language rows quantify over (:mod:`transformer_theory.domains`), shared
by the rows (:mod:`.claims`) and their checks (:mod:`._checks`, :mod:`._checks_counters`,
:mod:`._checks_dyck_k`).

Most rows quantify over every string of a language's alphabet at every length:
:data:`BINARY_STRINGS` (a :class:`~transformer_theory.domains.Family` of
:class:`~transformer_theory.domains.Strings`) for the binary languages. The Dyck-(k, D) and
counter-language rows quantify over several alphabets at once (SHUFFLE-DYCK-k for every k; the
strings over ``2k`` brackets read against each depth bound ``D``), which
:mod:`transformer_theory.domains` has no kind for (a union of families, one alphabet each): the
unbounded :class:`Languages` and its finite sub-domain :class:`LanguagesUpto` (every string of
each listed alphabet up to its listed length, optionally only the prefixes of members) are that
kind, here. ``LanguagesUpto`` derives from the ledger's ``Sizes``, so
:func:`~transformer_theory.domains.relation` reads it as ``upto`` (several lengths) of the
statement's domain, and its ``parent`` is the statement's :class:`Languages`.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any

from transformer_theory.domains import Domain, Enumerated, Family, Strings
from transformer_theory.domains import Sizes as _Sizes

__all__ = [
    "BINARY_STRINGS",
    "Languages",
    "LanguagesUpto",
    "ONES_STRINGS",
]

#: Every binary string of every length L >= 1: the domain of the table's rows ("MAJORITY is
#: recognized ..." quantifies over every input string).
BINARY_STRINGS = Family(
    "L", lambda L: Strings((0, 1), [L], what="binary string"), start=1, what="binary strings"
)

#: The string of L ones, for every L >= 1 (the LayerNorm-eps row's inputs).
ONES_STRINGS = Family(
    "L",
    lambda L: Enumerated(f"the string of {L} ones", [(1,) * L], what="string"),
    start=1,
    what="the strings of L ones",
)


@dataclasses.dataclass(frozen=True)
class Languages(Domain):
    """Every string over the alphabet of each language of a class, at every length (``what``:
    the class in words, e.g. ``"every string over the 2k symbols of SHUFFLE-DYCK-k, for every
    k >= 1, at every length"``). Unbounded; :meth:`upto` is a finite sub-domain."""

    what: str

    @property
    def size(self) -> None:
        return None

    def words(self) -> str:
        return self.what

    def upto(
        self,
        alphabets: Mapping[Hashable, Iterable],
        lengths: Mapping[Hashable, int],
        *,
        start: int = 0,
        which: str = "",
        keep: Callable[[Hashable, tuple], bool] | None = None,
    ) -> LanguagesUpto:
        """Every string over ``alphabets[label]`` of each length ``start .. lengths[label]``,
        for each label (a language, or a ``(k, D)`` pair); with ``keep``, only the strings it
        keeps (``which`` says which in words: ``"prefixes of a member"``)."""
        if set(alphabets) != set(lengths) or not lengths:
            raise ValueError("lengths: expected one maximum length per alphabet")
        parts = tuple((label, tuple(alphabets[label]), int(lengths[label])) for label in lengths)
        top = max(n for _, _, n in parts)
        if top < start:
            raise ValueError(f"lengths: every maximum length is below {start}")
        return LanguagesUpto(self, tuple(range(start, top + 1)), parts, start, which, keep)


@dataclasses.dataclass(frozen=True)
class LanguagesUpto(_Sizes):
    """Every string of each ``(label, alphabet, max_length)`` of ``parts`` of lengths ``start ..
    max_length`` (those ``keep`` keeps): a finite sub-domain of ``parent`` (a
    :class:`Languages`). Elements are ``(label, string)`` with ``string`` a tuple of symbols."""

    parts: tuple = ()
    start: int = 0
    which: str = ""
    keep: Callable[[Hashable, tuple], bool] | None = None

    def _strings(self, label: Hashable, alphabet: tuple, top: int) -> Iterator[tuple]:
        for n in range(self.start, top + 1):
            for s in itertools.product(alphabet, repeat=n):
                if self.keep is None or self.keep(label, s):
                    yield s

    @functools.cached_property
    def size(self) -> int:  # counted once (``keep`` may need the strings enumerated)
        if self.keep is None:
            return sum(len(a) ** n for _, a, top in self.parts for n in range(self.start, top + 1))
        return sum(1 for _ in self.elements())

    def elements(self) -> Iterator[tuple]:
        for label, alphabet, top in self.parts:
            for s in self._strings(label, alphabet, top):
                yield (label, s)

    def contains(self, element: Any) -> bool:
        if not (isinstance(element, tuple) and len(element) == 2):
            return False
        label, s = element
        s = tuple(s)
        for lab, alphabet, top in self.parts:
            if lab == label:
                inside = self.start <= len(s) <= top and all(x in alphabet for x in s)
                return bool(inside and (self.keep is None or self.keep(label, s)))
        return False

    def key(self, element: Any) -> Hashable:
        label, s = element
        return (label, tuple(int(x) if hasattr(x, "__index__") else x for x in s))

    def words(self) -> str:
        which = f"{self.which} " if self.which else ""
        each = "; ".join(
            f"{label}: {which}over {len(alphabet)} symbols, lengths {self.start}-{top}"
            for label, alphabet, top in self.parts
        )
        return f"every string of {each} ({self.size:,} strings), of {self.parent.words()}"


#: Every string over ``2k`` brackets read against each depth bound ``D``: the Dyck-k rows
#: (Dyck-k is the union over D of Dyck-(k, D); the library checks each (k, D) it lists).
DYCK_K_STRINGS = Languages(
    "every string over k bracket pairs, read against each depth bound D (Dyck-(k, D)), for "
    "every k >= 1 and D >= 1, at every length"
)
#: SHUFFLE-DYCK-k's strings, for every k (the table's row SHUFFLE-DYCK-k).
SHUFFLE_DYCK_STRINGS = Languages(
    "every string over the 2k symbols of SHUFFLE-DYCK-k, for every k >= 1, at every length"
)
#: SHUFFLE-DYCK-2's strings (the float rows).
SHUFFLE_DYCK_2_STRINGS = Languages(
    "every string over the 4 symbols of SHUFFLE-DYCK-2, at every length"
)
#: The strings of each simple counter language the library builds, at every length.
ANBN_STRINGS = Languages("every string over {a, b} (a^n b^n's alphabet), at every length")
ANBNCN_STRINGS = Languages("every string over {a, b, c} (a^n b^n c^n's alphabet), at every length")
BOOLEXP_STRINGS = Languages(
    "every string over BoolExp-3's 5 symbols (operands 0, 1; one operator of each arity 1-3), "
    "at every length"
)
#: Every prefix of a member of the five counter languages (the continuation-set row).
COUNTER_PREFIXES = Languages(
    "every prefix of a member of SHUFFLE-DYCK-1..3, a^n b^n and BoolExp-3, at every length"
)
#: The library's a^n b^n c^n recognizer: the one object the continuation-set finding is about
#: (there exists a prefix of a member at which its next-symbol set is wrong).
ANBNCN_RECOGNIZER = Enumerated(
    "the library's a^n b^n c^n recognizer (counter_recognizer(counters.anbncn()))",
    ("anbncn",),
    what="recognizer",
)
