"""Barbero et al. 2024's figures, drawn from the studies' records (nothing computed here).

- :func:`plot_collapse`: ``||y_n - y'_{n+1}||`` (drawn as mathtext) against ``n`` (log-log), one
  panel per model, one line per precision, the ``K/n`` line of the rate and a mark where the
  representations first become bit-identical.
- :func:`plot_oversquash`: per model, the sensitivity ``||dy_n/dv_i||`` against the position ``i``
  beside the attention-path weights ``(Lambda^(L) ... Lambda^(1))_{n,i}``, the all-causal path
  counts and the certified bound (each divided by its maximum, so the shapes compare).
- :func:`plot_task_accuracy`: accuracy against length per task and precision, beside the
  collapse length of the task's confusable pair.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from transformer_theory.plotting import figure_legend, panel_grid, pyplot, save_figure, suptitle
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
            derived = bool(model.get("predicted_limit"))
            label = "$K/n$ (derived)" if derived else "$K/n$ (fitted)"
            ls = "--" if derived else "-"
            ax.loglog(n, k / n, color="gray", ls=ls, lw=0.8, alpha=0.7, label=label)
        slope = (model.get("rate") or {}).get("slope")
        title = _model_title(model) + ("" if slope is None else f", slope {slope:.2f}")
        if model.get("verdict"):  # read from the curve's tail (collapse.asymptotic_rate)
            title = f"{_model_title(model)}\n{_math_powers(model['verdict'])}"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("$n$")
        ax.set_ylabel(r"$\|y_n - y'_{n+1}\|$")
        _plain_minor_ticks(ax)
    figure_legend(fig, axes, ncol=4)
    identical = any(
        rec["first_identical"] is not None
        for model in models
        for rec in model["precisions"].values()
    )
    longest = max(max(model["lengths"]) for model in models)
    marks = (
        "vertical lines: first bit-identical length"
        if identical
        else f"no pair became bit-identical up to n = {longest}"
    )
    suptitle(fig, f"Representational collapse, pattern {record['settings']['pattern']} ({marks})")
    return save_figure(fig, path)


def _math_powers(text: str) -> str:
    """``n^-1.00`` in a verdict drawn as mathtext ``$n^{-1.00}$`` (no raw TeX on a figure)."""
    return re.sub(r"\b(\w)\^(-?[0-9.]*[0-9])", r"$\1^{\2}$", text)


def _model_title(model: dict) -> str:
    """A panel title that says what the model is (not its run id): depth, heads, positional
    encoding and seed where the record has them."""
    if not all(key in model for key in ("depth", "heads", "positional", "seed")):
        return str(model["name"])
    layers = "layer" if model["depth"] == 1 else "layers"
    heads = "head" if model["heads"] == 1 else "heads"
    return (
        f"{model['depth']} {layers}, {model['heads']} {heads}, {model['positional']}, "
        f"seed {model['seed']}"
    )


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
        sensitivity = r"$\|\partial y_n / \partial v_i\|$"
        paths = r"$(\Lambda^{(L)} \cdots \Lambda^{(1)})_{n,i}$"
        ax.semilogy(i, _normalized(model["sensitivity_final"]), "o-", ms=3, label=sensitivity)
        ax.semilogy(i, _normalized(model["path_weight"][-1]), "s-", ms=2, label=paths)
        if "path_weight_residual" in model:
            ax.semilogy(
                i,
                _normalized(model["path_weight_residual"][-1]),
                "^-",
                ms=2,
                label=r"with residual: $(I + \Lambda^{(L)}) \cdots (I + \Lambda^{(1)}) / 2^L$",
            )
        counts = [int(c) for c in model["path_count"]]
        top = max(counts)
        ax.semilogy(i, [c / top for c in counts], "k--", lw=0.8, label="causal path count")
        if "bound_edge_final" in model:
            ax.semilogy(i, _normalized(model["bound_edge_final"]), ":", label="bound (edges)")
        ax.set_title(_model_title(model), fontsize=9)
        ax.set_xlabel("input position $i$ ($n$ = last)")
        ax.set_ylabel("divided by its maximum")
    figure_legend(fig, axes, ncol=3)
    suptitle(fig, "Over-squashing: sensitivity of the last token vs attention paths")
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
    figure_legend(fig, axes, ncol=4)
    suptitle(
        fig,
        "Trained tasks: accuracy vs length (dotted: both inputs of the pair get one prediction; "
        "solid: bit-identical)",
    )
    return save_figure(fig, path)
