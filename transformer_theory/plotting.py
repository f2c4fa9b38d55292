"""Figures: the one backend selection (:func:`pyplot`), saving (:func:`save_figure`), panel layout
(:func:`panel_grid`) and the learning curves (:func:`learning_curves`) every study shares; each
paper's own figures live in its package (``papers/<paper>/plots.py``). Nothing here computes.
"""

from __future__ import annotations

import math

__all__ = ["learning_curves", "panel_grid", "pyplot", "save_figure"]


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


def save_figure(fig, path: str) -> str:
    """Lay ``fig`` out, write it to ``path`` at 110 dpi, close it; returns ``path``."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)
    return path


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
