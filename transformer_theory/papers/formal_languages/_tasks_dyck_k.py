"""Dyck-(k, D): bounded-depth bracket matching over ``k`` bracket types (the language of the Dyck-k
row of Strobl et al. 2024's table; the recognizer is :mod:`._constructions_dyck_k`).

The language: strings over ``2k`` symbols, opening brackets ``0 .. k-1`` and closing brackets
``k .. 2k-1`` (``k + t`` closes ``t``), that are balanced, match every closing bracket with an
opening one of its type, and never nest deeper than ``D``. The recognizers read ``BOS w_1 .. w_L``
with ``BOS = 2k``.

Task (specification, plain NumPy and Python integers, seeded ``numpy.random.default_rng``):
:func:`is_dyck_k_member` (a stack), :func:`members`, :func:`all_strings` (every string of a
length), and
:func:`dyck_k_sample`: members (uniform over the depth-bounded bracket shapes, uniform types) and
*hard*
non-members of three kinds, cycled: ``"swap"`` (two closing brackets of different types
exchanged: the counts per type and the Dyck-1 shape stay right, the matching is wrong, e.g.
``( [ ) ]``), ``"overflow"`` (a well-matched string one level too deep, ``D + 1``) and ``"dip"``
(the opening bracket of one top-level block moved after its closing one: right counts, a prefix
below zero).

Shape letters: ``B`` strings, ``L`` string length.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
from jax.typing import ArrayLike

from transformer_theory import _validate, budget

NEGATIVE_KINDS = ("swap", "overflow", "dip")
ALL_STRINGS_LIMIT = 2**20


def _int(name: str, value: object, minimum: int) -> int:
    return _validate.check_int_arg(name, value, minimum=minimum)


def _check_string(string: Sequence[int] | np.ndarray, k: int) -> list[int]:
    symbols = [int(x) for x in np.asarray(string).reshape(-1)]
    if any(not 0 <= x < 2 * k for x in symbols):
        raise ValueError(f"string: symbols must be in 0..{2 * k - 1} (k = {k}), got {symbols}")
    return symbols


def is_dyck_k_member(string: Sequence[int] | np.ndarray, k: int, depth: int) -> bool:
    """Whether ``string`` is in Dyck-(k, depth), by a stack: push an opening bracket's type, pop
    on a closing one of the same type, refuse a mismatch, an empty pop, a stack deeper than
    ``depth`` or a non-empty stack at the end."""
    k, depth = _int("k", k, 1), _int("depth", depth, 1)
    stack: list[int] = []
    for x in _check_string(string, k):
        if x < k:
            stack.append(x)
            if len(stack) > depth:
                return False
        elif not stack or stack.pop() != x - k:
            return False
    return not stack


def members(strings_BxL: ArrayLike, k: int, depth: int) -> np.ndarray:
    """:func:`is_dyck_k_member` of every row, a boolean ``(B,)`` array."""
    strings = np.asarray(strings_BxL)
    _validate.check_ndim("strings_BxL", strings, 2)
    return np.array([is_dyck_k_member(row, k, depth) for row in strings], dtype=bool)


def prefix_members(strings_BxL: ArrayLike, k: int, depth: int) -> np.ndarray:
    """``out[b, i]``: whether the prefix ``w_1 .. w_i`` of row ``b`` is in Dyck-(k, depth),
    ``(B, L + 1)`` (column 0: the empty string), by one pass of the stack of
    :func:`is_dyck_k_member`
    per row (a prefix that broke a rule stays broken)."""
    k, depth = _int("k", k, 1), _int("depth", depth, 1)
    strings = np.asarray(strings_BxL)
    _validate.check_ndim("strings_BxL", strings, 2)
    out = np.zeros((strings.shape[0], strings.shape[1] + 1), dtype=bool)
    for row, string in enumerate(strings):
        stack: list[int] = []
        out[row, 0] = True
        for i, x in enumerate(_check_string(string, k)):
            if x < k:
                stack.append(x)
                if len(stack) > depth:
                    break
            elif not stack or stack.pop() != x - k:
                break
            out[row, i + 1] = not stack
    return out


def all_strings(length: int, k: int, *, limit: int | None = ALL_STRINGS_LIMIT) -> np.ndarray:
    """Every string of ``length`` over the ``2k`` symbols, ``((2k)^length, length)`` int32 in
    lexicographic order; more than ``limit`` strings (default ``2^20``) raises ``ValueError``
    naming ``length`` before anything is allocated."""
    length, k = _int("length", length, 0), _int("k", k, 1)
    base = 2 * k
    budget.check_count("length", base**length, limit, unit="strings")
    rows = np.arange(base**length, dtype=np.int64)[:, None]
    powers = base ** np.arange(length - 1, -1, -1, dtype=np.int64)[None, :]
    return ((rows // powers) % base).astype(np.int32).reshape(base**length, length)


def _completions(length: int, depth: int) -> np.ndarray:
    """``ways[i, d]``: bracket shapes from height ``d`` after ``i`` steps to height 0 at
    ``length`` within ``[0, depth]`` (Python integers: exact for any length)."""
    ways = np.zeros((length + 1, depth + 2), dtype=object)
    ways[length, 0] = 1
    for i in range(length - 1, -1, -1):
        for d in range(depth + 1):
            ways[i, d] = ways[i + 1, d + 1] * (d < depth) + (ways[i + 1, d - 1] if d else 0)
    return ways


def random_member(rng: np.random.Generator, length: int, k: int, depth: int) -> np.ndarray:
    """A member of even ``length``: a bracket shape uniform among those of depth at most
    ``depth`` (drawn step by step from :func:`_completions`), each pair's type uniform."""
    ways = _completions(length, depth)
    out, stack, d = np.zeros(length, np.int32), [], 0
    for i in range(length):
        up = ways[i + 1, d + 1] if d < depth else 0
        total = up + (ways[i + 1, d - 1] if d else 0)
        if rng.random() * float(total) < float(up):
            t = int(rng.integers(k))
            stack.append(t)
            out[i], d = t, d + 1
        else:
            out[i], d = k + stack.pop(), d - 1
    return out


