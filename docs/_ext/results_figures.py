"""Sphinx extension: each paper's figures, drawn at build time from the committed results.

``experiments/results/*.json|csv`` are the committed summary records of the long runs (shipped
with the package as ``transformer_theory/_results``). At ``builder-inited`` every figure of
:data:`FIGURES` is drawn from its record into ``docs/_generated/`` (ignored by git) with the
library's own plotting functions (``transformer_theory.papers.<paper>.plots`` where one draws the
record; otherwise a few lines on :func:`transformer_theory.plotting.pyplot`), so a page shows what
its committed record says and nothing else. ``committed-figures`` (option ``:paper:``) places a
paper's figures, each with a caption naming the record and the command that produced it::

    ```{committed-figures}
    :paper: peng2024
    ```
"""

from __future__ import annotations

import csv
import dataclasses
import importlib
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
RESULTS = ROOT / "experiments" / "results"
OUT = DOCS / "_generated"


def _plots(paper: str, name: str) -> Callable[..., str]:
    """A paper's plotting function: exported by its package, or in its ``plots`` module (public or
    private, whichever the package has)."""
    package = importlib.import_module(f"transformer_theory.papers.{paper}")
    places = [package]
    for module in ("plots", "_plots"):
        try:
            places.append(importlib.import_module(f"transformer_theory.papers.{paper}.{module}"))
        except ModuleNotFoundError:
            continue
    for place in places:
        found = getattr(place, name, None)
        if callable(found) and not inspect.ismodule(found):  # not a submodule of that name
            return found
    raise AttributeError(f"transformer_theory.papers.{paper} has no plotting function {name!r}")


def _read(name: str) -> Any:
    path = RESULTS / name
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    return json.loads(path.read_text(encoding="utf-8"))


def _command(data: Any, default: str) -> str:
    """The command the record says produced it (its provenance), else ``default``."""
    if isinstance(data, dict):
        provenance = data.get("provenance")
        if isinstance(provenance, dict) and provenance.get("command"):
            return provenance["command"]
        for key in ("command", "produced_by"):
            if isinstance(data.get(key), str):
                return data[key]
    return default


def _depth_accuracy(rows: list[dict], path: str) -> str:
    """Chen & Zou's Figure 2 from its aggregate: held-out accuracy (mean over seeds, min-max bars)
    against depth, one panel per task, chance dashed."""
    from transformer_theory.plotting import (
        figure_legend,
        panel_grid,
        pyplot,
        save_figure,
        suptitle,
    )

    plt = pyplot()
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    fig, axes = panel_grid(plt, len(tasks), height=3.2)
    for ax, task in zip(axes, tasks):
        mine = [r for r in rows if r["task"] == task]
        depth = [int(r["depth"]) for r in mine]
        mean = [float(r["acc_mean"]) for r in mine]
        low = [m - float(r["acc_min"]) for m, r in zip(mean, mine)]
        high = [float(r["acc_max"]) - m for m, r in zip(mean, mine)]
        ax.errorbar(depth, mean, yerr=[low, high], marker="o", capsize=3, label="mean (min-max)")
        ax.axhline(float(mine[0]["chance"]), color="gray", ls="--", lw=1, label="chance")
        ax.set(title=task, xlabel="layers", xticks=depth, ylim=(0, 1.05))
        ax.set_ylabel("held-out accuracy")
    figure_legend(fig, axes)
    suptitle(fig, "mean over seeds, bars from the worst to the best seed")
    return save_figure(fig, path)


