"""Figures: the one backend selection (:func:`pyplot`), saving (:func:`save_figure`), panel layout
(:func:`panel_grid`) and the learning curves (:func:`learning_curves`) every study shares, and the
verify report's residuals (:func:`residuals_by_family`); each paper's own figures live in its
package (``papers/<paper>/plots.py``). Nothing here computes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["learning_curves", "panel_grid", "pyplot", "residuals_by_family", "save_figure"]


def pyplot() -> ModuleType:
    """``matplotlib.pyplot`` on the non-interactive Agg backend: the one place the library selects
    a backend (figures are written to files; a notebook shows them with ``IPython.display``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def panel_grid(
    plt: ModuleType, count: int, width: float = 4.2, height: float = 3.4
) -> tuple[Figure, list[Axes]]:
    """A figure of ``count`` panels, at most four a row (unused panels hidden); returns
    ``(fig, axes)`` with ``axes`` a flat list."""
    cols = min(count, 4)
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def save_figure(fig: Figure, path: str) -> str:
    """Lay ``fig`` out, write it to ``path`` at 110 dpi, close it; returns ``path``."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    pyplot().close(fig)
    return path


def learning_curves(curves: Mapping[str, Sequence[Mapping[str, Any]]], path: str) -> str:
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


def residuals_by_family(verdicts: Sequence[Any], path: str) -> str:
    """``transformer-theory verify``'s figure (Chen & Zou 2024, Props. 7-10): the max residual per
    family on a log scale, one marker per proposition; filled = in scope, hollow = control; bars =
    tolerance. ``verdicts``: records with ``family``, ``proposition``, ``max_residual``,
    ``tolerance`` and ``expected`` (:class:`transformer_theory.theory.checks.Verdict`). Returns
    ``path``."""
    plt = pyplot()
    fams = list(dict.fromkeys(v.family for v in verdicts))
    props = list(dict.fromkeys(v.proposition for v in verdicts))
    markers = dict(zip(props, itertools.cycle("os^Dv<>P")))
    colors = dict(zip(props, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    fig, ax = plt.subplots(figsize=(max(8, 0.7 * len(fams) + 3), 4.8))
    floor = 1e-18
    for v in verdicts:
        x = fams.index(v.family) + (props.index(v.proposition) - (len(props) - 1) / 2) * 0.12
        y = max(v.max_residual, floor)
        face = colors[v.proposition] if v.expected else "none"
        ax.scatter(
            [x],
            [y],
            marker=markers[v.proposition],
            facecolors=face,
            edgecolors=colors[v.proposition],
            s=30,
            zorder=3,
        )
        ax.hlines(v.tolerance, x - 0.06, x + 0.06, colors="k", linewidth=1, zorder=2)
    for p in props:
        ax.scatter(
            [],
            [],
            marker=markers[p],
            color=colors[p],
            label=f"Prop. {p}" if p != "affine" else "affine form",
        )
    ax.scatter(
        [], [], marker="o", facecolors="none", edgecolors="gray", label="control (not expected)"
    )
    ax.hlines([], 0, 0, colors="k", label="tolerance")
    ax.set_yscale("log")
    ax.set_xticks(range(len(fams)))
    ax.set_xticklabels(fams, rotation=35, ha="right")
    ax.set_ylabel("max relative residual")
    ax.set_title("Chen & Zou 2024, Props. 7-10: residuals per family (all datasets)")
    ax.legend(fontsize=7, ncol=2)
    return save_figure(fig, path)
