"""The Dyck-(k, D) recognizer measured against its language: the float error allowed on a margin
(:func:`tolerance`), every short string and sampled members and hard non-members checked against
the stack (:func:`check_record`), and the smallest margin against ``n`` per float format
(:func:`margin_records`). Records of data, no files.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from transformer_theory import _validate, precision
from transformer_theory.papers.formal_languages._constructions_dyck_k import (
    decision_margins,
    dyck_k_recognizer,
)
from transformer_theory.papers.formal_languages._tasks_dyck_k import (
    all_strings,
    dyck_k_sample,
    prefix_members,
)

DTYPES = ("float32", "float64")


def _int(name: str, value: object, minimum: int) -> int:
    return _validate.check_int_arg(name, value, minimum=minimum)


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


def _entry(
    margins_BxN: np.ndarray, truth_BxN: np.ndarray, lengths: Sequence[int], dtype: str, exh: bool
) -> list[dict]:
    out = []
    for length in lengths:
        m, t = margins_BxN[:, length], truth_BxN[:, length]
        n = length + 1
        signed = np.where(t, m, -m)
        tol = tolerance(n, dtype)
        member_err = float(np.max(np.abs(m[t] - 1 / (4 * n)), initial=0.0))
        worst_non = float(np.max(m[~t] + 3 / (4 * n), initial=-np.inf))
        out.append(
            {
                "length": int(length),
                "strings": int(len(m)),
                "members": int(t.sum()),
                "exhaustive": exh,
                "accuracy": float(np.mean(signed > 0)),
                "min_margin": float(signed.min()),
                "member_margin_error": member_err,
                "nonmember_excess": worst_non,
                "tolerance": tol,
                "derived": bool(member_err <= tol and worst_non <= tol),
            }
        )
    return out


def check_record(
    k: int,
    depth: int,
    *,
    attention: str = "hard",
    exhaustive_up_to: int = 6,
    sampled_lengths: Sequence[int] = (),
    samples: int = 64,
    seed: int = 0,
    dtype: str = "float64",
    max_len: int | None = None,
    leftmost: bool = True,
) -> dict:
    """The recognizer :func:`._constructions_dyck_k.dyck_k_recognizer` ``(k, depth, attention)``
    checked against the stack
    (:func:`prefix_members`): on every string of lengths ``0 .. exhaustive_up_to`` (as the
    prefixes of every string of the longest, which for the hard recognizer give the decision on
    the prefix itself: :func:`decision_margins`) and on :func:`._tasks_dyck_k.dyck_k_sample`'s
    ``samples`` strings of
    each even length of ``sampled_lengths`` (seed ``seed + length``; evaluated in one batch,
    right-padded to the longest, each read at its own length).

    Per length: accuracy, the smallest margin signed by the truth, and whether the margins are
    the derived ones (members ``1/(4n)``, non-members at most ``-3/(4n)``, within
    :func:`tolerance`; the softmax recognizer keeps the members' value and its non-members'
    bound is ``-0.15/n``, so ``derived`` there reads the members only). With ``leftmost`` (hard
    recognizer) the largest difference between the average-hard and leftmost-hard margins.

    ``dtype`` is ``"float32"`` or ``"float64"`` (float64 needs ``jax_enable_x64``).
    """
    _validate.check_choice("dtype", dtype, DTYPES)
    exhaustive_up_to = _int("exhaustive_up_to", exhaustive_up_to, 0)
    lengths = sorted({_int("sampled_lengths", n, 2) for n in sampled_lengths})
    longest = max([exhaustive_up_to, *lengths])
    params = dyck_k_recognizer(
        k,
        depth,
        attention,
        max_len=longest if max_len is None else max_len,
        dtype=precision.dtype_of(dtype),
    )
    strings = all_strings(exhaustive_up_to, k)
    margins = decision_margins(params, strings, prefixes=True)
    truth = prefix_members(strings, k, depth)
    entries = _entry(margins, truth, range(exhaustive_up_to + 1), dtype, True)
    for e in entries:  # each shorter string appears as the prefix of many rows: count it once
        e["strings"] = (2 * k) ** e["length"]
    leftmost_diff = 0.0
    use_leftmost = leftmost and attention == "hard"
    if use_leftmost:
        other = decision_margins(params, strings, prefixes=True, leftmost=True)
        leftmost_diff = float(np.max(np.abs(other - margins)))
    drawn = [n for n in lengths if n > exhaustive_up_to and n % 2 == 0]
    if drawn:
        # One batch (one compilation): every sample right-padded to the longest length, its
        # decision read in the column of its own length.
        width = max(drawn)
        rows = [dyck_k_sample(k, depth, n, samples, seed=seed + n)[0] for n in drawn]
        padded = np.stack([np.pad(r, (0, width - len(r))) for g in rows for r in g])
        m = decision_margins(params, padded, prefixes=True)
        truth = prefix_members(padded, k, depth)
        for i, n in enumerate(drawn):
            part = slice(i * samples, (i + 1) * samples)
            entries += _entry(m[part], truth[part], [n], dtype, False)
        if use_leftmost:
            other = decision_margins(params, padded, prefixes=True, leftmost=True)
            cols = np.repeat(np.array(drawn), samples)
            pick = np.arange(len(cols))
            diff = np.abs(other[pick, cols] - m[pick, cols])
            leftmost_diff = max(leftmost_diff, float(diff.max()))
    if attention == "softmax":
        for e in entries:
            e["derived"] = bool(e["member_margin_error"] <= e["tolerance"])
    total = sum(e["strings"] for e in entries)
    return {
        "k": int(k),
        "depth": int(depth),
        "attention": attention,
        "dtype": dtype,
        "layers": int(depth) + 2,
        "exhaustive_up_to": exhaustive_up_to,
        "sampled_lengths": [e["length"] for e in entries if not e["exhaustive"]],
        "strings_checked": int(total),
        "accuracy": float(sum(e["accuracy"] * e["strings"] for e in entries) / total),
        "min_margin": float(min(e["min_margin"] for e in entries)),
        "min_margin_times_n": float(min(e["min_margin"] * (e["length"] + 1) for e in entries)),
        "derived": all(e["derived"] for e in entries),
        "leftmost_max_difference": leftmost_diff if use_leftmost else None,
        "by_length": entries,
    }


def margin_records(
    k: int,
    depth: int,
    lengths: Sequence[int],
    *,
    dtypes: Sequence[str] = ("float32", "float64"),
    attention: str = "hard",
    samples: int = 16,
    seed: int = 0,
) -> list[dict]:
    """The smallest margin against ``n`` per float format: :func:`._tasks_dyck_k.dyck_k_sample`'s
    ``samples`` strings
    of each even length, one record ``{n, dtype, attention, strings, accuracy, min_margin,
    min_margin_times_n, member_margin_error, tolerance}`` per (length, format); the softmax
    recognizer is built for the longest length."""
    lengths = sorted({_int("lengths", n, 2) for n in lengths})
    records = []
    for name in dtypes:
        _validate.check_choice("dtypes", name, DTYPES)
        params = dyck_k_recognizer(
            k, depth, attention, max_len=max(lengths), dtype=precision.dtype_of(name)
        )
        for n in lengths:
            if n % 2:
                continue
            s, y, _ = dyck_k_sample(k, depth, n, samples, seed=seed + n)
            m = decision_margins(params, s).astype(np.float64)
            signed = np.where(y, m, -m)
            records.append(
                {
                    "k": int(k),
                    "depth": int(depth),
                    "n": n + 1,
                    "dtype": name,
                    "attention": attention,
                    "strings": int(samples),
                    "accuracy": float(np.mean(signed > 0)),
                    "min_margin": float(signed.min()),
                    "min_margin_times_n": float(signed.min() * (n + 1)),
                    "member_margin_error": float(
                        np.max(np.abs(m[y] - 1 / (4 * (n + 1))), initial=0.0)
                    ),
                    "tolerance": tolerance(n + 1, name),
                }
            )
    return records
