"""Formal languages of the recognizer table (Strobl et al. 2024): MAJORITY, PARITY, Dyck-1.

Every function here is a specification: plain NumPy / Python integers, seeded generators
(``numpy.random.default_rng(seed)``; no global state). Strings are over the two symbols ``0, 1``
(for Dyck-1: ``0 = "("`` and ``1 = ")"``); the recognizers of :mod:`.constructions` read them after
a start symbol ``BOS = 2``.
Shape letters: see :mod:`transformer_theory.glossary`.

- MAJORITY: strictly more ``1`` than ``0`` (Pérez, Marinković & Barceló 2019).
- PARITY: an odd number of ``1`` (Chiang & Cholak 2022).
- Dyck-1: balanced brackets, every prefix has at least as many ``(`` as ``)`` (Yao et al. 2021).

:func:`sample` draws ``count`` strings of one length with balanced classes (half members, half
not); :func:`is_member` is the reference (a counter, a running depth).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from transformer_theory import budget

__all__ = [
    "ALL_STRINGS_LIMIT",
    "BOS",
    "LANGUAGES",
    "VOCAB_SIZE",
    "all_strings",
    "has_both_classes",
    "is_member",
    "members",
    "sample",
]

LANGUAGES = ("majority", "parity", "dyck1")
BOS = 2
VOCAB_SIZE = 3  # the symbols 0, 1 and BOS


# all_strings' default limit: 2^20 strings of length 20 take 80 MiB as int32; the recognizer
# checks enumerate at most length 16.
ALL_STRINGS_LIMIT = 2**20


def _check_language(language: str) -> None:
    if language not in LANGUAGES:
        raise ValueError(f"language: expected one of {list(LANGUAGES)}, got {language!r}")


def _integer(name: str, value, minimum: int) -> int:
    """``value`` as an int ``>= minimum``; bools, floats with a fraction, NaN, inf and strings are
    refused with a ``ValueError`` naming ``name``."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    try:
        as_int = int(value)
        exact = as_int == value
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {value!r}") from None
    if not exact or as_int < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    return as_int


def is_member(language: str, string: Sequence[int] | np.ndarray) -> bool:
    """Membership of one string (a sequence of 0/1) by a counter (MAJORITY, PARITY) or a running
    depth (Dyck-1)."""
    _check_language(language)
    symbols = [int(x) for x in string]
    if any(x not in (0, 1) for x in symbols):
        raise ValueError(f"string: symbols must be 0 or 1, got {symbols}")
    ones = sum(symbols)
    if language == "majority":
        return 2 * ones > len(symbols)
    if language == "parity":
        return ones % 2 == 1
    depth = 0
    for x in symbols:
        depth += 1 if x == 0 else -1
        if depth < 0:
            return False
    return depth == 0


def members(language: str, strings_BxN: np.ndarray) -> np.ndarray:
    """:func:`is_member` of every row, as a boolean ``(B,)`` array."""
    strings = np.asarray(strings_BxN)
    if strings.ndim != 2:
        raise ValueError(f"strings_BxN: expected a 2-d array, got shape {strings.shape}")
    return np.array([is_member(language, row) for row in strings], dtype=bool)


def all_strings(length: int, *, limit: int | None = ALL_STRINGS_LIMIT) -> np.ndarray:
    """Every string of ``length`` over ``{0, 1}``: ``(2^length, length)`` int32, in lexicographic
    order.

    Args:
      length: a non-negative integer.
      limit: the most strings to enumerate (default :data:`ALL_STRINGS_LIMIT`, ``2^20``); ``None``
        for no limit. ``2^length`` above it raises ``ValueError`` naming ``length`` with the count,
        before anything is allocated (``all_strings(40)`` would need 160 TiB).
    """
    length = _integer("length", length, 0)
    budget.check_count("length", 2**length, limit, unit="strings")
    # Row r holds the binary digits of r, most significant first: lexicographic order.
    rows = np.arange(2**length, dtype=np.int64)[:, None]
    shifts = np.arange(length - 1, -1, -1, dtype=np.int64)[None, :]
    return ((rows >> shifts) & 1).astype(np.int32).reshape(2**length, length)