def _pairs(string: np.ndarray, k: int) -> list[tuple[int, int]]:
    """``(open, close)`` positions of every matched pair of a member, by a stack."""
    stack, pairs = [], []
    for i, x in enumerate(string):
        if x < k:
            stack.append(i)
        else:
            pairs.append((stack.pop(), i))
    return pairs


def _negative(rng: np.random.Generator, kind: str, length: int, k: int, depth: int) -> np.ndarray:
    if kind == "overflow" and length >= 2 * (depth + 1):
        # A member of the rest, and a nest of depth + 1 inserted where the depth is 0.
        rest = random_member(rng, length - 2 * (depth + 1), k, depth)
        types = rng.integers(k, size=depth + 1)
        nest = np.concatenate([types, k + types[::-1]]).astype(np.int32)
        heights = np.concatenate([[0], np.cumsum(np.where(rest < k, 1, -1))])
        cut = int(rng.choice(np.flatnonzero(heights == 0)))
        return np.concatenate([rest[:cut], nest, rest[cut:]]).astype(np.int32)
    s = random_member(rng, length, k, depth)
    pairs = _pairs(s, k)
    if kind == "swap" and k >= 2 and len(pairs) >= 2:
        a, b = (pairs[int(i)] for i in rng.choice(len(pairs), 2, replace=False))
        if s[a[0]] == s[b[0]]:  # same type: retype pair b first (still a member)
            t = (int(s[b[0]]) + 1 + int(rng.integers(k - 1))) % k
            s[b[0]], s[b[1]] = t, k + t
        s[a[1]], s[b[1]] = s[b[1]], s[a[1]]
        return s
    if kind == "swap" and k >= 2:  # one pair: a closing bracket of another type
        o, c = pairs[0]
        s[c] = k + (int(s[o]) + 1) % k
        return s
    # dip: move a top-level block's opening bracket right after its closing bracket.
    heights = np.concatenate([[0], np.cumsum(np.where(s < k, 1, -1))])
    tops = [p for p in pairs if heights[p[0]] == 0]
    o, c = tops[int(rng.integers(len(tops)))]
    opening = s[o]
    s[o:c] = s[o + 1 : c + 1]
    s[c] = opening
    return s


