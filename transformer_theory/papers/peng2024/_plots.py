"""The figures of the function-composition experiments (Peng et al. 2024), through
:func:`transformer_theory.plotting.pyplot` and :func:`~transformer_theory.plotting.save_figure`:
:func:`composition_depth` (held-out error against the bound) and :func:`one_layer` (held-out error
against the width, per depth and evaluation format), :func:`composition_cot` (chain-of-thought steps
needed against Theorem 2's ``sqrt(n / (H d p))``), :func:`one_pass` (trained and constructed
one-layer models against the message bits ``H (d + 1) p``). Nothing here computes.
"""

from __future__ import annotations

from transformer_theory.plotting import SERIES, legend_outside, panel_grid, pyplot, save_figure

__all__ = ["composition_cot", "composition_depth", "one_layer", "one_pass"]


def composition_depth(records: list[dict], path: str) -> str:
    """Held-out error against Peng et al.'s bound, one colour per depth and one marker per
    ``p``; a one-layer point must lie on or above the diagonal."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    markers = {2: "v", 4: "s", 8: "D", 32: "o"}
    for layers, color in ((1, "C0"), (2, "C3")):
        for p, marker in markers.items():
            rows = [r for r in records if r["layers"] == layers and r["p"] == p]
            if rows:
                ax.scatter(
                    [r["bound"] for r in rows],
                    [r["error"] for r in rows],
                    c=color,
                    marker=marker,
                    label=f"{layers} layer(s), p = {p}",
                )
    top = max(r["chance_error"] for r in records)
    ax.plot([0, top], [0, top], "k--", lw=0.8, label="error = bound")
    ax.axhline(top, c="gray", ls="-.", lw=0.8, label="chance")
    r0 = records[0]
    ax.set(
        xlabel="Peng et al. bound R / (3 n log n)",
        ylabel="held-out error",
        title=f"g(f(a)), n = {r0['n']}, H = {sorted({r['heads'] for r in records})}, "
        f"d = {sorted({r['d'] for r in records})}",
    )
    legend_outside(ax, fontsize=7)
    return save_figure(fig, path)


def one_layer(records: list[dict], path: str) -> str:
    """Held-out error against the width ``d``, one line per (depth, format), and the one-layer
    bound per format dashed."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    formats = list(dict.fromkeys(r["format"] for r in records))
    for depth in sorted({r["layers"] for r in records}):
        for name in formats:
            rows = [r for r in records if r["layers"] == depth and r["format"] == name]
            ax.plot(
                [r["d"] for r in rows],
                [r["error"] for r in rows],
                "o-",
                label=f"{depth} layer(s), {name}",
            )
    for name in formats:
        rows = [r for r in records if r["layers"] == 1 and r["format"] == name]
        if rows:
            ax.plot(
                [r["d"] for r in rows],
                [r["bound"] for r in rows],
                "k--",
                alpha=0.5,
                label=f"Peng et al. bound, p = {rows[0]['p']}",
            )
    ax.set(
        xscale="log",
        xlabel=f"width d (H = {records[0]['heads']})",
        ylabel="held-out error",
        title=f"g(f(a)), n = {records[0]['n']}",
    )
    legend_outside(ax, fontsize=7)
    return save_figure(fig, path)


def _marks(keys: list) -> dict:
    """A marker per key (a point's second variable), in :data:`SERIES`'s order: drawn black in
    the legend, the colour being the first variable's."""
    return {k: SERIES[i % len(SERIES)][1] for i, k in enumerate(keys)}