def _depth_accuracy_runs(rows: list[dict], path: str) -> str:
    """Chen & Zou's Figure 2 at the paper's sizes from the sweep's summary, one row per run
    (``fig2_paper_summary.csv``): every seed's held-out accuracy against depth (a dot each), their
    mean joined by a line, chance dashed; one panel per task, the optimizer and learning rate in
    its title."""
    from transformer_theory.plotting import (
        SERIES,
        figure_legend,
        panel_grid,
        pyplot,
        save_figure,
        suptitle,
    )

    plt = pyplot()
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    fig, axes = panel_grid(plt, len(tasks), height=3.2)
    seeds = sorted({int(r["seed"]) for r in rows})
    for ax, task in zip(axes, tasks):
        mine = [r for r in rows if r["task"] == task]
        depths = sorted({int(r["depth"]) for r in mine})
        mean = [
            sum(float(r["final_eval_acc"]) for r in mine if int(r["depth"]) == d)
            / sum(1 for r in mine if int(r["depth"]) == d)
            for d in depths
        ]
        ax.plot(depths, mean, color="black", lw=1.2, label="mean over seeds")
        for i, seed in enumerate(seeds):
            runs = sorted(
                (int(r["depth"]), float(r["final_eval_acc"]))
                for r in mine
                if int(r["seed"]) == seed
            )
            color, marker = SERIES[i]
            offset = (i - (len(seeds) - 1) / 2) * 0.08  # seeds side by side at each depth
            ax.plot(
                [d + offset for d, _ in runs],
                [a for _, a in runs],
                ls="none",
                color=color,
                marker=marker,
                label=f"seed {seed}",
            )
        ax.axhline(float(mine[0]["chance"]), color="gray", ls="--", lw=1, label="chance")
        lr = mine[0]["learning_rate"]
        ax.set(
            title=f"{task} ({mine[0]['optimizer']}, lr {lr})",
            xlabel="layers",
            xticks=depths,
            ylim=(-0.03, 1.05),
            ylabel="held-out accuracy",
        )
    figure_legend(fig, axes, ncol=5)
    suptitle(fig, f"{len(rows)} runs at the paper's sizes: each seed's final held-out accuracy")
    return save_figure(fig, path)


def _ngram_kl(data: dict, path: str) -> str:
    """Svete & Cotterell: KL per symbol of the trained model and of the unigram baseline from the
    n-gram model, per cell (order, alphabet, rank)."""
    import numpy as np

    from transformer_theory.plotting import legend_outside, pyplot, save_figure

    plt = pyplot()
    rows = data["rows"]
    labels = [f"n={r['order']}, |S|={r['alphabet']}\nrank {r['rank']}" for r in rows]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(9, 3.8))
    ax.bar(x - 0.2, [r["kl_per_symbol_trained"] for r in rows], 0.4, label="trained transformer")
    ax.bar(x + 0.2, [r["kl_per_symbol_unigram"] for r in rows], 0.4, label="unigram baseline")
    ax.set(
        ylabel="KL per symbol (nats)",
        xlabel="cell: n-gram order n, alphabet size |S|, rank",
        yscale="log",
        xticks=x,
    )
    ax.set_xticklabels(labels)
    legend_outside(ax)
    return save_figure(fig, path)


def _encdec(data: dict, path: str) -> str:
    """Conti 2024's encoder-decoder (``experiments/encdec_translation.py``'s committed summary):
    held-out exact match per decoding (greedy, beams 1, 2, 4, with and without the <eos> length
    penalty) per model, beside the heads each model has of each kind, on the original sentences
    and with the source words permuted."""
    import numpy as np

    from transformer_theory.plotting import SERIES, legend_outside, pyplot, save_figure

    plt = pyplot()
    rows = data["rows"]
    decodings = ["greedy", "beam1", "beam2", "beam4", "beam1_eos", "beam2_eos", "beam4_eos"]
    kinds = ["positional", "syntactic", "rare_token", "other", "empty"]
    fig, axes = plt.subplots(2, 1, figsize=(9, 6.8))
    x = np.arange(len(decodings))
    width = 0.8 / len(rows)
    for i, r in enumerate(rows):
        values = [r[f"{d}_exact_match"] for d in decodings]
        offset = (i - (len(rows) - 1) / 2) * width
        axes[0].bar(x + offset, values, width, color=SERIES[i][0], label=r["model"])
    axes[0].set_xticks(x, [d.replace("_eos", "\n+ <eos>\npenalty") for d in decodings])
    axes[0].set(ylabel="held-out exact match", ylim=(0, 1.05), xlabel="decoding")
    axes[0].set_title(f"{rows[0]['heldout']:,} held-out sentences")
    labels = [f"{r['model']}\n{order}" for r in rows for order in ("original", "permuted")]
    bottom = np.zeros(len(labels))
    for j, kind in enumerate(kinds):
        counts = [
            r[f"heads_{kind}" if order == "original" else f"heads_permuted_{kind}"]
            for r in rows
            for order in ("original", "permuted")
        ]
        color = SERIES[len(rows) + j][0]
        axes[1].bar(labels, counts, bottom=bottom, color=color, label=kind.replace("_", "-"))
        bottom += counts
    axes[1].set(ylabel="heads of each kind\n(encoder, decoder, cross)", xlabel="model, source")
    for ax in axes:
        legend_outside(ax)
    return save_figure(fig, path)


