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
(:meth:`TableRow.exhaustive_length`), checked as the prefixes of every string of that length (one
batch: the recognizers are causal, and each prefix's decision is read at its own position).

Each row is one typed entry of :data:`TABLE` (:class:`TableRow`: its recognizer builder,
decision, membership truth, sampler, alphabet size, layers and sampled-length step;
:class:`RecognizerRow` for the four rows :func:`._theory.recognizer_record` checks), looked up
once by name and asked for its ``record`` and its ``cost``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

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


@dataclasses.dataclass(frozen=True)
class TableRow:
    """One row of the table other than MAJORITY, PARITY and Dyck-1, as the functions and values
    :func:`row_record` and :func:`row_cost` read (looked up once, by name, in :data:`TABLE`).

    Attributes:
      name: the row's name (:data:`ROWS`; the record's ``construction``).
      symbols: the alphabet's size, of the Dyck-(k, D) rows' bracket types ``k``.
      layers: the recognizer's layers, of the Dyck-(k, D) rows' depth ``D``.
      step: a sampled length is a multiple of this (the longest at or below the one asked).
      build: ``(k, depth, max_len) -> params``, the recognizer (``max_len`` the longest length
        it is checked at).
      decisions: ``(params, strings_BxL) -> (B, L + 1)``, the decision on every prefix.
      truth: ``(strings_BxL, k, depth) -> (B,)`` bool, the language's own membership test.
      sample: ``(length, samples, seed, k, depth) -> strings``, members and hard non-members.
      describe: ``(k, depth, max_len) -> {language, attention, positional, source}``.
      per_length: each length is its own batch (the decision at position ``i`` of a longer
        string is not the prefix's: the softmax Dyck-(k, D) recognizer reads the length).
    """

    name: str
    symbols: Callable[[int], int]
    layers: Callable[[int], int]
    step: int
    build: Callable[[int, int, int], Any]
    decisions: Callable[[Any, np.ndarray], np.ndarray]
    truth: Callable[[np.ndarray, int, int], np.ndarray]
    sample: Callable[[int, int, int, int, int], np.ndarray]
    describe: Callable[[int, int, int], dict]
    per_length: bool = False

    def exhaustive_length(self, exhaustive_up_to: int, k: int = 2) -> int:
        """The longest length this row checks on every string: ``exhaustive_up_to``, or for a
        larger alphabet the longest length with at most :data:`MAX_ROW_STRINGS` strings."""
        size = self.symbols(k)
        if size == 2:
            return int(exhaustive_up_to)
        cap = int(math.floor(math.log(MAX_ROW_STRINGS) / math.log(size) + 1e-9))
        return min(int(exhaustive_up_to), cap)

    def sample_length(self, length: int) -> int | None:
        """The length this row samples for ``length``: itself, or the longest shorter multiple
        of :attr:`step` (a length with members); ``None`` below one step."""
        n = int(length) - int(length) % self.step
        return n if n >= self.step else None

    def record(
        self,
        *,
        exhaustive_up_to: int,
        sampled_lengths: Sequence[int] = (),
        samples: int = 64,
        seed: int = 0,
        k: int = 2,
        depth: int = 2,
    ) -> dict:
        """This row built and checked in float64 (module docstring): every string of lengths
        ``1 ..`` :meth:`exhaustive_length`, and ``samples`` strings (members and hard
        non-members; seed ``seed + length``) of each :meth:`sample_length` of
        ``sampled_lengths`` beyond it. ``k``, ``depth``: the Dyck-(k, D) rows' bracket types and
        depth (the softmax one is built for the longest length checked).

        Returns:
          the record (module docstring), ``by_length`` one entry per length.
        """
        exhaustive_up_to = _validate.check_int_arg("exhaustive_up_to", exhaustive_up_to, minimum=1)
        return _checked(self, exhaustive_up_to, sampled_lengths, samples, seed, k, depth)

    def cost(
        self,
        exhaustive_up_to: int,
        sampled: Iterable[int],
        samples: int,
        *,
        k: int = 2,
        depth: int = 2,
    ) -> tuple[float, float]:
        """``(peak_bytes, attention_map_entries)`` of :meth:`record` (entries counted once per
        layer), from :func:`._theory.evaluation_cost`. Plain arithmetic, nothing allocated."""
        e = self.exhaustive_length(exhaustive_up_to, k)
        costs = [_theory.evaluation_cost(e, self.symbols(k) ** e)] if e > 0 else []
        drawn = {self.sample_length(n) for n in sampled if n > exhaustive_up_to}
        costs += [_theory.evaluation_cost(n, samples) for n in sorted(drawn - {None})]
        layers = self.layers(depth)
        return max((c[0] for c in costs), default=0.0), layers * sum(c[1] for c in costs)


@dataclasses.dataclass(frozen=True)
class RecognizerRow:
    """MAJORITY, PARITY (with or without the LayerNorm) or Dyck-1: a row over two symbols that
    :func:`._theory.recognizer_record` checks (the same :meth:`record` and :meth:`cost` as
    :class:`TableRow`'s; ``k`` and ``depth`` do not apply)."""

    name: str

    def record(
        self,
        *,
        exhaustive_up_to: int,
        sampled_lengths: Sequence[int] = (),
        samples: int = 64,
        seed: int = 0,
        k: int = 2,
        depth: int = 2,
    ) -> dict:
        """:func:`._theory.recognizer_record` of this row."""
        exhaustive_up_to = _validate.check_int_arg("exhaustive_up_to", exhaustive_up_to, minimum=1)
        return _theory.recognizer_record(
            self.name,
            exhaustive_up_to=exhaustive_up_to,
            sampled_lengths=sampled_lengths,
            samples=samples,
            seed=seed,
        )

    def cost(
        self,
        exhaustive_up_to: int,
        sampled: Iterable[int],
        samples: int,
        *,
        k: int = 2,
        depth: int = 2,
    ) -> tuple[float, float]:
        """:func:`._theory.record_cost` (every recognizer row costs the same)."""
        return _theory.record_cost(exhaustive_up_to, sampled, samples)


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


def _dyck_k_build(attention: str, k: int, depth: int, max_len: int):
    return _constructions_dyck_k.dyck_k_recognizer(k, depth, attention, max_len=max(max_len, 1))


def _dyck_k_decisions(params, strings_BxL: np.ndarray) -> np.ndarray:
    return _constructions_dyck_k.decision_margins(params, strings_BxL, prefixes=True)


def _dyck_k_sample(length: int, samples: int, seed: int, k: int, depth: int) -> np.ndarray:
    return _tasks_dyck_k.dyck_k_sample(k, depth, length, samples, seed=seed)[0]


def _dyck_k_describe(softmax: bool, k: int, depth: int, max_len: int) -> dict:
    return {
        "language": f"dyck_({k},{depth})",
        "attention": "softmax (causal)" if softmax else "hard_average (causal)",
        "positional": "i/n, n",
        "source": f"Yao et al. 2021 (variant: {depth + 2} layers"
        + (f", scores scaled for n <= {max_len + 1})" if softmax else ")"),
    }


def _dyck_k_row(name: str, attention: str) -> TableRow:
    softmax = attention == "softmax"
    return TableRow(
        name=name,
        symbols=lambda k: 2 * int(k),
        layers=lambda depth: int(depth) + 2,
        step=2,
        build=functools.partial(_dyck_k_build, attention),
        decisions=_dyck_k_decisions,
        truth=_tasks_dyck_k.members,
        sample=_dyck_k_sample,
        describe=functools.partial(_dyck_k_describe, softmax),
        per_length=softmax,
    )


def _counter_row(name: str) -> TableRow:
    machine = _tasks_counters.machine(name)
    described = {
        "language": name,
        "attention": "softmax (causal, W_QK = 0)",
        "positional": "none",
        "source": _COUNTER_SOURCE,
    }
    return TableRow(
        name=name,
        symbols=lambda k: machine.num_symbols,
        layers=lambda depth: 1,
        step=1 if name.startswith("boolexp") else (3 if name == "anbncn" else 2),
        build=lambda k, depth, max_len: _constructions_counters.counter_recognizer(machine),
        decisions=_counter_decisions,
        truth=lambda strings, k, depth: np.array(
            [_tasks_counters.is_member(name, s) for s in strings], bool
        ),
        sample=lambda length, samples, seed, k, depth: _tasks_counters.counter_sample(
            name, length, samples, seed=seed
        )[0],
        describe=lambda k, depth, max_len: dict(described),
    )


#: Every row by name (:data:`ROWS`'s order): what the study looks up once and checks.
TABLE: dict[str, TableRow | RecognizerRow] = {
    **{name: RecognizerRow(name) for name in RECOGNIZERS},
    "dyck_k": _dyck_k_row("dyck_k", "hard"),
    "dyck_k_softmax": _dyck_k_row("dyck_k_softmax", "softmax"),
    **{name: _counter_row(name) for name in COUNTER_ROWS},
}


def _checked(
    row: TableRow,
    exhaustive_up_to: int,
    sampled_lengths: Sequence[int],
    samples: int,
    seed: int,
    k: int,
    depth: int,
) -> dict:
    """:meth:`TableRow.record`'s work (its docstring)."""
    e = row.exhaustive_length(exhaustive_up_to, k)
    size = row.symbols(k)
    drawn = sorted({row.sample_length(n) for n in sampled_lengths if n > exhaustive_up_to} - {None})
    drawn = [n for n in drawn if n > e]
    params = row.build(k, depth, max([e, *drawn]))
    entries = []
    strings = _all_strings(e, size) if e > 0 and not row.per_length else None
    decisions = None if strings is None else row.decisions(params, strings)
    for length in range(1, e + 1):
        if row.per_length:
            rows = _all_strings(length, size)
            d = row.decisions(params, rows)[:, -1]
        else:  # the distinct prefixes of length L: the rows whose last e - L symbols are 0
            rows = strings[:: size ** (e - length), :length]
            d = decisions[:: size ** (e - length), length]
        truth = row.truth(rows, k, depth)
        entries.append(_entry(length, np.where(truth, d, -d), truth, True))
    for n in drawn:
        strings = row.sample(n, samples, seed + n, k, depth)
        truth = row.truth(strings, k, depth)
        d = row.decisions(params, strings)[:, -1]
        entries.append(_entry(n, np.where(truth, d, -d), truth, False))
    total = sum(x["strings"] for x in entries)
    return {
        **row.describe(k, depth, max([e, *drawn])),
        "construction": row.name,
        "dtype": "float64",
        "lengths_checked": [x["length"] for x in entries],
        "exhaustive_up_to": int(e),
        "strings_checked": int(total),
        "accuracy": float(sum(x["accuracy"] * x["strings"] for x in entries) / total),
        "min_margin": float(min(x["min_margin"] for x in entries)),
        "by_length": entries,
    }


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
    """Row ``name`` of :data:`ROWS` built and checked in float64: ``TABLE[name].record`` (the
    entry's :meth:`TableRow.record` or :meth:`RecognizerRow.record`)."""
    _validate.check_choice("name", name, ROWS)
    return TABLE[name].record(
        exhaustive_up_to=exhaustive_up_to,
        sampled_lengths=sampled_lengths,
        samples=samples,
        seed=seed,
        k=k,
        depth=depth,
    )
