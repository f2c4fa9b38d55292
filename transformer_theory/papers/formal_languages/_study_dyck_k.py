"""The study of the ``dyck_k`` experiment (Dyck-(k, D) after Yao et al. 2021): every recognizer of
its settings (:class:`.experiments.dyck_k.DyckKSettings`, read by their fields: this module
imports no experiment and no option) built and checked against the stack, then the margin sweep
per float format, recorded to ``dyck_k.json`` as it goes, then drawn.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from transformer_theory import precision
from transformer_theory.jsonio import write_json
from transformer_theory.papers.formal_languages import _plots, _theory_dyck_k

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True


__all__ = ["run"]


def run(config: Any, out_dir: str | None = None, *, progress: bool = True) -> dict:
    """Every recognizer of ``config`` checked against the stack (float64), then the margin sweep
    (float32 and float64); with ``out_dir``, ``dyck_k.json`` (``records``, ``precision``,
    ``settings``) rewritten after each record and the figure ``dyck_k_margin.png`` at the end.
    Needs JAX's 64-bit mode (float64 is one of the formats compared).

    Returns:
      ``{"rows", "records", "precision", "failed"}``: one table row per record, the records,
      the sweep, and whether any recognizer misclassified a string or left its derived margin.
    """
    precision.require_x64("config")
    records: list[dict] = []
    sweep: list[dict] = []

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
            _theory_dyck_k.check_record(
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
        sweep += _theory_dyck_k.margin_records(
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
    failed = any(r["accuracy"] < 1.0 or not r["derived"] for r in records)
    return {"rows": _rows(records), "records": records, "precision": sweep, "failed": failed}


def _bar(items: list, desc: str, progress: bool) -> list:
    if not progress:
        return items
    from transformer_theory.progress import tqdm

    return tqdm(items, desc=desc, disable=None)


def _rows(records: list[dict]) -> list[dict]:
    return [
        {
            "attention": r["attention"],
            "k": r["k"],
            "D": r["depth"],
            "layers": r["layers"],
            "strings": r["strings_checked"],
            "lengths": ", ".join([f"0-{r['exhaustive_up_to']}", *map(str, r["sampled_lengths"])]),
            "accuracy": r["accuracy"],
            "min margin x n": round(r["min_margin_times_n"], 6),
            "derived": r["derived"],
        }
        for r in records
    ]