def _rasp_tracr(data: dict, path: str) -> str:
    """The RASP compiler beside tracr (``experiments/rasp_tracr.py``'s committed record): the
    compiled layers and residual width per program, each compiler's; then ``frac_prevs``
    compiled for growing lengths in float32: tracr's largest output error and wrong inputs
    against ours (none wrong)."""
    import numpy as np

    from transformer_theory.plotting import SERIES, legend_outside, pyplot, save_figure

    plt = pyplot()
    programs = data["programs"]
    names = [p["program"] for p in programs]
    fig, axes = plt.subplots(3, 1, figsize=(9, 10.5))
    x = np.arange(len(names))
    for ax, key, label in (
        (axes[0], "layers", "layers"),
        (axes[1], "residual_width", "residual width"),
    ):
        for i, who in enumerate(("tracr", "ours")):
            values = [p[key][who] for p in programs]
            name = "tracr" if who == "tracr" else "this library"
            ax.bar(x + (i - 0.5) * 0.4, values, 0.4, color=SERIES[i][0], label=name)
        ax.set_xticks(x, names, rotation=35, ha="right")
        ax.set(ylabel=label, xlabel="program")
        legend_outside(ax)
    rows = data["failure_lengths"]["frac_prevs"]["rows"]
    n = [r["compiled_for"] for r in rows]
    axes[2].semilogy(n, [r["tracr_max_abs_error"] for r in rows], label="tracr: largest error")
    wrong = [r["compiled_for"] for r in rows if r["tracr_wrong_inputs"]]
    axes[2].axvline(min(wrong), color="gray", ls=":", label="tracr: first wrong input")
    axes[2].set(xlabel="max_seq_len compiled for", ylabel="largest output error (float32)")
    axes[2].set_title("frac_prevs: this library's compiled model is right on every input")
    legend_outside(axes[2])
    return save_figure(fig, path)


@dataclasses.dataclass(frozen=True)
class Figure:
    """One figure: the record it is drawn from, how, the caption's words and, where the record
    does not name it, the command that wrote the record."""

    name: str
    paper: str
    record: str
    draw: Callable[[Any, str], str]
    drawn_by: str
    caption: str
    command: str = ""


def _peng(name: str) -> Callable[..., str]:
    return lambda *args: _plots("peng2024", name)(*args)


def _barbero(name: str) -> Callable[..., str]:
    return lambda *args: _plots("barbero2024", name)(*args)


def _conti(name: str) -> Callable[..., str]:
    """Conti 2024's plotting function ``name`` (its package exports the studies of the same
    names, which compute; the figures are in ``_plots``)."""
    return lambda *args, **kw: getattr(
        importlib.import_module("transformer_theory.papers.conti2024._plots"), name
    )(*args, **kw)


def _conti_rows(kind: str, rows: list) -> list:
    """The committed ``rows`` as Conti 2024's typed records ``kind`` (``CostRow``,
    ``ErrorAtBudget``: what its plots read)."""
    from transformer_theory import jsonio

    records = importlib.import_module("transformer_theory.papers.conti2024._records")
    return jsonio.from_jsonable(list[getattr(records, kind)], rows)


def _sanford_study(file: str) -> Callable[[Any, str], str]:
    """One of the figures ``transformer-theory sanford`` draws (``study_figures`` writes them all
    into a folder): ``file`` of them, moved to the page's path."""

    def draw(data: dict, path: str) -> str:
        import shutil
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            written = _plots("sanford2023", "study_figures")(data["records"], tmp)
            (mine,) = [p for p in written if Path(p).name == file]
            shutil.move(mine, path)
        return path

    return draw


