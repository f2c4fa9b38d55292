"""The figures of Sanford, Hsu & Telgarsky 2023's checks and trained separations (through
:func:`transformer_theory.plotting.pyplot` and :func:`~transformer_theory.plotting.save_figure`;
nothing here computes).

- :func:`study_figures`: ``qsa_m_min.png`` (smallest ``m`` and fraction bits against ``q log N``)
  and ``<task>_precision.png`` (accuracy per float format against ``M``) of
  ``transformer-theory sanford``;
- :func:`qsa_separation`: held-out error against width and parameters, with the bounds;
- :func:`qsa_bits`: held-out error against the bits the query / state holds;
- :func:`match_width`: held-out accuracy of trained Match models against the query/key width.
"""

from __future__ import annotations

import os

from transformer_theory import precision
from transformer_theory.plotting import figure_legend, legend_outside, pyplot, save_figure

__all__ = ["match_width", "qsa_bits", "qsa_separation", "study_figures"]

_MODEL_LABELS = {"attention": "attention, m", "fnn": "FNN, width", "rnn": "GRU, state"}


def study_figures(records: list[dict], out: str) -> list[str]:
    """The figures of ``transformer-theory sanford`` for ``records`` into ``out``; returns the
    paths written."""
    plt = pyplot()
    paths = []
    qsa = [r for r in records if r["task"] == "qsa" and r["m_min"] is not None]
    if qsa:
        fig, ax = plt.subplots(1, 2, figsize=(9, 3.5))
        xs = [r["q_log_N"] for r in qsa]
        ax[0].scatter(xs, [r["m_min"] for r in qsa])
        for r in (r for r in qsa if "N" in r and "q" in r):  # which (N, q) each point is
            ax[0].annotate(
                f"N={r['N']}, q={r['q']}",
                (r["q_log_N"], r["m_min"]),
                textcoords="offset points",
                xytext=(4, 4),
            )
        ax[0].margins(x=0.25, y=0.15)
        ax[0].set(xlabel="q log N", ylabel="smallest m reaching eps", title="qSA: rows of U")
        ax[1].scatter(xs, [r["bits_min"] for r in qsa], label="smallest")
        ax[1].scatter(xs, [r["bits_proof"] for r in qsa], marker="x", label="proof's choice")
        ax[1].set(xlabel="q log N", ylabel="fraction bits of w", title="qSA: precision")
        legend_outside(ax[1])
        paths.append(save_figure(fig, os.path.join(out, "qsa_m_min.png")))
    for task in dict.fromkeys(r["task"] for r in records if r["task"] != "qsa"):
        rows = [r for r in records if r["task"] == task]
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for dtype in rows[0]["accuracy_by_dtype"]:
            ax.plot(
                [r["M"] for r in rows],
                [r["accuracy_by_dtype"][dtype] for r in rows],
                precision.PRECISION_STYLE[dtype],
                marker="o",
                color=precision.PRECISION_COLOR[dtype],
                label=dtype,
            )
        ax.set(xscale="log", xlabel="M", ylabel="accuracy (positions)", title=f"{task}: precision")
        legend_outside(ax)
        paths.append(save_figure(fig, os.path.join(out, f"{task}_precision.png")))
    return paths


def qsa_separation(records: list[dict], path: str) -> str:
    """Held-out mean of ``max_i`` error against width (left) and trainable parameters (right),
    one colour per model, its bound dotted, ``eps`` and the all-zero output as lines."""
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for i, model in enumerate(_MODEL_LABELS):
        rows = [r for r in records if r["model"] == model]
        if not rows:
            continue
        color = f"C{i}"
        left.plot([r["width"] for r in rows], [r["mean_max_error"] for r in rows], "o-", c=color)
        right.plot([r["params"] for r in rows], [r["mean_max_error"] for r in rows], "o-", c=color)
        left.plot([], [], "o-", c=color, label=_MODEL_LABELS[model])
        bound = rows[0]["threshold"]
        if bound is not None:
            left.axvline(bound, c=color, ls=":", label=f"bound: {bound:g}")
    r0 = records[0]
    for ax in (left, right):
        ax.axhline(r0["epsilon"], c="k", ls="--", lw=0.8)
        ax.axhline(r0["zero_error"], c="gray", ls="-.", lw=0.8)
        ax.set_xscale("log")
    left.text(1, r0["epsilon"], r" $\epsilon = 1/(2q)$", va="bottom", fontsize=7)
    left.text(1, r0["zero_error"], " output 0", va="bottom", fontsize=7)
    left.set(xlabel="width / embedding dimension", ylabel=r"held-out mean of $\max_i$ error")
    right.set(xlabel="trainable parameters")
    figure_legend(fig, [left], ncol=3)
    fig.suptitle(f"qSA, N = {r0['N']}, q = {r0['q']}, d' = {r0['d_prime']}")
    return save_figure(fig, path)


def qsa_bits(records: list[dict], path: str) -> str:
    """Held-out error against the bits held (query / state), one line per precision ``p``."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for i, p in enumerate(sorted({r["bits"] for r in records})):
        rows = [r for r in records if r["bits"] == p]
        ax.plot(
            [r["message_bits"] for r in rows],
            [r["mean_max_error"] for r in rows],
            "o-",
            c=f"C{i}",
            label=f"p = {p}",
        )
    r0 = records[0]
    ax.axvline(r0["bits_needed"], c="k", ls=":", label=f"bits needed: {r0['bits_needed']:g}")
    ax.axhline(r0["epsilon"], c="k", ls="--", lw=0.8, label=r"$\epsilon = 1/(2q)$")
    ax.axhline(r0["zero_error"], c="gray", ls="-.", lw=0.8, label="output 0")
    ax.set(
        xscale="log",
        xlabel="bits held (query / state)",
        ylabel=r"held-out mean of $\max_i$ error",
        title=f"{r0['model']}, qSA N = {r0['N']}, q = {r0['q']}",
    )
    legend_outside(ax, fontsize=7)
    return save_figure(fig, path)


def match_width(records: list[dict], path: str) -> str:
    """Held-out per-position accuracy against the query/key width, one line per (task, heads)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for task, heads in dict.fromkeys((r["task"], r["heads"]) for r in records):
        rows = [r for r in records if r["task"] == task and r["heads"] == heads]
        ax.plot(
            [r["qk_dim"] for r in rows],
            [r["accuracy"] for r in rows],
            "o-",
            label=f"{task}, {rows[0]['depth']} layer(s), {heads} head(s)",
        )
    r0 = records[0]
    ax.set(
        xscale="log",
        xlabel="query/key width m",
        ylabel="held-out accuracy",
        title=f"N = {r0['N']}, M = {r0['M']}",
    )
    legend_outside(ax)
    return save_figure(fig, path)
