"""Conti 2024's figures, drawn from the studies' records (nothing computed here).

- :func:`head_grid`: every head's attention map on one input, titled with its kind and score
  (Conti 2024, Figures 11-12);
- :func:`error_vs_budget`: efficient attention's output error against its budget;
- :func:`cost_vs_length`: time and memory against sequence length, log-log, with fitted slopes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from transformer_theory.plotting import pyplot, save_figure

__all__ = ["cost_vs_length", "error_vs_budget", "head_grid"]


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
      records: :func:`~transformer_theory.papers.conti2024.heads.classify_model`'s records for them.
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


def error_vs_budget(records: Sequence[dict], path: str) -> str:
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


def cost_vs_length(records: Sequence[dict], slopes: dict[str, dict[str, float]], path: str) -> str:
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