FIGURES = [
    Figure(
        "fig2_paper",
        "chen_zou2024",
        "fig2_paper_summary.csv",
        _depth_accuracy_runs,
        "a few lines on transformer_theory.plotting (docs/_ext/results_figures.py)",
        "Figure 2 at the paper's sizes (§9.1): held-out accuracy against depth on the four "
        "tasks, 4 tasks x depths 1-4 x 3 seeds = 48 runs, Adam with early stopping (contextual "
        "generalization capped at 3,000 steps at depths 1-2 and 8,000 at depths 3-4; the user "
        "guide's Results give the table). One layer memorizes and is at chance on the other "
        "three tasks; two layers reason and generalize; contextual generalization needs three "
        "(two sit at 1/2, one of the two context answers).",
        "transformer-theory train --experiment fig2_paper --out results/fig2_paper, then "
        "python experiments/fig2_paper_table.py results/fig2_paper",
    ),
    Figure(
        "fig2_depth",
        "chen_zou2024",
        "fig2_quick_aggregate.csv",
        _depth_accuracy,
        "a few lines on transformer_theory.plotting (docs/_ext/results_figures.py)",
        "Figure 2 at quick size (a second, smaller run: the quick sizes, 3 seeds): held-out "
        "accuracy against depth on the four tasks, mean over seeds with the worst and best seed.",
        "transformer-theory train --experiment fig2_depth --size quick --seeds 0 1 2 "
        "--out results/fig2_quick",
    ),
    Figure(
        "sanford_qsa",
        "sanford2023",
        "sanford2023_constructions.json",
        _sanford_study("qsa_m_min.png"),
        "transformer_theory.papers.sanford2023 study_figures",
        "q-sparse averaging (Sanford et al. 2023, Theorem 2's construction, eps = 0.1, d' = 2): "
        "the smallest number of rows m of U that reaches eps on every q-subset, and the "
        "fraction bits of w it needs against the proof's choice, for N = 8, 16, 32 and q = 1, 2 "
        "(the Results section's table).",
    ),
    Figure(
        "sanford_match2",
        "sanford2023",
        "sanford2023_constructions.json",
        _sanford_study("match2_precision.png"),
        "transformer_theory.papers.sanford2023 study_figures",
        "Match2's exact construction (query/key width 3, M = N^2) in each float format: float64 "
        "is exact at every N = 4, 8, 16, 32, 64; float32 up to M = 1,024 and 0.915 at M = 4,096; "
        "the 16-bit formats fail early, as the scale c = M^2 log 6N outgrows their precision.",
    ),
    Figure(
        "peng_composition_bound",
        "peng2024",
        "peng2024_composition_bound.json",
        lambda d, p: _peng("composition_depth")(d["records"], p),
        "transformer_theory.papers.peng2024 composition_depth",
        "One-layer held-out error on g(f(a)) against Peng et al.'s bound (a one-layer point must "
        "lie on or above the diagonal).",
    ),
    Figure(
        "peng_composition_cot",
        "peng2024",
        "peng2024_composition_cot.json",
        lambda d, p: _peng("composition_cot")(d["summary"], p),
        "transformer_theory.papers.peng2024 composition_cot",
        "Chain-of-thought steps a one-layer model needed for the target accuracy, against "
        "Theorem 2's sqrt(n / (H d p)).",
    ),
    Figure(
        "peng_composition_one_pass",
        "peng2024",
        "peng2024_composition_one_pass.json",
        lambda d, p: _peng("one_pass")(d["records"], d["construction"], p),
        "transformer_theory.papers.peng2024 one_pass",
        "One-pass composition: held-out error of trained and hand-built one-layer models against "
        "their message bits H (d + 1) p.",
    ),
    Figure(
        "languages_generalization",
        "formal_languages",
        "languages_generalization_seeds012.json",
        lambda d, p: _plots("formal_languages", "generalization")(d["records"], p),
        "transformer_theory.papers.formal_languages generalization",
        "Length generalization: accuracy against string length per language and model (mean "
        "over seeds 0, 1, 2); the dotted line is the longest training length.",
    ),
    Figure(
        "ngram_learnability",
        "svete_cotterell2024",
        "ngram_learnability.json",
        _ngram_kl,
        "a few lines on transformer_theory.plotting (docs/_ext/results_figures.py)",
        "A trained transformer's distance (KL per symbol) from the n-gram model it learns, "
        "against the unigram baseline's, per cell.",
    ),
    Figure(
        "barbero_collapse",
        "barbero2024",
        "barbero2024_collapse.json",
        _barbero("plot_collapse"),
        "transformer_theory.papers.barbero2024 plot_collapse",
        "Representational collapse: the distance between the last-token representations of "
        "1...1 0 and 1...1 0 0 against n, per depth and positional code, float64, lengths 2 to "
        "8,192 (the Results section's run A, re-run for this record). Each panel's "
        "title is the verdict read from the curve's tail: 1/n without positional code and with "
        "RoPE, no collapse with ALiBi (a plateau) or the added sinusoidal code (a plateau at one "
        "layer, no decay at two; both outside the theorem).",
    ),
    Figure(
        "barbero_oversquash",
        "barbero2024",
        "barbero2024_oversquash.json",
        _barbero("plot_oversquash"),
        "transformer_theory.papers.barbero2024 plot_oversquash",
        "Over-squashing at full size (the command's defaults: RoPE, n = 48, depths 1, 2, 4): "
        "the last token's sensitivity to each input position beside the attention-path "
        "weights, the causal path counts and the product-of-attention bound, each divided by "
        "its maximum.",
    ),
    Figure(
        "conti_error_budget",
        "conti2024",
        "conti2024_efficient_attention.json",
        lambda d, p: _conti("error_vs_budget")(_conti_rows("ErrorAtBudget", d["errors"]), p),
        "transformer_theory.papers.conti2024 error_vs_budget",
        "Efficient attention (Conti 2024, §2.1) against exact softmax attention: the output's "
        "relative error against each variant's budget (window, random keys, features, rank) on "
        "i.i.d. and local inputs.",
    ),
    Figure(
        "conti_cost_length",
        "conti2024",
        "conti2024_efficient_attention.json",
        lambda d, p: _conti("cost_vs_length")(
            _conti_rows("CostRow", d["cost"]["records"]),
            d["cost"]["slopes"],
            p,
            fit_from=d["provenance"]["fit_from"],
        ),
        "transformer_theory.papers.conti2024 cost_vs_length",
        "Time and memory against the sequence length n from 256 to 16,384 (the command's "
        "defaults; the Results table above is this run's), log-log slopes fitted over "
        "n >= 1,024: memory "
        "(XLA's plan for one call) grows like n for every efficient variant and like n^2 for "
        "dense attention; the times were measured on shared, loaded cores and are noisy.",
    ),
    Figure(
        "rasp_tracr",
        "rasp",
        "rasp_tracr_differential.json",
        _rasp_tracr,
        "a few lines on transformer_theory.plotting (docs/_ext/results_figures.py)",
        "The RASP compiler beside tracr (Lindner et al. 2023) on the library's programs: "
        "layers and residual width of each compiled model, and frac_prevs compiled for growing "
        "lengths in float32, where tracr's output error grows until inputs are decoded wrong.",
    ),
    Figure(
        "conti_encdec",
        "conti2024",
        "encdec_translation_summary.json",
        _encdec,
        "a few lines on transformer_theory.plotting (docs/_ext/results_figures.py)",
        "The encoder-decoder trained on the synthetic translation grammar (Conti 2024, §3): "
        "exact match of every decoding on the held-out sentences, and the heads of each kind "
        "the projection finds, with the source words in order and permuted.",
    ),
]


