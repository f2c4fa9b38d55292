"""Barbero et al. 2024's figures, drawn from the studies' records (nothing computed here).

- :func:`plot_collapse`: ``||y_n - y'_{n+1}||`` against ``n`` (log-log), one panel per model, one
  line per precision, the ``K/n`` line of the rate and a mark where the representations first
  become bit-identical.
- :func:`plot_oversquash`: per model, the sensitivity ``||dy_n/dv_i||`` against the position ``i``
  beside the attention-path weights ``(Lambda^(L) ... Lambda^(1))_{n,i}``, the all-causal path
  counts and the certified bound (each divided by its maximum, so the shapes compare).
- :func:`plot_task_accuracy`: accuracy against length per task and precision, beside the
  collapse length of the task's confusable pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from transformer_theory.plotting import panel_grid, pyplot, save_figure
from transformer_theory.precision import PRECISION_STYLE

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_collapse", "plot_oversquash", "plot_task_accuracy"]


def plot_collapse(record: dict, path: str) -> str:
    """Draw ``record`` (what ``transformer-theory collapse`` writes) to ``path``; returns it."""
    plt = pyplot()
    models = record["models"]
    fig, axes = panel_grid(plt, len(models))
    for ax, model in zip(axes, models):
        n = np.asarray(model["lengths"], float)
        for prec, rec in model["precisions"].items():
            d = np.asarray(rec["distance"], float)
            shown = np.where(d > 0, d, np.nan)
            (line,) = ax.loglog(n, shown, PRECISION_STYLE.get(prec, "-"), marker=".", label=prec)
            first = rec["first_identical"]
            if first is not None:
                ax.axvline(first, color=line.get_color(), lw=0.8, alpha=0.6)
        k = model.get("predicted_limit") or (model.get("rate") or {}).get("constant")
        if k:
            label = "K/n (derived)" if model.get("predicted_limit") else "K/n (fitted)"
            ax.loglog(n, k / n, color="gray", lw=0.8, alpha=0.7, label=label)
        slope = (model.get("rate") or {}).get("slope")
        title = model["name"] + ("" if slope is None else f"  slope {slope:.2f}")
        if model.get("verdict"):  # read from the curve's tail (collapse.asymptotic_rate)
            title = f"{model['name']}\n{model['verdict']}"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("n")
        ax.set_ylabel("||y_n - y'_{n+1}||")
        _plain_minor_ticks(ax)
        ax.legend(fontsize=7)
    fig.suptitle(
        f"Representational collapse, pattern {record['settings']['pattern']} "
        "(vertical lines: first bit-identical length)",
        fontsize=10,
    )
    return save_figure(fig, path)


def _plain_minor_ticks(ax: Axes) -> None:
    from matplotlib.ticker import NullFormatter

    ax.xaxis.set_minor_formatter(NullFormatter())


def _normalized(values: Sequence[float]) -> np.ndarray:
    v = np.asarray(values, float)
    top = np.max(v)
    return v / top if top > 0 else v


def plot_oversquash(record: dict, path: str) -> str:
    """Draw ``record`` (what ``transformer-theory oversquash`` writes) to ``path``; returns it."""
    plt = pyplot()
    models = record["models"]
    fig, axes = panel_grid(plt, len(models))
    for ax, model in zip(axes, models):
        i = np.arange(model["length"])
        ax.semilogy(i, _normalized(model["sensitivity_final"]), "o-", ms=3, label="||dy_n/dv_i||")
        ax.semilogy(i, _normalized(model["path_weight"][-1]), "s-", ms=2, label="(Λ^L…Λ^1)_{n,i}")
        if "path_weight_residual" in model:
            ax.semilogy(
                i,
                _normalized(model["path_weight_residual"][-1]),
                "^-",
                ms=2,
                label="with residual: ((I+Λ)/2)^L…",
            )
        counts = [int(c) for c in model["path_count"]]
        top = max(counts)
        ax.semilogy(i, [c / top for c in counts], "k--", lw=0.8, label="causal path count")
        if "bound_edge_final" in model:
            ax.semilogy(i, _normalized(model["bound_edge_final"]), ":", label="bound (edges)")
        ax.set_title(model["name"], fontsize=9)
        ax.set_xlabel("input position i (n = last)")
        ax.set_ylabel("divided by its maximum")
        ax.legend(fontsize=7)
    fig.suptitle("Over-squashing: sensitivity of the last token vs paths", fontsize=10)
    return save_figure(fig, path)


def plot_task_accuracy(record: dict, path: str) -> str:
    """Accuracy against content length per task (one panel each), one line per precision, and
    vertical lines where the task's confusable pair first becomes bit-identical (solid) and where
    both of its inputs first get the same prediction (dotted)."""
    plt = pyplot()
    tasks = record["tasks"]
    fig, axes = panel_grid(plt, len(tasks))
    for ax, task in zip(axes, tasks):
        for prec, rec in task["precisions"].items():
            (line,) = ax.semilogx(
                task["lengths"],
                rec["accuracy"],
                PRECISION_STYLE.get(prec, "-"),
                marker=".",
                label=prec,
            )
            for key, style in (("first_identical", "-"), ("first_same_prediction", ":")):
                if rec.get(key) is not None:
                    ax.axvline(rec[key], color=line.get_color(), ls=style, lw=1.0, alpha=0.7)
        ax.axvspan(task["train_min_len"], task["train_max_len"], color="gray", alpha=0.15)
        ax.set_ylim(-0.05, 1.05)
        ax.set_title(task["name"], fontsize=9)
        ax.set_xlabel("content length n (shaded: trained)")
        _plain_minor_ticks(ax)
        ax.set_ylabel("accuracy")
        ax.legend(fontsize=7)
    fig.suptitle(
        "Trained tasks: accuracy vs length (dotted: both inputs of the pair get one prediction; "
        "solid: bit-identical)",
        fontsize=10,
    )
    return save_figure(fig, path)
