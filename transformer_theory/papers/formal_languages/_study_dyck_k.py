"""The study of the ``dyck_k`` experiment (Dyck-(k, D) after Yao et al. 2021): every recognizer of
its settings (:class:`.experiments.dyck_k.DyckKSettings`, read by their fields: this module
imports no experiment and no option) built and checked against the stack, then the margin sweep
per float format, recorded to ``dyck_k.json`` as it goes, then drawn.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

from transformer_theory import _validate, precision
from transformer_theory.jsonio import write_json
from transformer_theory.papers.formal_languages import (
    _constructions_dyck_k,
    _plots,
    _tasks_dyck_k,
    _theory_dyck_k,
)
from transformer_theory.papers.formal_languages._records import (
    DyckKMarginRow,
    DyckKRecord,
    DyckKResult,
)

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True


__all__ = ["check_record", "margin_records", "run"]


def run(config: Any, out_dir: str | None = None, *, progress: bool = True) -> DyckKResult:
    """Every recognizer of ``config`` checked against the stack (float64), then the margin sweep
    (float32 and float64); with ``out_dir``, ``dyck_k.json`` (``records``, ``precision``,
    ``settings``) rewritten after each record and the figure ``dyck_k_margin.png`` at the end.
    Needs JAX's 64-bit mode (float64 is one of the formats compared).

    Returns:
      :class:`._records.DyckKResult`: one table row per record, the records, the sweep, and
      whether any recognizer misclassified a string or left its derived margin.
    """
    precision.require_x64("config")
    records: list[DyckKRecord] = []
    sweep: list[DyckKMarginRow] = []

    def record() -> None:
        if out_dir is not None:
            blob = {"records": records, "precision": sweep, "settings": dataclasses.asdict(config)}
            write_json(os.path.join(out_dir, "dyck_k.json"), blob)

    jobs = [
        (a, k, e, d) for a in config.attentions for k, e in config.exhaustive for d in config.depths
    ]
    # build and check: each recognizer against the stack, every short string and samples
    for attention, k, e, depth in _bar(jobs, "Dyck-(k, D)", progress):
        records.append(
            check_record(
                k,
                depth,
                attention=attention,
                exhaustive_up_to=e,
                sampled_lengths=config.sampled_lengths,
                samples=config.samples,
                seed=config.seed,
            )
        )
        record()
    # the margin against n, per float format
    for attention in config.attentions:
        sweep += margin_records(
            config.precision_k,
            config.precision_depth,
            config.precision_lengths,
            dtypes=config.dtypes,
            attention=attention,
            samples=config.precision_samples,
            seed=config.seed,
        )
        record()
    if out_dir is not None:
        _plots.dyck_k_margins(sweep, os.path.join(out_dir, "dyck_k_margin.png"))
    failed = any(r.accuracy < 1.0 or not r.derived for r in records)
    return DyckKResult(
        rows=tuple(_rows(records)), records=tuple(records), precision=tuple(sweep), failed=failed
    )


def _int(name: str, value: object, minimum: int) -> int:
    return _validate.check_int_arg(name, value, minimum=minimum)


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
) -> DyckKRecord:
    """The recognizer :func:`._constructions_dyck_k.dyck_k_recognizer` ``(k, depth, attention)``
    checked against the stack (:func:`._tasks_dyck_k.prefix_members`): on every string of lengths
    ``0 .. exhaustive_up_to`` (as the prefixes of every string of the longest, which for the hard
    recognizer give the decision on the prefix itself:
    :func:`._constructions_dyck_k.decision_margins`) and on
    :func:`._tasks_dyck_k.dyck_k_sample`'s ``samples`` strings of each even length of
    ``sampled_lengths`` above it (seed ``seed + length``; evaluated in one batch, right-padded to
    the longest, each read at its own length). With ``leftmost`` (hard recognizer) the largest
    difference between the average-hard and leftmost-hard margins. Built here once, in order:
    the strings and their truth, the recognizer and its decisions, then the record
    (:func:`._theory_dyck_k.dyck_k_record`).

    ``dtype`` is ``"float32"`` or ``"float64"`` (float64 needs ``jax_enable_x64``).
    """
    _validate.check_choice("dtype", dtype, _theory_dyck_k.DTYPES)
    exhaustive_up_to = _int("exhaustive_up_to", exhaustive_up_to, 0)
    lengths = sorted({_int("sampled_lengths", n, 2) for n in sampled_lengths})
    drawn = [n for n in lengths if n > exhaustive_up_to and n % 2 == 0]
    use_leftmost = leftmost and attention == "hard"
    # the strings and the stack's answers
    strings = _tasks_dyck_k.all_strings(exhaustive_up_to, k)
    truth = _tasks_dyck_k.prefix_members(strings, k, depth)
    padded = _tasks_dyck_k.padded_samples(k, depth, drawn, samples, seed) if drawn else None
    padded_truth = _tasks_dyck_k.prefix_members(padded, k, depth) if drawn else None
    # the recognizer and its decisions at every prefix
    params = _constructions_dyck_k.dyck_k_recognizer(
        k,
        depth,
        attention,
        max_len=max([exhaustive_up_to, *lengths]) if max_len is None else max_len,
        dtype=precision.dtype_of(dtype),
    )
    margins = _constructions_dyck_k.decision_margins(params, strings, prefixes=True)
    padded_margins = (
        _constructions_dyck_k.decision_margins(params, padded, prefixes=True) if drawn else None
    )
    left, padded_left = None, None
    if use_leftmost:
        left = _constructions_dyck_k.decision_margins(params, strings, prefixes=True, leftmost=True)
        if drawn:
            padded_left = _constructions_dyck_k.decision_margins(
                params, padded, prefixes=True, leftmost=True
            )
    return _theory_dyck_k.dyck_k_record(
        k,
        depth,
        attention,
        dtype,
        margins,
        truth,
        drawn=drawn,
        drawn_margins_BxN=padded_margins,
        drawn_truth_BxN=padded_truth,
        leftmost_BxN=left,
        drawn_leftmost_BxN=padded_left,
    )


def margin_records(
    k: int,
    depth: int,
    lengths: Sequence[int],
    *,
    dtypes: Sequence[str] = ("float32", "float64"),
    attention: str = "hard",
    samples: int = 16,
    seed: int = 0,
) -> list[DyckKMarginRow]:
    """The smallest margin against ``n`` per float format: :func:`._tasks_dyck_k.dyck_k_sample`'s
    ``samples`` strings of each even length (seed ``seed + length``), one
    :class:`._records.DyckKMarginRow` per (format, length); the softmax recognizer is built for
    the longest length. The strings are drawn once, then each format's recognizer decides
    them."""
    lengths = sorted({_int("lengths", n, 2) for n in lengths})
    for name in dtypes:
        _validate.check_choice("dtypes", name, _theory_dyck_k.DTYPES)
    even = [n for n in lengths if n % 2 == 0]
    drawn = [_tasks_dyck_k.dyck_k_sample(k, depth, n, samples, seed=seed + n)[:2] for n in even]
    decided = {}
    for name in dtypes:
        params = _constructions_dyck_k.dyck_k_recognizer(
            k, depth, attention, max_len=max(lengths), dtype=precision.dtype_of(name)
        )
        decided[name] = [_constructions_dyck_k.decision_margins(params, s) for s, _ in drawn]
    return [
        _theory_dyck_k.margin_row(k, depth, n, name, attention, m, y)
        for name in dtypes
        for n, m, (_, y) in zip(even, decided[name], drawn)
    ]


def _bar(items: list, desc: str, progress: bool) -> list:
    if not progress:
        return items
    from transformer_theory.progress import tqdm

    return tqdm(items, desc=desc, disable=None)


def _rows(records: list[DyckKRecord]) -> list[dict]:
    return [
        {
            "attention": r.attention,
            "k": r.k,
            "D": r.depth,
            "layers": r.layers,
            "strings": r.strings_checked,
            "lengths": ", ".join([f"0-{r.exhaustive_up_to}", *map(str, r.sampled_lengths)]),
            "accuracy": r.accuracy,
            "min margin x n": round(r.min_margin_times_n, 6),
            "derived": r.derived,
        }
        for r in records
    ]
