"""The study of the ``dyck_k`` experiment (Dyck-(k, D) after Yao et al. 2021): every recognizer of
its settings (:class:`.experiments.dyck_k.DyckKSettings`, read by their fields: this module
imports no experiment and no option) checked against the stack, then the margin sweep per float
format, in stages: every string and the stack's answers, every recognizer and its decisions, then
the records (written to ``dyck_k.json`` one by one), then the figure. :func:`check_record` and
:func:`margin_records` are one check and one sweep, for the claims' checks.
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
    (float32 and float64), in three stages: the strings and the stack's answers
    (:mod:`._tasks_dyck_k`), the recognizers and their decisions (:mod:`._constructions_dyck_k`),
    the records (:mod:`._theory_dyck_k`); with ``out_dir``, ``dyck_k.json`` (``records``,
    ``precision``, ``settings``) rewritten after each record and the figure ``dyck_k_margin.png``
    at the end. Needs JAX's 64-bit mode (float64 is one of the formats compared).

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
    bar = _bar(jobs, "Dyck-(k, D)", progress)
    # the strings and the stack's answers: each check's, then the sweep's (drawn once for every
    # recognizer and format that decides them)
    checked = [
        _tasks_dyck_k.check_strings(k, d, e, config.sampled_lengths, config.samples, config.seed)
        for _, k, e, d in jobs
    ]
    swept = _tasks_dyck_k.margin_strings(
        config.precision_k,
        config.precision_depth,
        config.precision_lengths,
        config.precision_samples,
        config.seed,
    )
    # the recognizers and their decisions: float64 at every prefix for the checks, then the sweep
    # recognizer (built for the longest length) in each format
    decided = [
        _constructions_dyck_k.prefix_decisions(
            k,
            d,
            a,
            s.strings_BxL,
            s.padded_BxL,
            max_len=s.max_len,
            dtype=precision.dtype_of("float64"),
        )
        for (a, k, _, d), s in zip(bar, checked)
    ]
    swept_margins = {
        (a, name): _constructions_dyck_k.recognizer_margins(
            config.precision_k,
            config.precision_depth,
            a,
            swept.strings,
            max_len=max(swept.lengths),
            dtype=precision.dtype_of(name),
        )
        for a in config.attentions
        for name in config.dtypes
    }
    # the records: each check against the stack, then the margin against n per float format
    for (a, k, _, d), s, m in zip(jobs, checked, decided):
        records.append(_theory_dyck_k.checked_record(k, d, a, "float64", s, m))
        record()
    for a in config.attentions:
        by_format = [(name, swept_margins[a, name]) for name in config.dtypes]
        sweep += _theory_dyck_k.margin_rows(
            config.precision_k, config.precision_depth, a, swept, by_format
        )
        record()
    if out_dir is not None:
        _plots.dyck_k_margins(sweep, os.path.join(out_dir, "dyck_k_margin.png"))
    failed = any(r.accuracy < 1.0 or not r.derived for r in records)
    return DyckKResult(
        rows=tuple(_rows(records)), records=tuple(records), precision=tuple(sweep), failed=failed
    )


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
    difference between the average-hard and leftmost-hard margins. One check of :func:`run`'s
    three stages, in order: the strings and their truth
    (:func:`._tasks_dyck_k.check_strings`), the recognizer and its decisions
    (:func:`._constructions_dyck_k.prefix_decisions`), then the record
    (:func:`._theory_dyck_k.checked_record`).

    ``dtype`` is ``"float32"`` or ``"float64"`` (float64 needs ``jax_enable_x64``).
    """
    _validate.check_choice("dtype", dtype, _theory_dyck_k.DTYPES)
    strings = _tasks_dyck_k.check_strings(
        k, depth, exhaustive_up_to, sampled_lengths, samples, seed
    )
    decisions = _constructions_dyck_k.prefix_decisions(
        k,
        depth,
        attention,
        strings.strings_BxL,
        strings.padded_BxL,
        max_len=strings.max_len if max_len is None else max_len,
        dtype=precision.dtype_of(dtype),
        leftmost=leftmost,
    )
    return _theory_dyck_k.checked_record(k, depth, attention, dtype, strings, decisions)


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
    the longest length. The strings are drawn once (:func:`._tasks_dyck_k.margin_strings`), then
    each format's recognizer decides them (:func:`._constructions_dyck_k.recognizer_margins`):
    :func:`run`'s sweep for one ``attention``."""
    for name in dtypes:
        _validate.check_choice("dtypes", name, _theory_dyck_k.DTYPES)
    swept = _tasks_dyck_k.margin_strings(k, depth, lengths, samples, seed)
    margins = [
        (
            name,
            _constructions_dyck_k.recognizer_margins(
                k,
                depth,
                attention,
                swept.strings,
                max_len=max(swept.lengths),
                dtype=precision.dtype_of(name),
            ),
        )
        for name in dtypes
    ]
    return _theory_dyck_k.margin_rows(k, depth, attention, swept, margins)


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