def composition_cot(summary: list[dict], path: str) -> str:
    """CoT steps a one-layer model needed for the target accuracy against ``sqrt(n / (H d p))``:
    a colour per ``(H, d, p)``, a marker per ``n`` (no labels beside the points, which overlapped
    where the points crowd); a cell where no stride reached the target is drawn hollow above the
    most steps tried."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    top = max(max(r["steps_tried"]) for r in summary) + 1
    cells = sorted({(r["heads"], r["d"], r["p"]) for r in summary})
    marks = _marks(sorted({r["n"] for r in summary}))
    for i, (h, d, p) in enumerate(cells):
        color = SERIES[i][0]
        for r in (r for r in summary if (r["heads"], r["d"], r["p"]) == (h, d, p)):
            reached = r["steps_needed"] is not None
            ax.scatter(
                r["cot_bound"],
                r["steps_needed"] if reached else top,
                c=color if reached else "none",
                edgecolors=color,
                marker=marks[r["n"]],
                s=50,
                zorder=3,
            )
        ax.scatter([], [], c=color, marker="s", label=f"H = {h}, d = {d}, p = {p}")
    for n, marker in marks.items():
        ax.scatter([], [], c="k", marker=marker, label=f"n = {n}")
    ax.axhline(top, c="gray", ls=":", lw=0.8, label="target not reached (hollow)")
    ax.margins(x=0.1)
    ax.set(
        xlabel=r"$\sqrt{n / (H d p)}$",
        ylabel=f"CoT steps for accuracy $\\geq$ {summary[0]['target']}",
        title=f"iterated composition of K = {summary[0]['functions']} functions, one layer",
        ylim=(0, top + 0.5),
    )
    legend_outside(ax)
    return save_figure(fig, path)


def one_pass(records: list[dict], built: list[dict], path: str) -> str:
    """Held-out error of one-pass models against their message bits ``H (d + 1) p`` (log scale),
    one panel a row per ``n``: trained models by ``p`` (colour) and ``(H, d)`` (marker; hollow: the
    run had not converged), the hand-built model (a star at error 0, its budget), Peng et al.'s
    bound as a function of the bits (0 from ``n log2 n`` on), chance and the error of guessing
    ``g``'s most frequent value."""
    import math

    plt = pyplot()
    ns = sorted({r["n"] for r in records})
    fig, axes = panel_grid(plt, len(ns), width=8.0, height=4.2, cols=1)  # legend beside each
    for ax, n in zip(axes, ns):
        rows = [r for r in records if r["n"] == n]
        bits = [r["heads"] * (r["d"] + 1) * r["p"] for r in rows]
        made = [b for b in built if b["n"] == n and b["construction_bits"]]
        nlogn = n * math.log2(n)
        hi = max(bits + [b["construction_bits"] for b in made] + [nlogn]) * 2
        lo = min(bits + [nlogn]) / 2
        marks = _marks(sorted({(r["heads"], r["d"]) for r in rows}))
        for i, p in enumerate(sorted({r["p"] for r in rows})):
            color = SERIES[i][0]
            for r, b in zip(rows, bits):
                if r["p"] == p:
                    ax.scatter(
                        b,
                        r["error"],
                        marker=marks[(r["heads"], r["d"])],
                        s=50,
                        c=color if r["converged"] else "none",
                        edgecolors=color,
                        zorder=3,
                    )
            label = f"trained, p = {p}" if p < 32 else "trained, float32"
            ax.scatter([], [], c=color, marker="s", label=label)
        for (h, d), marker in marks.items():
            ax.scatter([], [], c="k", marker=marker, label=f"H = {h}, d = {d}")
        for b in made:
            ax.scatter(
                b["construction_bits"],
                0.0,
                marker="*",
                s=120,
                c="k",
                label=f"built (ours), p = {b['bits']}",
            )
        xs = [lo * (hi / lo) ** (k / 200) for k in range(201)]
        ax.plot(
            xs,
            [max(0.0, (nlogn - x) / (3 * nlogn)) for x in xs],
            "k--",
            lw=1,
            label="Peng et al. bound R / (3 n log n)",
        )
        ax.axvline(nlogn, c="gray", ls=":", lw=0.8, label=r"$n \log_2 n$ bits")
        ax.axhline(rows[0]["chance_error"], c="gray", ls="-.", lw=0.8, label="chance")
        mode = sum(r["mode_error"] for r in rows) / len(rows)
        ax.axhline(mode, c="C7", ls="--", lw=0.8, label="guess g's most frequent value")
        ax.set(
            xscale="log",
            xlim=(lo, hi),
            ylim=(-0.05, 1.0),
            xlabel="message bits H (d + 1) p",
            ylabel="held-out error, g(f(x))",
            title=f"one layer, one pass, n = {n} (hollow: not converged)",
        )
        legend_outside(ax)
    return save_figure(fig, path)
