"""The formal-language table's figures, drawn from records (nothing computed here):

- :func:`margins_by_length`: each recognizer's smallest margin against the string length;
- :func:`parity_precision`: PARITY's cross-entropy and margin against ``n``, per float format,
  with and without Chiang & Cholak's LayerNorm;
- :func:`dyck_k_margins`: the Dyck-(k, D) recognizers' smallest margin against ``n``, per float
  format (:mod:`._theory_dyck_k`);
- :func:`generalization`: trained models' accuracy against length beside the constructions
  (:mod:`.experiments.languages_generalization`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from transformer_theory.papers.formal_languages._records import DyckKMarginRow
from transformer_theory.plotting import (
    figure_legend,
    legend_outside,
    panel_grid,
    pyplot,
    save_figure,
)
from transformer_theory.precision import PRECISION_STYLE

__all__ = ["dyck_k_margins", "generalization", "margins_by_length", "parity_precision"]


def margins_by_length(records: list[dict], path: str) -> str:
    """``|smallest margin|`` against ``L`` (log-log), one line per recognizer record of
    :func:`._theory.recognizer_record`; returns ``path``."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for rec in records:
        rows = rec["by_length"]
        ax.plot(
            [r["length"] for r in rows],
            [abs(r["min_margin"]) for r in rows],
            marker=".",
            label=f"{rec['construction']} (acc {rec['accuracy']:.3f})",
        )
    ax.set(xscale="log", yscale="log", xlabel="string length L", ylabel="smallest |margin|")
    ax.set_title("Recognizers: smallest margin by length (float64)")
    legend_outside(ax, fontsize=7)
    return save_figure(fig, path)


def parity_precision(records: list[dict], path: str) -> str:
    """Largest cross-entropy (bits) and ``|smallest margin|`` against ``n``, one line per (float
    format, LayerNorm or not), from :func:`._theory.parity_precision_records`; returns ``path``."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for dtype in sorted({r["dtype"] for r in records}):
        for layer_norm in (True, False):
            rows = [r for r in records if r["dtype"] == dtype and r["layer_norm"] == layer_norm]
            label = f"{dtype}, {'LayerNorm eps=0' if layer_norm else 'no LayerNorm'}"
            xs = [r["n"] for r in rows]
            # float32 lies on float64 at this scale: the formats' own line styles keep both
            # visible (float32 dashed).
            style = dict(marker="o", label=label, ls=PRECISION_STYLE.get(dtype, "-"))
            axes[0].plot(xs, [r["max_cross_entropy_bits"] for r in rows], **style)
            axes[1].plot(xs, [abs(r["min_margin"]) for r in rows], **style)
    axes[0].set(xscale="log", xlabel="n", ylabel="max cross-entropy (bits)")
    axes[0].set_title("PARITY: Hahn's 1 bit vs the LayerNorm trick")
    axes[1].set(xscale="log", yscale="log", xlabel="n", ylabel="smallest |margin|")
    axes[1].set_title("PARITY: smallest margin")
    legend_outside(axes[1], fontsize=7)
    return save_figure(fig, path)


def generalization(records: list[dict], path: str) -> str:
    """Accuracy against string length, one panel per language (two a row) and one line per model
    (the mean over seeds; each model its own colour and marker), the longest training length
    dotted, one legend below the panels; returns ``path``."""
    plt = pyplot()
    languages = sorted({r["language"] for r in records})
    fig, axes = panel_grid(plt, len(languages), height=3.6)
    for ax, language in zip(axes, languages):
        rows = [r for r in records if r["language"] == language]
        for name in dict.fromkeys(r["model"] for r in rows):
            accs = np.array([r["accuracy"] for r in rows if r["model"] == name])
            ax.plot(rows[0]["eval_lengths"], accs.mean(0), label=f"{name}")
        longest = max(rows[0]["train_lengths"])
        ax.axvline(longest, color="gray", ls=":", lw=1, label="longest training length")
        ax.set(xscale="log", ylim=(0.3, 1.02), xlabel="string length", ylabel="accuracy")
        ax.set_title(f"{language}: trained on lengths up to {longest}")
    figure_legend(fig, axes, ncol=1)
    return save_figure(fig, path)


def dyck_k_margins(records: Sequence[DyckKMarginRow], path: str) -> str:
    """Dyck-(k, D): ``|smallest margin|`` against ``n`` (log-log, left) and the margin times
    ``n`` (right; the derived value is ``1/4``), one line per (recognizer, float format), from
    :func:`._study_dyck_k.margin_records` (:class:`._records.DyckKMarginRow`); a misclassifying
    length is marked ``x``. Returns ``path``."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for attention in sorted({r.attention for r in records}):
        for dtype in sorted({r.dtype for r in records}):
            rows = [r for r in records if r.attention == attention and r.dtype == dtype]
            if not rows:
                continue
            xs = [r.n for r in rows]
            style = dict(
                marker="o", ls=PRECISION_STYLE.get(dtype, "-"), label=f"{attention}, {dtype}"
            )
            axes[0].plot(xs, [abs(r.min_margin) for r in rows], **style)
            axes[1].plot(xs, [r.min_margin_times_n for r in rows], **style)
            wrong = [r for r in rows if r.accuracy < 1.0]
            axes[1].plot([r.n for r in wrong], [r.min_margin_times_n for r in wrong], "kx", ms=9)
    k, depth = records[0].k, records[0].depth
    axes[0].set(xscale="log", yscale="log", xlabel="n = L + 1", ylabel="smallest |margin|")
    axes[0].set_title(f"Dyck-({k}, {depth}) after Yao et al. 2021: margin 1/(4n)")
    axes[1].axhline(0.25, color="gray", ls=":", lw=1)
    axes[1].ticklabel_format(axis="y", useOffset=False)
    axes[1].set(xscale="log", xlabel="n = L + 1", ylabel="smallest signed margin x n")
    legend_outside(axes[1], fontsize=7)
    return save_figure(fig, path)
