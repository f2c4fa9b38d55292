"""The Dyck-(k, D) recognizer measured against its language, from decisions already computed: the
float error allowed on a margin (:func:`tolerance`), one recognizer's margins on every short
string and on sampled strings against the stack's truth (:func:`dyck_k_record`; from the typed
results of the earlier stages, :func:`checked_record`), and one length and format of the margin
sweep (:func:`margin_row`; a sweep's rows, :func:`margin_rows`). Typed records (:mod:`._records`),
no files; :mod:`._study_dyck_k` builds the strings, the recognizers and their decisions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from transformer_theory import _validate, precision
from transformer_theory.papers.formal_languages._records import (
    DyckKEntry,
    DyckKMarginRow,
    DyckKRecord,
)

DTYPES = ("float32", "float64")


def tolerance(n: int, dtype: str) -> float:
    """The float error allowed on one margin (per unit of ``confidence``) at ``n`` positions:
    ``16 n u`` (``u`` the unit roundoff of ``dtype``). Each quantity the decision reads is an
    average of at most ``n`` terms of size at most 1 (within ``n u`` of the exact one, Higham's
    ``gamma_n``), passed through ReLUs of slope 1 and copied by attention; the classifier adds
    three of them. This bounds the margin only while every attention choice is the exact one:
    a level head's choice moves when its score error, about ``n`` times that of ``A_l``, reaches
    the gap ``1/(2n)``, i.e. near ``16 n^3 u ~ 1`` (float64: far beyond the lengths checked;
    float32: ``n`` in the hundreds, which :func:`margin_records` measures)."""
    _validate.check_choice("dtype", dtype, DTYPES)
    return 16.0 * int(n) * precision.unit_roundoff(dtype)


def _entries(
    margins_BxN: np.ndarray, truth_BxN: np.ndarray, lengths: Sequence[int], dtype: str, exh: bool
) -> list[DyckKEntry]:
    out = []
    for length in lengths:
        m, t = margins_BxN[:, length], truth_BxN[:, length]
        n = length + 1
        signed = np.where(t, m, -m)
        tol = tolerance(n, dtype)
        member_err = float(np.max(np.abs(m[t] - 1 / (4 * n)), initial=0.0))
        worst_non = float(np.max(m[~t] + 3 / (4 * n), initial=-np.inf))
        out.append(
            DyckKEntry(
                length=int(length),
                strings=int(len(m)),
                members=int(t.sum()),
                exhaustive=exh,
                accuracy=float(np.mean(signed > 0)),
                min_margin=float(signed.min()),
                member_margin_error=member_err,
                nonmember_excess=worst_non,
                tolerance=tol,
                derived=bool(member_err <= tol and worst_non <= tol),
            )
        )
    return out


def dyck_k_record(
    k: int,
    depth: int,
    attention: str,
    dtype: str,
    margins_BxN: np.ndarray,
    truth_BxN: np.ndarray,
    *,
    drawn: Sequence[int] = (),
    drawn_margins_BxN: np.ndarray | None = None,
    drawn_truth_BxN: np.ndarray | None = None,
    leftmost_BxN: np.ndarray | None = None,
    drawn_leftmost_BxN: np.ndarray | None = None,
) -> DyckKRecord:
    """The ``attention`` recognizer of Dyck-(``k``, ``depth``) in ``dtype`` against the stack.
    ``margins_BxN`` are its decisions at every prefix of every string of one length ``E`` (the
    rows of :func:`._tasks_dyck_k.all_strings`; column ``i`` is the prefix of length ``i``) and
    ``truth_BxN`` the stack's answers there (:func:`._tasks_dyck_k.prefix_members`);
    ``drawn_margins_BxN`` / ``drawn_truth_BxN`` the same on ``samples`` drawn strings of each
    length of ``drawn`` (row block ``i`` has length ``drawn[i]``, read in its own column).
    ``leftmost_BxN`` / ``drawn_leftmost_BxN``: the decisions with leftmost-hard attention
    (hard recognizer), compared with the average-hard ones.

    Per length: accuracy, the smallest margin signed by the truth, and whether the margins are
    the derived ones (members ``1/(4n)``, non-members at most ``-3/(4n)``, within
    :func:`tolerance`; the softmax recognizer keeps the members' value and its non-members'
    bound is ``-0.15/n``, so ``derived`` there reads the members only).
    """
    _validate.check_choice("dtype", dtype, DTYPES)
    exhaustive_up_to = margins_BxN.shape[1] - 1
    entries = [  # each shorter string is the prefix of many rows: count it once
        dataclasses.replace(e, strings=(2 * k) ** e.length)
        for e in _entries(margins_BxN, truth_BxN, range(exhaustive_up_to + 1), dtype, True)
    ]
    use_leftmost = leftmost_BxN is not None
    leftmost_diff = float(np.max(np.abs(leftmost_BxN - margins_BxN))) if use_leftmost else 0.0
    if drawn:
        samples = len(drawn_margins_BxN) // len(drawn)
        for i, n in enumerate(drawn):
            part = slice(i * samples, (i + 1) * samples)
            entries += _entries(drawn_margins_BxN[part], drawn_truth_BxN[part], [n], dtype, False)
        if drawn_leftmost_BxN is not None:
            cols = np.repeat(np.array(drawn), samples)
            pick = np.arange(len(cols))
            diff = np.abs(drawn_leftmost_BxN[pick, cols] - drawn_margins_BxN[pick, cols])
            leftmost_diff = max(leftmost_diff, float(diff.max()))
    if attention == "softmax":
        entries = [
            dataclasses.replace(e, derived=bool(e.member_margin_error <= e.tolerance))
            for e in entries
        ]
    total = sum(e.strings for e in entries)
    return DyckKRecord(
        k=int(k),
        depth=int(depth),
        attention=attention,
        dtype=dtype,
        layers=int(depth) + 2,
        exhaustive_up_to=exhaustive_up_to,
        sampled_lengths=tuple(e.length for e in entries if not e.exhaustive),
        strings_checked=int(total),
        accuracy=float(sum(e.accuracy * e.strings for e in entries) / total),
        min_margin=float(min(e.min_margin for e in entries)),
        min_margin_times_n=float(min(e.min_margin * (e.length + 1) for e in entries)),
        derived=all(e.derived for e in entries),
        leftmost_max_difference=leftmost_diff if use_leftmost else None,
        by_length=tuple(entries),
    )


def margin_row(
    k: int,
    depth: int,
    length: int,
    dtype: str,
    attention: str,
    margins_B: np.ndarray,
    labels_B: np.ndarray,
) -> DyckKMarginRow:
    """One length and format of the margin sweep: the recognizer's decisions ``margins_B`` on
    strings of ``length`` (``n = length + 1`` positions) against their membership
    ``labels_B``."""
    m, y, n = np.asarray(margins_B).astype(np.float64), np.asarray(labels_B), length + 1
    signed = np.where(y, m, -m)
    return DyckKMarginRow(
        k=int(k),
        depth=int(depth),
        n=n,
        dtype=dtype,
        attention=attention,
        strings=int(len(m)),
        accuracy=float(np.mean(signed > 0)),
        min_margin=float(signed.min()),
        min_margin_times_n=float(signed.min() * n),
        member_margin_error=float(np.max(np.abs(m[y] - 1 / (4 * n)), initial=0.0)),
        tolerance=tolerance(n, dtype),
    )


def checked_record(
    k: int, depth: int, attention: str, dtype: str, strings: Any, decisions: Any
) -> DyckKRecord:
    """:func:`dyck_k_record` of one check: ``strings`` a
    :class:`._tasks_dyck_k.CheckStrings` (the strings and the stack's answers), ``decisions`` the
    recognizer's :class:`._constructions_dyck_k.PrefixDecisions` on them."""
    return dyck_k_record(
        k,
        depth,
        attention,
        dtype,
        decisions.margins_BxN,
        strings.truth_BxN,
        drawn=strings.drawn,
        drawn_margins_BxN=decisions.padded_margins_BxN,
        drawn_truth_BxN=strings.padded_truth_BxN,
        leftmost_BxN=decisions.leftmost_BxN,
        drawn_leftmost_BxN=decisions.padded_leftmost_BxN,
    )


def margin_rows(
    k: int,
    depth: int,
    attention: str,
    swept: Any,
    margins: Sequence[tuple[str, Sequence[np.ndarray]]],
) -> list[DyckKMarginRow]:
    """One :func:`margin_row` per (format, length) of a sweep: ``swept`` a
    :class:`._tasks_dyck_k.MarginStrings`, ``margins`` ``(dtype, per_length)`` pairs, the
    ``attention`` recognizer's decisions in that format on each of its even lengths."""
    return [
        margin_row(k, depth, n, name, attention, m, y)
        for name, per_length in margins
        for n, m, y in zip(swept.even, per_length, swept.labels)
    ]
