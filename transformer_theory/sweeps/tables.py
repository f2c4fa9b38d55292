"""A sweep's summary as the committed CSV and README's table (mean [min, max] per cell beside the
paper's claim); reads only the rows that :func:`~.runs.sweep` writes to ``summary.json``."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import numpy as np

from transformer_theory.jsonio import read_json, write_csv
from transformer_theory.sweeps.setups import PAPER_CLAIMS, TASK_NAMES
from transformer_theory.tables import table

__all__ = [
    "aggregate",
    "SUMMARY_COLUMNS",
    "initial_loss_note",
    "markdown_table",
    "read_summaries",
    "read_summary",
    "result_line",
    "write_summary_csv",
]

SUMMARY_COLUMNS = (
    "task",
    "depth",
    "heads",
    "seed",
    "optimizer",
    "learning_rate",
    "steps",
    "final_eval_acc",
    "chance",
    "stop_reason",
    "seconds",
)


def read_summary(out: str) -> list[dict]:
    """The rows of ``out/summary.json``; raises ``ValueError`` naming ``out`` when absent."""
    path = os.path.join(out, "summary.json")
    if not os.path.isfile(path):
        raise ValueError(f"out: {out} has no summary.json (written when the sweep finishes)")
    return read_json(path)


def read_summaries(outs: Sequence[str]) -> list[dict]:
    """The rows of several sweeps' ``summary.json`` (one sweep split over processes with
    ``--tasks``), ordered by task (Chen & Zou's order), depth and seed; ``ValueError`` naming
    ``outs`` when a run appears in two of them."""
    rows, where = [], {}
    for out in outs:
        for row in read_summary(out):
            if row["run"] in where:
                raise ValueError(f"outs: run {row['run']} is in both {where[row['run']]} and {out}")
            where[row["run"]] = out
            rows.append(row)
    order = {task: i for i, task in enumerate(TASK_NAMES)}
    rows.sort(key=lambda r: (order.get(r["task"], len(order)), int(r["depth"]), int(r["seed"])))
    return rows


def _diverged(row: dict) -> bool:
    return row.get("status") == "diverged" or row.get("stop_reason") == "diverged"


def write_summary_csv(rows: Sequence[dict], path: str) -> None:
    """One line per run with :data:`SUMMARY_COLUMNS` (accuracy rounded to 4 decimals; a diverged
    run's accuracy is empty and its ``stop_reason`` is ``diverged``)."""
    table = [
        dict(r, final_eval_acc=None if _diverged(r) else round(float(r["final_eval_acc"]), 4))
        for r in rows
    ]
    write_csv(path, table, SUMMARY_COLUMNS, extrasaction="ignore")


_MARKDOWN_COLUMNS = (
    "task",
    "depth",
    "optimizer, lr",
    "held-out acc mean [min, max]",
    "seeds",
    "chance",
    "steps (max)",
    "stopped by",
    "paper's claim",
)


def markdown_table(rows: Sequence[dict]) -> str:
    """README's table: one line per (task, depth): optimizer and learning rate, held-out accuracy
    mean [min, max] over the seeds that did not diverge, seeds (``3 (1 diverged)``), chance, steps
    (max), how the runs stopped, the paper's claim. A cell whose every run diverged shows
    ``diverged`` instead of an accuracy."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["task"], int(r["depth"])), []).append(r)
    cells = []
    for (task, depth), rs in groups.items():
        acc = np.array([float(r["final_eval_acc"]) for r in rs if not _diverged(r)])
        recipes = sorted({f"{r['optimizer']} {float(r['learning_rate']):g}" for r in rs})
        reasons = sorted({"diverged" if _diverged(r) else r["stop_reason"] for r in rs})
        bad = sum(_diverged(r) for r in rs)
        cell = f"{acc.mean():.2f} [{acc.min():.2f}, {acc.max():.2f}]" if len(acc) else "diverged"
        cells.append(
            {
                "task": task,
                "depth": depth,
                "optimizer, lr": ", ".join(recipes),
                "held-out acc mean [min, max]": cell,
                "seeds": f"{len(rs)} ({bad} diverged)" if bad else f"{len(rs)}",
                "chance": f"{float(rs[0]['chance']):.3g}",
                "steps (max)": max(int(r["steps"]) for r in rs),
                "stopped by": ", ".join(reasons),
                "paper's claim": PAPER_CLAIMS.get(task, ""),
            }
        )
    return table(cells, _MARKDOWN_COLUMNS, fmt="markdown")


def result_line(row: dict) -> str:
    """One finished run of a sweep (a row of ``summary.json``) in words: held-out accuracy beside
    chance and the loss's start and end, or where it diverged."""
    if row["status"] == "diverged":
        return (
            f"DIVERGED at step {row['diverged_step']} (non-finite loss or parameters; training "
            f"stopped there, no held-out result), loss {row['initial_eval_loss']:.3g} at step 0, "
            f"{row['seconds']} s"
        )
    return (
        f"held-out acc {row['final_eval_acc']:.3f} (chance {row['chance']:.3f}), loss "
        f"{row['initial_eval_loss']:.3g} -> {row['final_eval_loss']:.3g}, {row['steps']} steps, "
        f"{row['seconds']} s"
    )


# An initial held-out loss this many times chance level's (ln(1/chance)) gets an explanation.
LARGE_INITIAL_LOSS = 100.0


def initial_loss_note(rows: Sequence[dict]) -> str | None:
    """Why deep ReLU-attention runs start at held-out losses like 1e+11 (it is the
    initialization), when some of ``rows`` start above :data:`LARGE_INITIAL_LOSS` times chance
    level's loss; None otherwise."""
    large = [
        r
        for r in rows
        if r.get("initial_eval_loss") is not None
        and 0 < r.get("chance", 0) < 1
        and r["initial_eval_loss"] > LARGE_INITIAL_LOSS * math.log(1 / r["chance"])
    ]
    if not large:
        return None
    worst = max(r["initial_eval_loss"] for r in large)
    return (
        f"note: {len(large)} run(s) start at held-out losses up to {worst:.3g} (chance level "
        "is ln(1/chance)): Chen & Zou's §9.1 initialization (W_QK ~ U[0, 1), W_V = 1, "
        "W_C ~ U[0, 1)) with unnormalized ReLU attention, whose output is cubic in the "
        "stream's scale (scores h^T W_QK h times values W_V h, summed over the keys), so "
        "each layer raises the initial logits' scale to about the third power; training "
        "brings them down in the first steps (the final losses above)"
    )


def aggregate(rows: Sequence[dict]) -> list[dict]:
    """Mean, sample standard deviation, min and max of the final held-out accuracy per (task,
    heads) over the runs that did not diverge, how many did (``diverged``; all of them: the
    accuracy columns are None), beside the paper's claim."""
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["task"], r["heads"]), []).append(r)
    out = []
    for (task, heads), rs in groups.items():
        ok = [r for r in rs if r.get("status", "ok") != "diverged"]
        acc = np.array([r["final_eval_acc"] for r in ok], dtype=float)
        some = len(acc) > 0
        out.append(
            dict(
                task=task,
                heads=heads,
                depth=rs[0]["depth"],
                seeds=len(rs),
                diverged=len(rs) - len(ok),
                acc_mean=float(acc.mean()) if some else None,
                acc_std=(float(acc.std(ddof=1)) if len(acc) > 1 else 0.0) if some else None,
                acc_min=float(acc.min()) if some else None,
                acc_max=float(acc.max()) if some else None,
                chance=rs[0]["chance"],
                paper_claim=PAPER_CLAIMS.get(task, ""),
            )
        )
    return out