def has_both_classes(language: str, length: int) -> bool:
    """Whether strings of ``length`` exist in and out of the language (Dyck-1: even ``length``
    only, MAJORITY and PARITY: ``length >= 1``)."""
    _check_language(language)
    if language == "dyck1":
        return length >= 2 and length % 2 == 0
    return length >= 1


def _random_dyck(rng: np.random.Generator, length: int) -> np.ndarray:
    # The cycle lemma: of the rotations of a sequence with m "(" and m + 1 ")", exactly one is a
    # Dyck word followed by ")" -- the one starting after the first minimum of the prefix sums.
    # A uniform shuffle therefore gives a uniform Dyck word of length 2m.
    m = length // 2
    steps = rng.permutation(np.array([1] * m + [-1] * (m + 1)))
    start = (int(np.argmin(np.cumsum(steps))) + 1) % len(steps)
    word = np.roll(steps, -start)[:-1]
    return np.where(word > 0, 0, 1).astype(np.int32)


def _positive(language: str, rng: np.random.Generator, length: int) -> np.ndarray:
    if language == "majority":
        ones = int(rng.integers(length // 2 + 1, length + 1))
        return rng.permutation(np.array([1] * ones + [0] * (length - ones), np.int32))
    if language == "parity":
        s = rng.integers(0, 2, length).astype(np.int32)
        if s.sum() % 2 == 0:
            s[rng.integers(length)] ^= 1
        return s
    return _random_dyck(rng, length)


def _negative(language: str, rng: np.random.Generator, length: int) -> np.ndarray:
    if language == "majority":
        ones = int(rng.integers(0, length // 2 + 1))
        return rng.permutation(np.array([1] * ones + [0] * (length - ones), np.int32))
    if language == "parity":
        s = rng.integers(0, 2, length).astype(np.int32)
        if s.sum() % 2 == 1:
            s[rng.integers(length)] ^= 1
        return s
    # Dyck-1: half hard negatives (a Dyck word with one "()" turned into ")(": balanced counts,
    # one prefix at depth -1 somewhere), half one flipped symbol (final depth +-2).
    s = _random_dyck(rng, length)
    if rng.random() < 0.5:
        spots = np.flatnonzero((s[:-1] == 0) & (s[1:] == 1))
        i = int(rng.choice(spots))
        # Only a pair at depth 0 before it drives a prefix below zero; pick the first one.
        depth = np.concatenate([[0], np.cumsum(np.where(s == 0, 1, -1))])
        at_zero = [j for j in spots if depth[j] == 0]
        i = int(at_zero[int(rng.integers(len(at_zero)))]) if at_zero else i
        s[i], s[i + 1] = 1, 0
        if is_member(language, s):  # a pair inside a deeper level keeps the word valid
            s[int(rng.integers(length))] ^= 1
    else:
        s[int(rng.integers(length))] ^= 1
    return s


def sample(language: str, length: int, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` strings of ``length`` with balanced classes, members first then non-members.

    Args:
      language: one of :data:`LANGUAGES`.
      length: the string length; must admit both classes (:func:`has_both_classes`).
      count: number of strings; ``count // 2`` non-members and the rest members.
      seed: seeds ``numpy.random.default_rng`` (a non-negative integer).

    Raises:
      ValueError: naming ``language``, ``length``, ``count`` or ``seed`` (bools, NaN, fractions
        and negative values included).

    Returns:
      ``(strings_BxN, labels_B)``: int32 symbols and boolean membership (from :func:`is_member`,
      so a generator bug cannot mislabel a string).
    """
    _check_language(language)
    length = _integer("length", length, 1)
    count = _integer("count", count, 1)
    seed = _integer("seed", seed, 0)
    if not has_both_classes(language, int(length)):
        raise ValueError(
            f"length: {language} has no balanced sample at length {length}"
            + (" (Dyck-1 needs an even length >= 2)" if language == "dyck1" else "")
        )
    rng = np.random.default_rng(seed)
    length, count = int(length), int(count)
    pos = [_positive(language, rng, length) for _ in range(count - count // 2)]
    neg = [_negative(language, rng, length) for _ in range(count // 2)]
    strings = np.stack(pos + neg).astype(np.int32)
    return strings, members(language, strings)
