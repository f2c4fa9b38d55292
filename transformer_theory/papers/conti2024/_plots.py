"""Conti 2024's figures, drawn from the studies' records (nothing computed here).

- :func:`head_grid`: every head's attention map on one input, titled with its kind and score
  (Conti 2024, Figures 11-12), each with its colorbar, layers and heads numbered from 1;
- :func:`error_vs_budget`: efficient attention's output error against its budget, one marker and
  line style per variant (the window variants lie on one another);
- :func:`cost_vs_length`: time and memory against sequence length, log-log, with fitted slopes;
  times at the per-call overhead floor are drawn hollow (no slope is read there);
- :func:`translation_maps`: :func:`head_grid` of the translation models on one held-out
  sentence, its words on the axes (Figures 11-12 for our model);
- :func:`jl_figure`: Linformer's random projection: the rank needed against ``n``, the output
  error against the rank (random and trained inputs).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from transformer_theory.papers.conti2024._records import CostRow, ErrorAtBudget
from transformer_theory.papers.conti2024._tasks import BOS
from transformer_theory.plotting import (
    PAGE_WIDTH,
    figure_legend,
    heatmap,
    layer_name,
    legend_outside,
    pyplot,
    save_figure,
)
from transformer_theory.train.seq2seq import Seq2SeqData, decoder_inputs

__all__ = [
    "TIMING_FLOOR",
    "cost_vs_length",
    "error_vs_budget",
    "head_grid",
    "jl_figure",
    "translation_maps",
]

TIMING_FLOOR = 2.0
"""A time within this factor of the fastest call in the records is at the per-call overhead
floor (dispatch, not the attention's work: ``efficient/cost.png`` at n = 64-128 measured 0.46 ms
for ``taylor`` at both lengths): :func:`cost_vs_length` draws it hollow."""

_MARKERS = "os^Dv<>PX*"
_LINESTYLES = ("-", "--", "-.", ":")


def head_grid(
    maps: Sequence[tuple[str, int, np.ndarray]],
    records: Sequence[dict],
    labels: dict[str, tuple[Sequence[str], Sequence[str]]] | None,
    path: str,
    example: int = 0,
) -> str:
    """One panel per head (rows: attention kind and layer; columns: heads).

    Args:
      maps: ``(attention, layer, maps_BxHxQxK)`` triples.
      records: :func:`._theory_heads.classify_model`'s records for them.
      labels: attention -> ``(query labels, key labels)`` for the ticks (None: positions).
      path: the PNG to write.
      example: which of the ``B`` inputs to draw.
    Returns:
      ``path``.
    """
    plt = pyplot()
    by_key = {(r["attention"], r["layer"], r["head"]): r for r in records}
    rows = len(maps)
    cols = max(m.shape[1] for _, _, m in maps)
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 3.0 * rows), squeeze=False)
    for r, (attention, layer, m) in enumerate(maps):
        for h in range(cols):
            ax = axes[r, h]
            if h >= m.shape[1]:
                ax.axis("off")
                continue
            heatmap(fig, ax, np.asarray(m[example, h]), "attention weight", vmin=0)
            rec = by_key.get((attention, layer, h))
            title = f"{attention}, {layer_name(layer)}, head {h + 1}"
            if rec is not None:
                title += f"\n{rec['kind']} ({rec['score']:.2f})"
            ax.set_title(title, fontsize=8)
            q_labels, k_labels = (labels or {}).get(attention, (None, None))
            if q_labels is not None:
                ax.set_yticks(range(len(q_labels)), q_labels, fontsize=6)
                ax.set_xticks(range(len(k_labels)), k_labels, fontsize=6, rotation=90)
            ax.set_xlabel("key position", fontsize=8)
            ax.set_ylabel("query position", fontsize=8)
    return save_figure(fig, path)


def error_vs_budget(records: Sequence[ErrorAtBudget], path: str) -> str:
    """Relative output error against budget, one panel per input source, one line per variant
    (variants without a budget are horizontal lines)."""
    plt = pyplot()
    sources = list(dict.fromkeys(r.inputs for r in records))
    cols = min(3, len(sources))
    rows = -(-len(sources) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(min(5.4 * cols, PAGE_WIDTH), 3.9 * rows), squeeze=False
    )
    for ax in axes.ravel()[len(sources) :]:
        ax.axis("off")
    variants = list(dict.fromkeys(r.variant for r in records))
    for ax, source in zip(axes.ravel(), sources):
        rs = [r for r in records if r.inputs == source]
        for i, variant in enumerate(variants):
            pts = sorted((r.budget, r.error) for r in rs if r.variant == variant)
            if not pts:
                continue
            # One colour, marker and line style per variant, the same in every panel: the window
            # variants coincide at small budgets and must stay told apart.
            style = dict(
                color=f"C{i % 10}",
                ls=_LINESTYLES[i % len(_LINESTYLES)],
                label=variant,
            )
            if pts[0][0] is None:
                ax.axhline(pts[0][1], lw=1, **style)
            else:
                ax.plot(*zip(*pts), marker=_MARKERS[i % len(_MARKERS)], ms=5, mfc="none", **style)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("budget (window / random keys / features / rank)")
        ax.set_ylabel("relative error vs softmax attention")
        ax.set_title(source, fontsize=9)
    figure_legend(fig, list(axes.ravel()[: len(sources)]), ncol=5)
    return save_figure(fig, path)


def cost_vs_length(
    records: Sequence[CostRow],
    slopes: dict[str, dict[str, float]],
    path: str,
    *,
    fit_from: int | None = None,
) -> str:
    """Seconds (left) and XLA bytes (right) against ``n`` on log-log axes, with fitted slopes.

    A time within :data:`TIMING_FLOOR` of the fastest call is drawn hollow: it measures the
    per-call overhead, not the attention, so a slope read through it is noise. ``fit_from``: the
    smallest ``n`` the slopes were fitted over (shaded below it); None leaves it unshaded.
    """
    plt = pyplot()
    from matplotlib.ticker import NullFormatter

    # one panel a row (ten variants' legends beside each): the page's width, readable text
    fig, axes = plt.subplots(2, 1, figsize=(9, 8.4))
    floor = TIMING_FLOOR * min(r.seconds for r in records)
    for i, variant in enumerate(dict.fromkeys(r.variant for r in records)):
        rs = sorted((r for r in records if r.variant == variant), key=lambda r: r.n)
        n = np.array([r.n for r in rs], float)
        for ax, key, y in (
            (axes[0], "seconds", np.array([r.seconds for r in rs], float)),
            (axes[1], "xla_bytes", np.array([r.xla_bytes for r in rs], float)),
        ):
            slope = slopes.get(variant, {}).get(key)
            label = variant if slope is None else f"{variant} (slope {slope:.2f})"
            color, ls = f"C{i % 10}", _LINESTYLES[(i // 10) % len(_LINESTYLES)]
            ax.loglog(n, y, color=color, ls=ls, label=label)
            noisy = y <= floor if key == "seconds" else np.zeros(len(y), bool)
            ax.loglog(n[~noisy], y[~noisy], "o", ms=4, color=color)
            ax.loglog(n[noisy], y[noisy], "o", ms=5, mfc="none", color=color)
    floor_label = f"$\\leq$ {TIMING_FLOOR:g}x the fastest call"
    axes[0].plot([], [], "o", mfc="none", color="gray", label=floor_label)
    axes[0].set_ylabel("seconds per call (median)")
    axes[0].set_title(f"time (hollow: within {TIMING_FLOOR:g}x of the fastest call, overhead)")
    axes[1].set_ylabel("XLA memory (bytes):\narguments + outputs + temporaries")
    axes[1].set_title("memory (XLA's plan for one call)")
    for ax in axes:
        ax.set_xlabel("sequence length $n$")
        ax.xaxis.set_minor_formatter(NullFormatter())  # labelled minor ticks overlapped
        ax.grid(True, which="both", alpha=0.3)
        if fit_from is not None:
            ax.axvspan(min(r.n for r in records), fit_from, color="gray", alpha=0.12, lw=0)
        legend_outside(ax)
    if fit_from is not None:
        axes[0].annotate(
            f"slopes fitted over $n \\geq$ {fit_from}",
            (0.01, 0.98),
            xycoords="axes fraction",
            va="top",
        )
    return save_figure(fig, path)


def jl_figure(result: dict, path: str) -> str:
    """Three panels from :func:`._theory_linformer.jl_study`: the rank ``k'`` needed for the
    corrected row
    bound (failure rate ``<= delta``) against ``n`` (log x, so ``O(log n)`` is a line) beside the
    union bound's and Lemma 2.1's ``k``; the attention output's relative error against ``k'`` on
    random inputs (``P R^T R V``, eq. 17 with ``E = F = R``, mean pooling); the same on trained
    models' attention (empty without ``--run``). Errors are floored at ``1e-3`` (mean pooling at
    ``k' = n`` is exact)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    sc = result["scaling"]
    for kind in sorted({r["kind"] for r in sc["rows"]}):
        rows = [r for r in sc["rows"] if r["kind"] == kind and r["rank_needed"] is not None]
        axes[0].semilogx(
            [r["n"] for r in rows], [r["rank_needed"] for r in rows], "o-", label=f"{kind} P"
        )
    rows = [r for r in sc["rows"] if r["kind"] == sc["rows"][0]["kind"]]
    axes[0].semilogx(
        [r["n"] for r in rows], [r["row_bound_rank"] for r in rows], "k--", label="union bound"
    )
    axes[0].semilogx(
        [r["n"] for r in rows], [r["lemma_rank"] for r in rows], "k:", label="Lemma 2.1, m = 2n"
    )
    axes[0].set(
        xlabel="n", ylabel="k' needed", title=f"row bound eps={sc['eps']}, delta={sc['delta']}"
    )
    styles = {"jl": "o-", "eq17_random": "s--", "pooled": "^:"}
    for kind, rows in result["errors"].items():
        for key, style in styles.items():
            axes[1].loglog(
                [r["rank"] for r in rows],
                [max(r[key], 1e-3) for r in rows],
                style,
                label=f"{kind}: {key}",
            )
    axes[1].set(
        xlabel="k'",
        ylabel=r"$\|Y - PV\| / \|PV\|$",
        title=f"output error, random inputs, n={result['error_len']}",
    )
    for t in result["trained"]:
        for key in ("jl", "pooled"):
            axes[2].semilogy(
                [r["rank"] for r in t["errors"]],
                [max(r[key], 1e-3) for r in t["errors"]],
                styles[key],
                label=f"{t['source']}: {key}",
            )
    axes[2].set(xlabel="k'", ylabel=r"$\|Y - PV\| / \|PV\|$", title="trained attention (mean)")
    for ax in axes:
        if ax.get_legend_handles_labels()[0]:
            legend_outside(ax, fontsize=7)
    return save_figure(fig, path)


def translation_maps(
    words: Sequence[str], data: Seq2SeqData, maps: list, records: list[dict], path: str
) -> str:
    """Figures 11-12 of Conti 2024 for our model: every head's map on the first held-out sentence
    (rows = queries, columns = keys), titled with its kind and score on all the map examples;
    ``words``: the word of every token id (:meth:`._tasks.Translation.words`)."""
    src = [words[t] for t in data.src_eval_BxN[0]]
    tgt_in = [words[t] for t in decoder_inputs(data.tgt_eval_BxT[:1], BOS)[0]]
    labels = {"encoder": (src, src), "decoder": (tgt_in, tgt_in), "cross": (tgt_in, src)}
    return head_grid(maps, records, labels, path, example=0)