def draw_all(out: Path = OUT) -> dict[str, Path]:
    """Draw every figure into ``out``; ``name -> path``. A record or plotting function that is
    missing fails the build (the page would show nothing)."""
    out.mkdir(exist_ok=True)
    drawn = {}
    for fig in FIGURES:
        path = out / f"{fig.name}.png"
        fig.draw(_read(fig.record), str(path))
        drawn[fig.name] = path
    return drawn


def _drawn(app) -> None:  # noqa: ANN001 (Sphinx's event)
    draw_all()


class CommittedFigures(SphinxDirective):
    """A paper's figures, each captioned with its record and command."""

    option_spec = {"paper": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        keys = [k.strip() for k in self.options["paper"].split(",") if k.strip()]
        mine = [f for f in FIGURES if f.paper in keys]
        out: list[nodes.Node] = []
        for fig in mine:
            self.env.note_dependency(str(RESULTS / fig.record))
            figure = nodes.figure(classes=["committed-figure"])
            figure += nodes.image(uri=f"/_generated/{fig.name}.png", alt=fig.caption)
            caption = nodes.caption()
            caption += nodes.Text(fig.caption + " Drawn at build time from ")
            caption += nodes.literal(text=f"experiments/results/{fig.record}")
            caption += nodes.Text(f" by {fig.drawn_by}; the record was produced by ")
            caption += nodes.literal(text=_command(_read(fig.record), fig.command))
            caption += nodes.Text(".")
            figure += caption
            out.append(figure)
        if not mine:
            out.append(
                nodes.paragraph(
                    text="No committed result record draws a figure for this paper; its "
                    "notebook draws the figures at smoke size, and the commands above write "
                    "them at full size."
                )
            )
        return out


def setup(app):  # noqa: ANN001, ANN201 (Sphinx's entry point)
    app.connect("builder-inited", _drawn)
    app.add_directive("committed-figures", CommittedFigures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
