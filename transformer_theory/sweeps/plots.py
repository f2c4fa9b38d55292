"""Learning curves of an experiment: held-out accuracy and loss against steps (Chen & Zou 2024,
Figures 2 and 4-7)."""

from __future__ import annotations

import os

import numpy as np

from transformer_theory.plotting import figure_legend, pyplot, save_figure, suptitle
from transformer_theory.sweeps.config import ExperimentSettings
from transformer_theory.train import RunDirectoryError, read_metrics
from transformer_theory.train.rundir import METRICS_FILE

__all__ = [
    "load_metrics",
    "plot_curves",
]


def load_metrics(config: ExperimentSettings, out: str) -> list[tuple]:
    """``[(spec, metrics record)]`` of every run of ``config`` that has a ``metrics.json`` under
    ``out`` (a run that never logged is left out)."""
    found = []
    for spec in config.run_specs:
        path = os.path.join(out, spec.name, METRICS_FILE)
        if os.path.exists(path):
            found.append((spec, read_metrics(path)))
    return found


def plot_curves(config: ExperimentSettings, out: str) -> str:
    """``out/<name>.png``: accuracy (top) and loss (bottom) against steps, one column per task,
    one line per heads configuration (the mean over seeds; the band spans min to max). A run
    that diverged is named in its line's legend entry (``L=2 (1/3 diverged)``); its curve ends at
    the step before the divergence (the diverged row has no held-out figures).

    Raises :class:`~transformer_theory.train.RunDirectoryError` when no run has metrics or a
    ``metrics.json`` cannot be read. Returns the PNG path.
    """
    plt = pyplot()
    runs = load_metrics(config, out)
    if not runs:
        raise RunDirectoryError(
            f"{out}: none of the {len(config.run_specs)} runs has a {METRICS_FILE}"
        )
    tasks = [t for t in config.selected_tasks if any(spec.task == t for spec, _ in runs)]
    fig, axes = plt.subplots(2, len(tasks), figsize=(4.2 * len(tasks), 7.0), squeeze=False)
    for col, task in enumerate(tasks):
        by_heads: dict = {}
        diverged: dict = {}
        for spec, record in runs:
            if spec.task == task and record["rows"]:
                by_heads.setdefault(spec.heads, []).append(record["rows"])
                bad = record.get("status") == "diverged"
                diverged[spec.heads] = diverged.get(spec.heads, 0) + bad
        for heads in sorted(by_heads, key=lambda h: (len(h), h)):
            # Seeds may have logged different steps (a run continued with another --steps, or
            # diverged): draw the steps they share, without the diverged rows (no held-out data).
            by_step = [
                {row["step"]: row for row in c if row.get("status") != "diverged"}
                for c in by_heads[heads]
            ]
            steps = sorted(set.intersection(*(set(b) for b in by_step)))
            label = f"L={len(heads)}" if all(h == 1 for h in heads) else str(list(heads))
            if diverged[heads]:
                label += f" ({diverged[heads]}/{len(by_step)} diverged)"
            for row_i, key in enumerate(("eval_acc", "eval_loss")):
                vals = np.array([[b[s][key] for s in steps] for b in by_step], dtype=float)
                ax = axes[row_i, col]
                (line,) = ax.plot(steps, vals.mean(0), label=label)
                ax.fill_between(steps, vals.min(0), vals.max(0), color=line.get_color(), alpha=0.2)
        chance = next(spec.meta["chance"] for spec, _ in runs if spec.task == task)
        axes[0, col].axhline(chance, color="gray", ls=":", lw=1, label="chance")
        axes[0, col].set_title(task)
        axes[0, col].set_ylim(-0.02, 1.02)
        axes[0, col].set_ylabel("held-out accuracy")
        axes[1, col].set_ylabel("held-out loss")
        axes[1, col].set_yscale("log")
        axes[0, col].set_xlabel("step")
        axes[1, col].set_xlabel("step")
    figure_legend(fig, list(axes[0]), ncol=4)
    suptitle(fig, config.title or config.name)
    return save_figure(fig, os.path.join(out, f"{config.name}.png"))
