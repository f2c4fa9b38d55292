"""The figures of the n-gram study (``ngram_precision.png``, ``ngram_soft.png``), drawn from the
records of the ngram experiments; nothing here computes a result.

- :func:`precision_figure`: 3.1/3.2's score gap against each format's rounding, and 3.3-slots'
  largest intermediate against ``2^p``, with each model's first failing position dashed.
- :func:`soft_figure`: softmax's KL against ``beta``, and the ``beta`` a target KL needs against
  the string length.
- :func:`space_figure`: the built models' width, non-zero weights and stored numbers against
  ``n`` and ``|Sigma|`` (:func:`._theory_space.space_table`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from transformer_theory.jsonio import ABSENT
from transformer_theory.papers.svete_cotterell2024._records import ModelRecord, SoftRow
from transformer_theory.plotting import legend_outside, pyplot, save_figure, suptitle
from transformer_theory.precision import PRECISION_COLOR, PRECISIONS, significand_bits

__all__ = ["precision_figure", "soft_figure", "space_figure"]


def precision_figure(records: Sequence[ModelRecord], path: str) -> str | None:
    """Two panels from the hard/sparse records with a scan (the paper's 3.3 left out: it has no
    derived bound): left, :func:`~._constructions.score_gap` against ``10u`` of each format
    (3.1/3.2); right, :func:`~._theory_precision.window_budget` against ``2^p`` (3.3-slots). A
    dashed line marks each record's first failing position. Returns ``path``, or None (nothing
    written) when no record has a scan."""
    from transformer_theory.papers.svete_cotterell2024._constructions import score_gap
    from transformer_theory.papers.svete_cotterell2024._theory_precision import window_budget

    records = [r for r in records if r.scan is not ABSENT and r.construction != "3.3"]
    if not records:
        return None
    plt = pyplot()
    w = records[0].order - 1
    t = np.unique(np.logspace(0, 6, 300).astype(int))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    axes[0].loglog(t, score_gap(t), "k-", label=r"gap $1 - \langle u(t), u(t \pm 1)\rangle$")
    axes[1].loglog(t, [window_budget(x, w) for x in t], "k-", label=r"$\sum_k |c_k|\, t^k$")
    for precision in PRECISIONS:
        bits = significand_bits(precision)
        color = PRECISION_COLOR[precision]
        axes[0].axhline(10 * 2.0**-bits, color=color, ls=":", label=f"$10u$, {precision}")
        axes[1].axhline(2.0**bits, color=color, ls=":", label=f"$2^p$, {precision}")
    for r in records:
        pos = r.scan["first_failing_position"]
        if pos is None:
            continue
        ax = axes[1] if r.construction == "3.3-slots" else axes[0]
        ax.axvline(pos + 1, color=PRECISION_COLOR[r.precision], ls="--", alpha=0.7)
    axes[0].set(
        xlabel="position t",
        ylabel="score gap",
        title="3.1/3.2: gap vs rounding (dashed: first failure)",
    )
    axes[1].set(
        xlabel="position t",
        ylabel="largest intermediate",
        title="3.3-slots: exact integers while below $2^p$",
    )
    for ax in axes:
        legend_outside(ax, fontsize=7)
    return save_figure(fig, path)


def soft_figure(soft: Sequence[SoftRow], path: str) -> str:
    """Two panels from :func:`._theory_soft.soft_study`'s rows: the KL against
    ``beta`` (log-log, KL floored at 1e-18), and the ``beta`` the target KL needs against the
    string length."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for row in soft:
        kls = [max(c.kl, 1e-18) for c in row.kl_by_beta]
        betas = [c.beta for c in row.kl_by_beta]
        axes[0].loglog(betas, kls, "o-", label=row.construction)
        pts = [n for n in row.beta_needed if n.beta is not None]
        axes[1].loglog(
            [max(n.length, 1) for n in pts],
            [n.beta for n in pts],
            "o-",
            label=row.construction,
        )
    axes[0].set(
        xlabel=r"$\beta$", ylabel="KL, first max-len+1 outcomes", title="softmax: KL from n-gram"
    )
    axes[1].set(
        xlabel="max string length",
        ylabel=r"$\beta$ for the target KL",
        title=rf"$\beta$ needed for KL $\leq$ {soft[0].target_kl:g}",
    )
    for ax in axes:
        legend_outside(ax)
    return save_figure(fig, path)


_SPACE_NAMES = {"alphabet": r"$|\Sigma|$", "order": "$n$"}


def space_figure(records: list[dict], path: str) -> str:
    """Three panels from :func:`._theory_space.space_table`'s records (log scale): the width
    against ``n``
    at the largest ``|Sigma|``, the non-zero structural weights against ``|Sigma|`` at the largest
    ``n``, and the stored numbers against ``n``; each beside the n-gram's own table ``(|Sigma| +
    1) A`` (dashed: the log-probabilities every construction stores). Theorem 5.1's bound is not
    printed in the seeds, so no bound is drawn."""
    plt = pyplot()
    S_max = max(r["alphabet"] for r in records)
    n_max = max(r["order"] for r in records)
    names = list(dict.fromkeys(r["construction"] for r in records))
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    panels = (
        (axes[0], "order", "alphabet", S_max, "width"),
        (axes[1], "alphabet", "order", n_max, "nonzero_structural"),
        (axes[2], "order", "alphabet", S_max, "params"),
    )
    for ax, x_key, fixed_key, fixed, y_key in panels:
        rows = [r for r in records if r[fixed_key] == fixed]
        for name in names:
            mine = sorted((r[x_key], r[y_key]) for r in rows if r["construction"] == name)
            style = "o-" if name in ("3.1", "3.2", "3.3") else "s--"
            ax.semilogy(*zip(*mine, strict=True), style, label=name)
        ref = sorted({(r[x_key], r["table"]) for r in rows if r["construction"] == names[0]})
        ax.semilogy(*zip(*ref, strict=True), "k:", label=r"n-gram table $(|\Sigma|+1)\,A$")
        ax.set(
            xlabel="$n$" if x_key == "order" else r"$|\Sigma|$",
            ylabel=y_key.replace("_", " "),
            title=f"{y_key.replace('_', ' ')} ({_SPACE_NAMES[fixed_key]} = {fixed})",
        )
        legend_outside(ax, fontsize=7)
    suptitle(fig, "built sizes (Theorem 5.1's bound is not printed in the seeds)")
    return save_figure(fig, path)
