"""Figures: the one backend selection and house style (:func:`pyplot`, :data:`STYLE`), saving
(:func:`save_figure`), panel layout (:func:`panel_grid`), the pieces every figure shares (a
labelled :func:`colorbar` on each heat map, which :func:`heatmap` draws with it;
:func:`legend_outside`, :func:`figure_legend`, :func:`suptitle` wrapped to the figure's width,
:func:`layer_name` numbering layers from 1 as the papers' figures do), the learning curves
(:func:`learning_curves`) every study shares, and the verify report's residuals
(:func:`residuals_by_family`); each paper's own figures live in its package
(``papers/<paper>/plots.py``). Nothing here computes.

Style: readable sizes, constrained layout (no label cut off), mathtext for formulas
(``$\\|y_n - y'_{n+1}\\|$``, never raw TeX shown as text), legends beside the axes rather than
over the data. ``tests/test_plots.py`` renders every plot function and checks these properties.
"""

from __future__ import annotations

import itertools
import math
import textwrap
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.cm import ScalarMappable
    from matplotlib.colorbar import Colorbar
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend
    from matplotlib.text import Text

__all__ = [
    "STYLE",
    "colorbar",
    "figure_legend",
    "heatmap",
    "layer_name",
    "learning_curves",
    "legend_outside",
    "panel_grid",
    "pyplot",
    "residuals_by_family",
    "save_figure",
    "suptitle",
]

STYLE: dict[str, Any] = {
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 8,
    "figure.titlesize": 11,
    "figure.constrained_layout.use": True,
    "image.cmap": "viridis",
    "mathtext.fontset": "dejavusans",
    "text.usetex": False,
    "legend.framealpha": 0.9,
}
"""The rcParams :func:`pyplot` sets: every figure of the library is drawn under them."""


def pyplot() -> ModuleType:
    """``matplotlib.pyplot`` on the non-interactive Agg backend with :data:`STYLE` applied: the one
    place the library selects a backend (figures are written to files; a notebook shows them with
    ``IPython.display``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(STYLE)
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
    """Lay ``fig`` out (constrained layout: labels, titles, colorbars and outside legends get room
    on the canvas, nothing cut off at the edges), write it to ``path`` at 110 dpi, close it;
    returns ``path``."""
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")
    from transformer_theory.jsonio import write_figure

    try:
        write_figure(fig, path, dpi=110)  # atomic: a full disk leaves no truncated image
    finally:
        pyplot().close(fig)
    return path


def colorbar(fig: Figure, ax: Axes, image: ScalarMappable, label: str) -> Colorbar:
    """A colorbar for ``image`` (what ``ax.imshow`` returned) beside ``ax``, labelled ``label``:
    every heat map of the library has one."""
    bar = fig.colorbar(image, ax=ax, shrink=0.9)
    bar.set_label(label)
    return bar


def heatmap(fig: Figure, ax: Axes, values: Any, label: str, **imshow_kwargs: Any) -> ScalarMappable:
    """``values`` (rows x columns) drawn on ``ax`` with a colorbar labelled ``label`` and integer
    position ticks (rows = queries, columns = keys for an attention map); returns the image."""
    from matplotlib.ticker import MaxNLocator

    image = ax.imshow(values, **imshow_kwargs)
    colorbar(fig, ax, image, label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return image


def layer_name(index: int) -> str:
    """``"layer 1"`` for the first layer (``index`` counts from 0, as the code does; the papers'
    figures count from 1: Chen & Zou 2024, Figure 3's "layer 1")."""
    return f"layer {index + 1}"


def legend_outside(ax: Axes, **kwargs: Any) -> Legend:
    """``ax``'s legend to the right of the axes, where it covers no data (constrained layout
    makes room for it)."""
    options = dict(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return ax.legend(**{**options, **kwargs})


def figure_legend(fig: Figure, axes: Sequence[Axes], ncol: int = 3) -> Legend | None:
    """One legend below all ``axes`` for panels that share their entries (each label once, in
    order of appearance); None when no axes has a labelled artist."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if not handles:
        return None
    return fig.legend(
        list(handles.values()),
        list(handles),
        loc="outside lower center",
        ncol=min(ncol, len(handles)),
    )


def suptitle(fig: Figure, text: str) -> Text:
    """``fig``'s title, wrapped to the figure's width (a long title is never clipped)."""
    size = pyplot().rcParams["figure.titlesize"]
    points = size if isinstance(size, (int, float)) else 11.0
    chars = max(20, int(fig.get_figwidth() * 72 / (0.55 * points)))
    return fig.suptitle("\n".join(textwrap.wrap(text, chars)))


def learning_curves(curves: Mapping[str, Sequence[Mapping[str, Any]]], path: str) -> str:
    """Held-out accuracy (left) and loss (right) against steps, one line per run."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for name, rows in curves.items():
        steps = [r["step"] for r in rows]
        axes[0].plot(steps, [r["eval_acc"] for r in rows], label=name)
        axes[1].plot(steps, [r["eval_loss"] for r in rows], label=name)
    axes[0].set_ylabel("held-out token accuracy\n(teacher forcing)")
    axes[1].set_ylabel("held-out loss")
    axes[1].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("step")
    figure_legend(fig, axes)
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
    ax.set_xlabel("family")
    ax.set_ylabel("max relative residual")
    ax.set_title("Chen & Zou 2024, Props. 7-10: residuals per family (all datasets)")
    legend_outside(ax)
    return save_figure(fig, path)
