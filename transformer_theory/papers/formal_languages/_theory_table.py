"""Every row of Strobl et al. 2024's table that the library builds, checked one way: the row's
recognizer on every string of the short lengths and on sampled members and non-members beyond,
each string's decision against the language's own membership test, in float64.

Rows (:data:`ROWS`): MAJORITY, PARITY (with and without Chiang & Cholak's LayerNorm) and Dyck-1
(:mod:`._constructions`); Dyck-(k, D) after Yao et al. 2021, hard and softmax
(:mod:`._constructions_dyck_k`); SHUFFLE-DYCK-1/2/3 and the simple counter machines BoolExp-3,
``a^n b^n`` and ``a^n b^n c^n`` (:mod:`._constructions_counters`).

The decision of a string, positive iff the recognizer accepts it:

- MAJORITY, PARITY, Dyck-1 and Dyck-(k, D): ``o_1 - o_0`` at the last position;
- the counter languages (next-symbol outputs, :func:`._constructions_counters.accepts`): the
  smallest of the outputs that acceptance reads, ``o_{w_{i+1}}`` at each position ``i`` and the
  end's output at the last, so it is positive exactly when every symbol and the end were
  predicted. It is ``1/(2n)`` for members and at most ``-1/(2 n)`` for the rest.

A record's margin is that decision signed by the truth (positive = right), as in
:func:`._theory.recognizer_record`, whose records every row shares: ``{language, construction,
attention, positional, source, dtype, lengths_checked, exhaustive_up_to, strings_checked,
accuracy, min_margin, by_length}``.

Exhaustive lengths: MAJORITY, PARITY and Dyck-1 every string of lengths ``1..E``; a row over a
larger alphabet stops at the longest length with at most :data:`MAX_ROW_STRINGS` strings
(:func:`exhaustive_length`), checked as the prefixes of every string of that length (one batch:
the recognizers are causal, and each prefix's decision is read at its own position).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from transformer_theory import _validate
from transformer_theory.papers.formal_languages import (
    _constructions_counters,
    _constructions_dyck_k,
    _tasks_counters,
    _tasks_dyck_k,
    _theory,
)
from transformer_theory.papers.formal_languages._constructions import RECOGNIZERS

DYCK_K_ROWS = ("dyck_k", "dyck_k_softmax")
COUNTER_ROWS = tuple(_tasks_counters.LANGUAGES)
#: Every row's name, in the table's order (what ``--rows`` chooses from).
ROWS = (*RECOGNIZERS, *DYCK_K_ROWS, *COUNTER_ROWS)
#: The most strings of one length a row over a larger alphabet checks exhaustively (2^14: the
#: whole default table then takes about a minute of one core).
MAX_ROW_STRINGS = 2**14
_COUNTER_SOURCE = "Bhattamishra et al. 2020 (counter layer; machines of _tasks_counters)"


def sampled_lengths(max_len: int, exhaustive_up_to: int) -> list[int]:
    """The lengths checked on samples: powers of 2 from 16 below ``max_len``, then ``max_len``,
    those above ``exhaustive_up_to`` (the rest are checked on every string)."""
    lengths, n = [], 16
    while n < max_len:
        lengths.append(n)
        n *= 2
    lengths.append(max_len)
    return [n for n in lengths if n > exhaustive_up_to]


def alphabet_size(name: str, k: int = 2) -> int:
    """The symbols of row ``name`` (``k``: the bracket types of the Dyck-(k, D) rows)."""
    _validate.check_choice("name", name, ROWS)
    if name in RECOGNIZERS:
        return 2
    if name in DYCK_K_ROWS:
        return 2 * int(k)
    return _tasks_counters.machine(name).num_symbols


def exhaustive_length(name: str, exhaustive_up_to: int, k: int = 2) -> int:
    """The longest length row ``name`` checks on every string: ``exhaustive_up_to``, or for a
    larger alphabet the longest length with at most :data:`MAX_ROW_STRINGS` strings."""
    size = alphabet_size(name, k)
    if size == 2:
        return int(exhaustive_up_to)
    cap = int(math.floor(math.log(MAX_ROW_STRINGS) / math.log(size) + 1e-9))
    return min(int(exhaustive_up_to), cap)


def sample_length(name: str, length: int) -> int | None:
    """The length row ``name`` samples for ``length``: itself, or the longest shorter length with
    members (even for the bracket languages and ``a^n b^n``, a multiple of 3 for ``a^n b^n
    c^n``); ``None`` where a MAJORITY/PARITY/Dyck-1 length has no balanced sample (those rows
    skip it, as :func:`._theory.recognizer_record` does)."""
    if name in RECOGNIZERS:
        return None
    step = 1 if name.startswith("boolexp") else (3 if name == "anbncn" else 2)
    n = int(length) - int(length) % step
    return n if n >= step else None


def _layers(name: str, depth: int) -> int:
    if name in DYCK_K_ROWS:
        return int(depth) + 2
    return 1 if name in COUNTER_ROWS else 2


def row_cost(
    name: str,
    exhaustive_up_to: int,
    sampled: Iterable[int],
    samples: int,
    *,
    k: int = 2,
    depth: int = 2,
) -> tuple[float, float]:
    """``(peak_bytes, attention_map_entries)`` of :func:`row_record` (entries counted once per
    layer), from :func:`._theory.evaluation_cost`. Plain arithmetic, nothing allocated."""
    if name in RECOGNIZERS:
        return _theory.record_cost(exhaustive_up_to, sampled, samples)
    e = exhaustive_length(name, exhaustive_up_to, k)
    costs = [_theory.evaluation_cost(e, alphabet_size(name, k) ** e)] if e > 0 else []
    drawn = {sample_length(name, n) for n in sampled if n > exhaustive_up_to}
    costs += [_theory.evaluation_cost(n, samples) for n in sorted(drawn - {None})]
    layers = _layers(name, depth)
    return max((c[0] for c in costs), default=0.0), layers * sum(c[1] for c in costs)


def _entry(length: int, signed: np.ndarray, members: np.ndarray, exhaustive: bool) -> dict:
    return {
        "length": int(length),
        "strings": int(len(signed)),
        "members": int(np.sum(members)),
        "exhaustive": bool(exhaustive),
        "accuracy": float(np.mean(signed > 0)),
        "min_margin": float(signed.min()),
    }


def _all_strings(length: int, size: int) -> np.ndarray:
    """Every string of ``length`` over ``size`` symbols in lexicographic order, ``(size^L, L)``."""
    rows = np.arange(size**length, dtype=np.int64)[:, None]
    powers = size ** np.arange(length - 1, -1, -1, dtype=np.int64)[None, :]
    return ((rows // powers) % size).astype(np.int32).reshape(size**length, length)


def _counter_decisions(params, strings_BxL: np.ndarray) -> np.ndarray:
    """The counter recognizer's decision at every prefix, ``(B, L + 1)`` (module docstring), in
    chunks of about ``2^22 / n^2`` strings."""
    B, L = strings_BxL.shape
    n = L + 1
    chunk = max(1, 2**22 // (n * n))
    parts = []
    for s in range(0, B, chunk):
        part = strings_BxL[s : s + chunk]
        margins = _constructions_counters.next_symbol_margins(params, part).astype(np.float64)
        read = np.take_along_axis(margins[:, :L, :], part[:, :, None].astype(np.int64), 2)[..., 0]
        before = np.minimum.accumulate(
            np.concatenate([np.full((len(part), 1), np.inf), read], 1), 1
        )
        parts.append(np.minimum(before, margins[:, :, -1]))
    return np.concatenate(parts)


def _decisions(name: str, params, strings_BxL: np.ndarray) -> np.ndarray:
    """``(B, L + 1)``: the decision on every prefix of every string."""
    if name in DYCK_K_ROWS:
        return _constructions_dyck_k.decision_margins(params, strings_BxL, prefixes=True)
    return _counter_decisions(params, strings_BxL)


def _truth(name: str, strings_BxL: np.ndarray, k: int, depth: int) -> np.ndarray:
    if name in DYCK_K_ROWS:
        return _tasks_dyck_k.members(strings_BxL, k, depth)
    return np.array([_tasks_counters.is_member(name, s) for s in strings_BxL], bool)


def _sample(name: str, length: int, samples: int, seed: int, k: int, depth: int) -> np.ndarray:
    if name in DYCK_K_ROWS:
        return _tasks_dyck_k.dyck_k_sample(k, depth, length, samples, seed=seed)[0]
    return _tasks_counters.counter_sample(name, length, samples, seed=seed)[0]


def _describe(name: str, k: int, depth: int, max_len: int) -> dict:
    if name in DYCK_K_ROWS:
        softmax = name == "dyck_k_softmax"
        return {
            "language": f"dyck_({k},{depth})",
            "attention": "softmax (causal)" if softmax else "hard_average (causal)",
            "positional": "i/n, n",
            "source": f"Yao et al. 2021 (variant: {depth + 2} layers"
            + (f", scores scaled for n <= {max_len + 1})" if softmax else ")"),
        }
    return {
        "language": name,
        "attention": "softmax (causal, W_QK = 0)",
        "positional": "none",
        "source": _COUNTER_SOURCE,
    }


def _build(name: str, k: int, depth: int, max_len: int):
    if name in DYCK_K_ROWS:
        attention = "softmax" if name == "dyck_k_softmax" else "hard"
        return _constructions_dyck_k.dyck_k_recognizer(k, depth, attention, max_len=max(max_len, 1))
    return _constructions_counters.counter_recognizer(_tasks_counters.machine(name))


def row_record(
    name: str,
    *,
    exhaustive_up_to: int,
    sampled_lengths: Sequence[int] = (),
    samples: int = 64,
    seed: int = 0,
    k: int = 2,
    depth: int = 2,
) -> dict:
    """Row ``name`` of :data:`ROWS` built and checked in float64 (module docstring): every string
    of lengths ``1 ..`` :func:`exhaustive_length`, and ``samples`` strings (members and hard
    non-members; seed ``seed + length``) of each :func:`sample_length` of ``sampled_lengths``
    beyond it. ``k``, ``depth``: the Dyck-(k, D) rows' bracket types and depth (the softmax one
    is built for the longest length checked). MAJORITY, PARITY and Dyck-1:
    :func:`._theory.recognizer_record`.

    Returns:
      the record (module docstring), ``by_length`` one entry per length.
    """
    _validate.check_choice("name", name, ROWS)
    exhaustive_up_to = _validate.check_int_arg("exhaustive_up_to", exhaustive_up_to, minimum=1)
    if name in RECOGNIZERS:
        return _theory.recognizer_record(
            name,
            exhaustive_up_to=exhaustive_up_to,
            sampled_lengths=sampled_lengths,
            samples=samples,
            seed=seed,
        )
    e = exhaustive_length(name, exhaustive_up_to, k)
    size = alphabet_size(name, k)
    drawn = sorted(
        {sample_length(name, n) for n in sampled_lengths if n > exhaustive_up_to} - {None}
    )
    drawn = [n for n in drawn if n > e]
    params = _build(name, k, depth, max([e, *drawn]))
    entries = []
    # The softmax Dyck-(k, D) recognizer's decision at position i of a longer string is not its
    # decision on the prefix (the code reads the whole length n): each length is its own batch.
    per_length = name == "dyck_k_softmax"
    strings = _all_strings(e, size) if e > 0 and not per_length else None
    decisions = None if strings is None else _decisions(name, params, strings)
    for length in range(1, e + 1):
        if per_length:
            rows = _all_strings(length, size)
            d = _decisions(name, params, rows)[:, -1]
        else:  # the distinct prefixes of length L: the rows whose last e - L symbols are 0
            rows = strings[:: size ** (e - length), :length]
            d = decisions[:: size ** (e - length), length]
        truth = _truth(name, rows, k, depth)
        entries.append(_entry(length, np.where(truth, d, -d), truth, True))
    for n in drawn:
        strings = _sample(name, n, samples, seed + n, k, depth)
        truth = _truth(name, strings, k, depth)
        d = _decisions(name, params, strings)[:, -1]
        entries.append(_entry(n, np.where(truth, d, -d), truth, False))
    total = sum(x["strings"] for x in entries)
    return {
        **_describe(name, k, depth, max([e, *drawn])),
        "construction": name,
        "dtype": "float64",
        "lengths_checked": [x["length"] for x in entries],
        "exhaustive_up_to": int(e),
        "strings_checked": int(total),
        "accuracy": float(sum(x["accuracy"] * x["strings"] for x in entries) / total),
        "min_margin": float(min(x["min_margin"] for x in entries)),
        "by_length": entries,
    }