def dyck_k_sample(
    k: int, depth: int, length: int, count: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``count`` strings of even ``length``: ``count - count // 2`` members (:func:`random_member`)
    then ``count // 2`` hard non-members, their kinds cycling through :data:`NEGATIVE_KINDS`
    (``"overflow"`` falls back to ``"dip"`` below length ``2 (depth + 1)``, ``"swap"`` to
    ``"dip"`` when ``k = 1``; at length 2, one pair, ``"swap"`` gives the closing bracket another
    type, so the counts differ).

    Returns:
      ``(strings_BxL, labels_B, kinds_B)``: int32 symbols, membership from :func:`is_dyck_k_member`
      (a generator bug cannot mislabel a string) and ``"member"`` or the non-member's kind.
    """
    k, depth = _int("k", k, 1), _int("depth", depth, 1)
    length, count, seed = _int("length", length, 2), _int("count", count, 1), _int("seed", seed, 0)
    if length % 2:
        raise ValueError(f"length: Dyck-(k, D) has members only at even lengths, got {length}")
    rng = np.random.default_rng(seed)
    strings = [random_member(rng, length, k, depth) for _ in range(count - count // 2)]
    kinds = ["member"] * len(strings)
    for i in range(count // 2):
        kind = NEGATIVE_KINDS[i % len(NEGATIVE_KINDS)]
        strings.append(_negative(rng, kind, length, k, depth))
        kinds.append(kind)
    out = np.stack(strings).astype(np.int32)
    return out, members(out, k, depth), kinds


def padded_samples(
    k: int, depth: int, lengths: Sequence[int], count: int, seed: int = 0
) -> np.ndarray:
    """:func:`dyck_k_sample`'s ``count`` strings of each even length of ``lengths`` (seed
    ``seed + length``), in that order, right-padded with symbol 0 to the longest: one
    ``(len(lengths) * count, max(lengths))`` array, each string to be read at its own length."""
    width = max(lengths)
    rows = [dyck_k_sample(k, depth, n, count, seed=seed + n)[0] for n in lengths]
    return np.stack([np.pad(r, (0, width - len(r))) for g in rows for r in g])


@dataclasses.dataclass(frozen=True)
class CheckStrings:
    """What a Dyck-(``k``, ``depth``) recognizer is checked on (:func:`check_strings`): every
    string of length ``exhaustive_up_to`` (whose prefixes are every shorter string) and the drawn
    strings of each length of ``drawn``, with the stack's answer at every prefix.

    Attributes:
      lengths: the sampled lengths asked for, sorted, each at least 2; ``drawn``: those above
        ``exhaustive_up_to`` and even (the ones drawn).
      max_len: the longest length checked, ``max(exhaustive_up_to, *lengths)``.
      strings_BxL, truth_BxN: :func:`all_strings` of ``exhaustive_up_to`` and their
        :func:`prefix_members`.
      padded_BxL, padded_truth_BxN: :func:`padded_samples` of ``drawn`` and their
        :func:`prefix_members`; ``None`` when nothing is drawn.
    """

    exhaustive_up_to: int
    lengths: tuple[int, ...]
    drawn: tuple[int, ...]
    max_len: int
    strings_BxL: np.ndarray
    truth_BxN: np.ndarray
    padded_BxL: np.ndarray | None
    padded_truth_BxN: np.ndarray | None


def check_strings(
    k: int,
    depth: int,
    exhaustive_up_to: int,
    sampled_lengths: Sequence[int],
    samples: int,
    seed: int,
) -> CheckStrings:
    """Every string of lengths ``0 .. exhaustive_up_to`` over ``2k`` symbols (as the prefixes of
    every string of the longest) and :func:`dyck_k_sample`'s ``samples`` strings of each even
    length of ``sampled_lengths`` above it (seed ``seed + length``, right-padded to the longest,
    each to be read at its own length), with the stack's answers at every prefix."""
    exhaustive_up_to = _int("exhaustive_up_to", exhaustive_up_to, 0)
    lengths = tuple(sorted({_int("sampled_lengths", n, 2) for n in sampled_lengths}))
    drawn = tuple(n for n in lengths if n > exhaustive_up_to and n % 2 == 0)
    strings = all_strings(exhaustive_up_to, k)
    padded = padded_samples(k, depth, drawn, samples, seed) if drawn else None
    return CheckStrings(
        exhaustive_up_to=exhaustive_up_to,
        lengths=lengths,
        drawn=drawn,
        max_len=max([exhaustive_up_to, *lengths]),
        strings_BxL=strings,
        truth_BxN=prefix_members(strings, k, depth),
        padded_BxL=padded,
        padded_truth_BxN=prefix_members(padded, k, depth) if drawn else None,
    )


@dataclasses.dataclass(frozen=True)
class MarginStrings:
    """The strings of a margin sweep (:func:`margin_strings`): ``lengths`` sorted (each at least
    2), ``even`` the even ones, and per even length its drawn ``strings`` and ``labels``."""

    lengths: tuple[int, ...]
    even: tuple[int, ...]
    strings: tuple[np.ndarray, ...]
    labels: tuple[np.ndarray, ...]


def margin_strings(
    k: int, depth: int, lengths: Sequence[int], samples: int, seed: int
) -> MarginStrings:
    """:func:`dyck_k_sample`'s ``samples`` strings of each even length of ``lengths`` (seed
    ``seed + length``) and their membership, drawn once for every recognizer that decides them."""
    lengths = tuple(sorted({_int("lengths", n, 2) for n in lengths}))
    even = tuple(n for n in lengths if n % 2 == 0)
    drawn = [dyck_k_sample(k, depth, n, samples, seed=seed + n)[:2] for n in even]
    return MarginStrings(
        lengths=lengths,
        even=even,
        strings=tuple(s for s, _ in drawn),
        labels=tuple(y for _, y in drawn),
    )
