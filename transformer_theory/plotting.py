"""Figures: the one backend selection and house style (:func:`pyplot`, :data:`STYLE`), saving
(:func:`save_figure`), panel layout (:func:`panel_grid`), the pieces every figure shares (a
labelled :func:`colorbar` on each heat map, which :func:`heatmap` draws with it;
:func:`legend_outside`, :func:`figure_legend`, :func:`suptitle` wrapped to the figure's width,
:func:`layer_name` numbering layers from 1 as the papers' figures do), the learning curves
(:func:`learning_curves`) every study shares, and the verify report's residuals
(:func:`residuals_by_family`); each paper's own figures live in its package
(``papers/<paper>/plots.py``). Nothing here computes.

Style, shared by every figure of the library, the docs site's and the notebooks': a figure is at
most :data:`PAGE_WIDTH` inches wide (the docs page's column at 110 dpi, so it is never shrunk
below its size), no text smaller than :data:`MIN_FONT` points (:func:`save_figure` raises any
that is), each series of a plot its own colour AND marker (:data:`SERIES`, the axes' property
cycle: twelve lines are twelve different marks, also in grey print), constrained layout (no label
cut off), mathtext for formulas (``$\\|y_n - y'_{n+1}\\|$``, never raw TeX shown as text),
legends beside or below the axes rather than over the data (:func:`legend_outside`,
:func:`figure_legend`), at most two panels a row (:func:`panel_grid`; one a row where each needs
the page's width). ``tests/test_plots.py`` renders every plot function and checks these
properties.
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
    "MIN_FONT",
    "PAGE_WIDTH",
    "SERIES",
    "STYLE",
    "colorbar",
    "figure_legend",
    "heatmap",
    "layer_name",
    "learning_curves",
    "legend_outside",
    "panel_grid",
    "pyplot",
    "readable",
    "residuals_by_family",
    "save_figure",
    "suptitle",
    "use_style",
]

MIN_FONT = 9.0
"""The smallest font of any figure, in points: 9 pt at the saved 110 dpi is 14 pixels, 11 on a
docs page that shows a :data:`PAGE_WIDTH` figure in its 780-pixel column."""

PAGE_WIDTH = 9.0
"""The widest a figure is drawn, in inches (990 pixels at 110 dpi: the docs page's column shows
it at 0.8 of its size, so :data:`MIN_FONT` stays readable)."""

#: Twelve series told apart by colour and by marker (Okabe & Ito's colour-blind-safe seven, then
#: five of matplotlib's tab10), in the order a plot's lines take them. None is grey or black:
#: those are the references' (a bound, a rate, chance), which :func:`readable` draws unmarked.
SERIES: tuple[tuple[str, str], ...] = (
    ("#0072B2", "o"),
    ("#D55E00", "s"),
    ("#009E73", "^"),
    ("#CC79A7", "D"),
    ("#E69F00", "v"),
    ("#56B4E9", "P"),
    ("#17becf", "X"),
    ("#F0E442", "*"),
    ("#8c564b", "<"),
    ("#e377c2", ">"),
    ("#9467bd", "h"),
    ("#bcbd22", "p"),
)


def _series_cycle() -> Any:
    from cycler import cycler

    return cycler(color=[c for c, _ in SERIES]) + cycler(marker=[m for _, m in SERIES])


STYLE: dict[str, Any] = {
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "xtick.labelsize": MIN_FONT,
    "ytick.labelsize": MIN_FONT,
    "legend.fontsize": MIN_FONT,
    "figure.titlesize": 11,
    "lines.markersize": 5,
    "figure.constrained_layout.use": True,
    "image.cmap": "viridis",
    "mathtext.fontset": "dejavusans",
    "text.usetex": False,
    "legend.framealpha": 0.9,
}
"""The rcParams :func:`pyplot` sets: every figure of the library is drawn under them."""


def use_style() -> None:
    """Apply :data:`STYLE` and the :data:`SERIES` cycle to matplotlib's current settings without
    choosing a backend: a notebook calls it once and its inline figures share the library's
    style (:func:`pyplot` calls it too)."""
    import matplotlib

    matplotlib.rcParams.update(STYLE)
    matplotlib.rcParams["axes.prop_cycle"] = _series_cycle()


def pyplot() -> ModuleType:
    """``matplotlib.pyplot`` on the non-interactive Agg backend with :data:`STYLE` applied: the one
    place the library selects a backend (figures are written to files; a notebook shows them with
    ``IPython.display``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    use_style()
    return plt


def panel_grid(
    plt: ModuleType,
    count: int,
    width: float = PAGE_WIDTH / 2,
    height: float = 3.4,
    cols: int = 2,
) -> tuple[Figure, list[Axes]]:
    """A figure of ``count`` panels, at most ``cols`` (two) a row and at most :data:`PAGE_WIDTH`
    wide (unused panels hidden; ``cols=1``: one a row, each the page's width); returns
    ``(fig, axes)`` with ``axes`` a flat list."""
    cols = max(1, min(count, cols))
    rows = math.ceil(count / cols)
    width = min(width, PAGE_WIDTH / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def readable(fig: Figure) -> Figure:
    """``fig`` with every text at least :data:`MIN_FONT` points (titles, labels, ticks, legends,
    annotations), a line of many points marked at about fifteen of them (a marker on each of a
    thousand steps would hide the line), and a grey or black line (a reference: a bound, a rate,
    chance) drawn without the series' markers (a marker-only grey series keeps its marks);
    :func:`save_figure` applies it to every figure."""
    from matplotlib.lines import Line2D
    from matplotlib.text import Text

    for ax in fig.axes:
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            for which, ticks in (
                ("major", axis.get_major_ticks()),
                ("minor", axis.get_minor_ticks()),
            ):
                if ticks and ticks[0].label1.get_fontsize() < MIN_FONT:
                    ax.tick_params(axis=name, which=which, labelsize=MIN_FONT)
    for text in fig.findobj(Text):
        if text.get_fontsize() < MIN_FONT:
            text.set_fontsize(MIN_FONT)
    from matplotlib.colors import to_rgb

    cycle_markers = {m for _, m in SERIES}
    for line in fig.findobj(Line2D):
        r, g, b = to_rgb(line.get_color())
        if r == g == b and line.get_linestyle() not in ("None", "", " "):
            if line.get_marker() in cycle_markers:
                line.set_marker("")
        points = len(line.get_xdata())
        if (
            points > 30
            and line.get_marker() not in (None, "None", "", " ")
            and line.get_markevery() is None
        ):
            line.set_markevery(max(1, points // 15))
    return fig


def save_figure(fig: Figure, path: str) -> str:
    """Make ``fig`` :func:`readable`, lay it out (constrained layout: labels, titles, colorbars
    and outside legends get room on the canvas, nothing cut off at the edges), write it to
    ``path`` at 110 dpi, close it; returns ``path``."""
    readable(fig)
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
