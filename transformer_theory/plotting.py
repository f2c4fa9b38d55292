"""Figures: the one backend selection (:func:`pyplot`), saving (:func:`save_figure`) and panel
layout (:func:`panel_grid`) every figure uses, and figures drawn from the studies' records (this
module computes nothing).

Collapse and over-squashing (Barbero et al. 2024):

- :func:`plot_collapse`: ``||y_n - y'_{n+1}||`` against ``n`` (log-log), one panel per model, one
  line per precision, the ``K/n`` line of the rate and a mark where the representations first
  become bit-identical.
- :func:`plot_oversquash`: per model, the sensitivity ``||dy_n/dv_i||`` against the position ``i``
  beside the attention-path weights ``(Lambda^(L) ... Lambda^(1))_{n,i}``, the all-causal path
  counts and the certified bound (each divided by its maximum, so the shapes compare).
- :func:`plot_task_accuracy`: accuracy against length per task and precision, beside the
  collapse length of the task's confusable pair.

Heads, efficient attention and the encoder-decoder (Conti 2024):

- :func:`head_grid`: every head's attention map on one input, titled with its kind and score
  (Conti 2024, Figures 11-12);
- :func:`learning_curves`: held-out loss and accuracy against steps;
- :func:`error_vs_budget`: efficient attention's output error against its budget;
- :func:`cost_vs_length`: time and memory against sequence length, log-log, with fitted slopes.
"""

from __future__ import annotations

import math

import numpy as np

from transformer_theory.precision import PRECISION_STYLE


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend: the one place the library selects
    a backend (figures are written to files; a notebook shows them with ``IPython.display``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def panel_grid(plt, count: int, width: float = 4.2, height: float = 3.4):
    """A figure of ``count`` panels, at most four a row (unused panels hidden); returns
    ``(fig, axes)`` with ``axes`` a flat list."""
    cols = min(count, 4)
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


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
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _plain_minor_ticks(ax):
    from matplotlib.ticker import NullFormatter

    ax.xaxis.set_minor_formatter(NullFormatter())


def _normalized(values) -> np.ndarray:
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
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


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
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def save_figure(fig, path: str) -> str:
    """Lay ``fig`` out, write it to ``path`` at 110 dpi, close it; returns ``path``."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)
    return path


def head_grid(maps, records, labels: dict | None, path: str, example: int = 0) -> str:
    """One panel per head (rows: attention kind and layer; columns: heads).

    Args:
      maps: ``(attention, layer, maps_BxHxQxK)`` triples.
      records: :func:`~transformer_theory.papers.conti2024.heads.classify_model`'s records for them.
      labels: attention -> ``(query labels, key labels)`` for the ticks (None: positions).
      path: the PNG to write.
      example: which of the ``B`` inputs to draw.
    """
    plt = pyplot()
    by_key = {(r["attention"], r["layer"], r["head"]): r for r in records}
    rows = len(maps)
    cols = max(m.shape[1] for _, _, m in maps)
    fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 2.6 * rows), squeeze=False)
    for r, (attention, layer, m) in enumerate(maps):
        for h in range(cols):
            ax = axes[r, h]
            if h >= m.shape[1]:
                ax.axis("off")
                continue
            ax.imshow(np.asarray(m[example, h]), cmap="viridis", vmin=0)
            rec = by_key.get((attention, layer, h))
            title = f"{attention} L{layer} H{h}"
            if rec is not None:
                title += f"\n{rec['kind']} ({rec['score']:.2f})"
            ax.set_title(title, fontsize=8)
            q_labels, k_labels = (labels or {}).get(attention, (None, None))
            if q_labels is not None:
                ax.set_yticks(range(len(q_labels)), q_labels, fontsize=6)
                ax.set_xticks(range(len(k_labels)), k_labels, fontsize=6, rotation=90)
            else:
                ax.set_xticks([])
                ax.set_yticks([])
    return save_figure(fig, path)


def learning_curves(curves: dict[str, list[dict]], path: str) -> str:
    """Held-out accuracy (left) and loss (right) against steps, one line per run."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for name, rows in curves.items():
        steps = [r["step"] for r in rows]
        axes[0].plot(steps, [r["eval_acc"] for r in rows], label=name)
        axes[1].plot(steps, [r["eval_loss"] for r in rows], label=name)
    axes[0].set_ylabel("held-out token accuracy (teacher forcing)")
    axes[1].set_ylabel("held-out loss")
    axes[1].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("step")
        ax.legend(fontsize=8)
    return save_figure(fig, path)


def error_vs_budget(records: list[dict], path: str) -> str:
    """Relative output error against budget, one panel per input source, one line per variant
    (variants without a budget are horizontal lines)."""
    plt = pyplot()
    sources = list(dict.fromkeys(r["inputs"] for r in records))
    cols = min(3, len(sources))
    rows = -(-len(sources) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.4 * cols, 3.9 * rows), squeeze=False)
    for ax in axes.ravel()[len(sources) :]:
        ax.axis("off")
    for ax, source in zip(axes.ravel(), sources):
        rs = [r for r in records if r["inputs"] == source]
        for variant in dict.fromkeys(r["variant"] for r in rs):
            pts = sorted((r["budget"], r["error"]) for r in rs if r["variant"] == variant)
            if pts[0][0] is None:
                ax.axhline(pts[0][1], ls="--", lw=1, label=variant, color=f"C{len(ax.lines)}")
            else:
                ax.plot(*zip(*pts), marker="o", ms=3, label=variant)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("budget (window / random keys / features / rank)")
        ax.set_ylabel("relative error vs softmax attention")
        ax.set_title(source, fontsize=9)
        ax.legend(fontsize=7)
    return save_figure(fig, path)


def cost_vs_length(records: list[dict], slopes: dict, path: str) -> str:
    """Seconds (left) and XLA bytes (right) against ``n`` on log-log axes, with fitted slopes."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4))
    for i, variant in enumerate(dict.fromkeys(r["variant"] for r in records)):
        rs = sorted((r for r in records if r["variant"] == variant), key=lambda r: r["n"])
        n = [r["n"] for r in rs]
        for ax, key in zip(axes, ("seconds", "xla_bytes")):
            slope = slopes.get(variant, {}).get(key)
            label = variant if slope is None else f"{variant} (slope {slope:.2f})"
            ax.loglog(
                n,
                [r[key] for r in rs],
                marker="o",
                ms=3,
                color=f"C{i % 10}",
                ls="-" if i < 10 else "--",
                label=label,
            )
    axes[0].set_ylabel("seconds per call (median)")
    axes[1].set_ylabel("XLA memory: arguments + outputs + temporaries (bytes)")
    for ax in axes:
        ax.set_xlabel("sequence length n")
        ax.legend(fontsize=7)
        ax.grid(True, which="both", alpha=0.3)
    return save_figure(fig, path)
