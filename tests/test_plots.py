"""Every plot function of the library, rendered at smoke size from tiny synthetic records built
here (no training), under ``warnings.simplefilter("error")``: the file is written, and what a
reader needs is checked on the figure itself (issue 30, section 3):

- every visible axes has an x and a y label (a y label may come from an axes it shares its y
  axis with), or is a heat map with a labelled colorbar;
- no text shows TeX source outside ``$...$`` (a backslash, ``^``, ``_{`` or ``||``), and none is
  smaller than plotting.MIN_FONT (9 pt);
- layers (and heads) are numbered from 1 (``layer 0``, ``L0``, ``head 0`` never appear);
- a legend inside an axes covers none of its data points, and no two labels written on one axes
  overlap;
- the figure's tight bounding box lies within the canvas (nothing clipped).

Plot functions are discovered (every name in ``__all__`` of :mod:`transformer_theory.plotting`,
of each ``papers/<paper>/plots.py`` and of :mod:`transformer_theory.sweeps.plots`, and every
``plot_*`` of the sweeps' figure modules, less the helpers in :data:`NOT_PLOTS`), so a new plot
without a case in :data:`CASES` fails :func:`test_every_plot_has_a_case`.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import types
import warnings

import matplotlib
import numpy as np
import pytest

import transformer_theory.papers as papers_pkg
from transformer_theory import jsonio, plotting
from transformer_theory.papers.conti2024._records import CostRow, ErrorAtBudget
from transformer_theory.precision import PRECISIONS
from transformer_theory.sweeps import attention_maps
from transformer_theory.sweeps import plots as sweep_plots

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

NOT_PLOTS = {
    "transformer_theory.plotting." + name
    for name in (
        "MIN_FONT",
        "PAGE_WIDTH",
        "SERIES",
        "readable",
        "use_style",
        "STYLE",
        "colorbar",
        "figure_legend",
        "heatmap",
        "layer_name",
        "legend_outside",
        "panel_grid",
        "pyplot",
        "save_figure",
        "suptitle",
    )
} | {"transformer_theory.sweeps.plots.load_metrics"}


def _plot_modules() -> list[types.ModuleType]:
    mods = [plotting, sweep_plots]
    for info in pkgutil.iter_modules(papers_pkg.__path__):
        for stem in ("plots", "_plots"):  # the role module, public or private
            if info.ispkg and os.path.exists(
                os.path.join(papers_pkg.__path__[0], info.name, f"{stem}.py")
            ):
                mods.append(
                    importlib.import_module(f"transformer_theory.papers.{info.name}.{stem}")
                )
    return mods


def discovered() -> list[str]:
    """The qualified names of the library's plot functions."""
    names = []
    for mod in _plot_modules():
        for name in mod.__all__:
            if inspect.isfunction(getattr(mod, name)):
                names.append(f"{mod.__name__}.{name}")
    for mod in (attention_maps,):
        names += [f"{mod.__name__}.{n}" for n in mod.__all__ if n.startswith("plot_")]
    return sorted(set(names) - NOT_PLOTS)


def _resolve(qualified: str):
    module, name = qualified.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


# ---- tiny synthetic records, one builder per plot: (args before the path/out argument) ----------

BARBERO = "transformer_theory.papers.barbero2024._plots."
CONTI = "transformer_theory.papers.conti2024._plots."
FORMAL = "transformer_theory.papers.formal_languages._plots."
PENG = "transformer_theory.papers.peng2024._plots."
SANFORD = "transformer_theory.papers.sanford2023._plots."
SVETE = "transformer_theory.papers.svete_cotterell2024._plots."


def _collapse() -> tuple:
    n = [2, 8, 32, 128]
    models = []
    for depth in (1, 2):
        precisions = {
            "float64": dict(distance=[5 / x for x in n], first_identical=None),
            "float32": dict(distance=[5 / x for x in n[:3]] + [0.0], first_identical=128),
        }
        models.append(
            dict(
                name=f"L{depth}_H1_rope_seed0",
                depth=depth,
                heads=1,
                positional="rope",
                seed=0,
                lengths=n,
                precisions=precisions,
                rate=dict(slope=-1.0, constant=5.0),
                predicted_limit=5.0 if depth == 1 else None,
                verdict="collapses ~ n^-1.00" if depth == 2 else None,
            )
        )
    return (dict(settings=dict(pattern="ones then zero"), models=models),)


def _oversquash() -> tuple:
    i = np.arange(1, 9, dtype=float)
    models = [
        dict(
            name=f"L{depth}_H1_rope_seed0",
            depth=depth,
            heads=1,
            positional="rope",
            seed=0,
            length=8,
            sensitivity_final=list(1 / i),
            path_weight=[list(1 / i**depth)],
            path_weight_residual=[list(1 / i ** (depth / 2))],
            path_count=[str(9 - k) for k in range(8)],
            bound_edge_final=list(1.5 / i),
        )
        for depth in (1, 2)
    ]
    return (dict(models=models),)


def _task_accuracy() -> tuple:
    rec = dict(accuracy=[1.0, 1.0, 0.5], first_identical=64, first_same_prediction=32)
    task = dict(
        name="last token",
        lengths=[4, 16, 64],
        precisions={"float32": rec, "float64": {**rec, "first_identical": None}},
        train_min_len=2,
        train_max_len=8,
    )
    return (dict(tasks=[task]),)


def _head_grid() -> tuple:
    rng = np.random.default_rng(0)
    maps = [("softmax", layer, rng.dirichlet(np.ones(4), (1, 2, 4))) for layer in (0, 1)]
    records = [
        dict(attention="softmax", layer=layer, head=h, kind="positional", score=0.5)
        for layer in (0, 1)
        for h in (0, 1)
    ]
    return maps, records, {"softmax": (list("abcd"), list("abcd"))}


def _translation_maps() -> tuple:
    import jax

    from transformer_theory.papers.conti2024 import Translation
    from transformer_theory.papers.conti2024._models_translation import split_translation

    task = Translation(num_nouns=2, num_adjectives=1, num_verbs=1)
    data = split_translation(task, jax.random.key(0), holdout=0.5)
    n, t = data.src_eval_BxN.shape[1], data.tgt_eval_BxT.shape[1]
    rng = np.random.default_rng(0)
    shapes = {"encoder": (n, n), "decoder": (t, t), "cross": (t, n)}
    maps = [(a, 0, rng.dirichlet(np.ones(k), (1, 1, q))) for a, (q, k) in shapes.items()]
    records = [dict(attention=a, layer=0, head=0, kind="other", score=0.5) for a in shapes]
    return task.words(), data, maps, records


def _errors() -> tuple:
    recs = []
    for source in ("random iid, n=32", "random local, n=32"):
        for variant in ("sliding_window", "dilated_window", "longformer"):
            for b in (2, 4, 8):
                recs.append(ErrorAtBudget(source, variant, "window", b, 32, 1, 1.0 / b, 1.0 / b))
        recs.append(ErrorAtBudget(source, "taylor", None, None, 32, 1, 0.6, 0.6))
    return (recs,)


def _cost() -> tuple:
    recs = [
        CostRow(v, None, n, 64, max(1e-4 * (n / 64) ** p, 4e-4), 0.0, 0.0, int(1e3 * n**p))
        for v, p in (("dense", 2), ("sliding_window", 1))
        for n in (64, 128, 256, 512)
    ]
    return recs, {"dense": {"seconds": 2.0, "xla_bytes": 2.0}}


def _margins() -> tuple:
    rows = [dict(length=n, min_margin=-1.0 / n) for n in (2, 4, 8)]
    return ([dict(construction="dyck1", accuracy=1.0, by_length=rows)],)


def _parity() -> tuple:
    recs = [
        dict(dtype=d, layer_norm=ln, n=n, max_cross_entropy_bits=1.0 / n, min_margin=1.0 / n)
        for d in ("float32", "float64")
        for ln in (True, False)
        for n in (2, 4, 8)
    ]
    return (recs,)


def _generalization() -> tuple:
    recs = [
        dict(
            language="parity",
            model=m,
            accuracy=[1.0, 0.9, 0.6],
            eval_lengths=[4, 8, 16],
            train_lengths=[2, 4],
        )
        for m in ("construction", "trained")
    ]
    return (recs,)


def _composition_depth() -> tuple:
    recs = [
        dict(layers=layers, p=p, bound=0.1 * p, error=0.05 * p, chance_error=0.9, n=8, heads=1, d=4)
        for layers in (1, 2)
        for p in (2, 4)
    ]
    return (recs,)


def _one_layer() -> tuple:
    recs = [
        dict(format=f, layers=layers, d=d, error=1 / d, bound=0.5 / d, p=8, heads=1, n=8)
        for f in ("float32", "bfloat16")
        for layers in (1, 2)
        for d in (2, 4, 8)
    ]
    return (recs,)


def _study_figures() -> tuple:
    qsa = [dict(task="qsa", m_min=m, q_log_N=2.0 * m, bits_min=m, bits_proof=m + 1) for m in (2, 4)]
    acc = {"float64": 1.0, "float32": 1.0, "bfloat16": 0.5}
    match = [dict(task="match2", M=M, accuracy_by_dtype=acc) for M in (4, 16)]
    return (qsa + match,)


_QSA = dict(epsilon=0.25, zero_error=0.5, N=8, q=2, d_prime=2, bits_needed=6, model="attention")


def _qsa_separation() -> tuple:
    recs = [
        dict(_QSA, model=m, width=w, params=10 * w, mean_max_error=1 / w, threshold=t)
        for m, t in (("attention", 4), ("fnn", None), ("rnn", 16))
        for w in (2, 8)
    ]
    return (recs,)


def _qsa_bits() -> tuple:
    recs = [
        dict(_QSA, bits=p, message_bits=b, mean_max_error=1 / b) for p in (4, 8) for b in (2, 8)
    ]
    return (recs,)


def _match_width() -> tuple:
    recs = [
        dict(task="match2", heads=1, qk_dim=m, accuracy=1 - 1 / m, depth=1, N=8, M=16)
        for m in (1, 2, 4)
    ]
    return (recs,)


def _ngram_precision() -> tuple:
    from transformer_theory.papers.svete_cotterell2024._records import ModelRecord

    def record(c, p, pos):
        return ModelRecord(
            *(c, "hard", p, 3, 2, 4, None, (2,), 8, 8),
            *(7, True, 0.0, 0.0, 0, 0, True, 1.0, 1.0),
            scan=dict(first_failing_position=pos),
        )

    recs = [record(c, p, pos) for c, pos in (("3.1", 100), ("3.3-slots", 1000)) for p in PRECISIONS]
    return (recs,)


def _ngram_soft() -> tuple:
    from transformer_theory.papers.svete_cotterell2024._records import (
        BetaNeeded,
        KLPoint,
        SoftRow,
    )

    rows = [
        SoftRow(
            construction=c,
            max_len=8,
            kl_by_beta=tuple(KLPoint(beta=b, kl=1 / b**2) for b in (1, 10, 100)),
            target_kl=1e-3,
            beta_needed=tuple(BetaNeeded(length=n, beta=10.0 * n) for n in (0, 4, 8)),
        )
        for c in ("3.1", "3.2")
    ]
    return (rows,)


def _learning_curves() -> tuple:
    rows = [dict(step=s, eval_acc=s / 10, eval_loss=1 / (s + 1)) for s in (0, 5, 10)]
    return ({"run a": rows, "run b": rows},)


def _residuals() -> tuple:
    verdicts = [
        types.SimpleNamespace(
            family=f, proposition=p, max_residual=r, tolerance=1e-12, expected=f != "control"
        )
        for f, r in (("softmax", 1e-16), ("control", 0.3))
        for p in ("7", "8", "affine")
    ]
    return (verdicts,)


def _attention_maps() -> tuple:
    rng = np.random.default_rng(1)
    sup = np.eye(8, dtype=bool)
    panels = {
        "A=1B=2A=": [("trained", layer, rng.dirichlet(np.ones(8), 8), sup) for layer in (0, 1)]
    }
    return panels, "Figure 3"


def _composition_cot() -> tuple:
    summary = [
        dict(
            heads=1, d=4, p=8, n=n, cot_bound=(n / 32) ** 0.5, steps_needed=s, steps_tried=[1, 2, 4]
        )
        for n, s in ((8, 1), (32, 2), (128, None))
    ]
    for row in summary:
        row.update(target=0.99, functions=2)
    return (summary,)


def _one_pass() -> tuple:
    records = [
        dict(n=6, heads=h, d=d, p=p, error=e, converged=c, chance_error=5 / 6, mode_error=0.59)
        for h, d, p, e, c in ((2, 36, 32, 0.0, True), (2, 36, 4, 0.01, True), (1, 1, 2, 0.8, False))
    ]
    built = [dict(n=6, bits=4, construction_bits=400)]
    return records, built


def _ngram_space() -> tuple:
    recs = [
        dict(
            construction=c,
            alphabet=a,
            order=n,
            width=a * n,
            nonzero_structural=a + n,
            params=a * n * 2,
            table=(a + 1) * a**n,
        )
        for c in ("3.1", "3.3-slots")
        for a in (2, 4)
        for n in (2, 3)
    ]
    return (recs,)


def _jl() -> tuple:
    rows = [
        dict(kind=kind, n=n, rank_needed=4 * n.bit_length(), row_bound_rank=40, lemma_rank=80)
        for kind in ("attention", "random")
        for n in (16, 64)
    ]
    errors = [dict(rank=r, jl=1 / r, eq17_random=2 / r, pooled=0.5 / r) for r in (2, 8)]
    trained = [dict(source="model 1", errors=[dict(rank=r, jl=1 / r, pooled=0.0) for r in (2, 8)])]
    result = dict(
        scaling=dict(rows=rows, eps=0.5, delta=0.1),
        errors={"iid": errors},
        error_len=64,
        trained=trained,
    )
    return (result,)


def _dyck_k() -> tuple:
    from transformer_theory.papers.formal_languages._records import DyckKMarginRow

    recs = [
        DyckKMarginRow(
            k=2,
            depth=3,
            n=n,
            dtype=d,
            attention=a,
            strings=4,
            accuracy=acc,
            min_margin=0.25 / n,
            min_margin_times_n=0.25,
            member_margin_error=0.0,
            tolerance=1e-12,
        )
        for a in ("softmax", "hard")
        for d in ("float32", "float64")
        for n, acc in ((4, 1.0), (16, 0.5))
    ]
    return (recs,)


CASES = {
    CONTI + "jl_figure": _jl,
    FORMAL + "dyck_k_margins": _dyck_k,
    PENG + "composition_cot": _composition_cot,
    PENG + "one_pass": _one_pass,
    SVETE + "space_figure": _ngram_space,
    "transformer_theory.plotting.learning_curves": _learning_curves,
    "transformer_theory.plotting.residuals_by_family": _residuals,
    BARBERO + "plot_collapse": _collapse,
    BARBERO + "plot_oversquash": _oversquash,
    BARBERO + "plot_task_accuracy": _task_accuracy,
    CONTI + "head_grid": _head_grid,
    CONTI + "error_vs_budget": _errors,
    CONTI + "cost_vs_length": _cost,
    CONTI + "translation_maps": _translation_maps,
    FORMAL + "margins_by_length": _margins,
    FORMAL + "parity_precision": _parity,
    FORMAL + "generalization": _generalization,
    PENG + "composition_depth": _composition_depth,
    PENG + "one_layer": _one_layer,
    SANFORD + "study_figures": _study_figures,
    SANFORD + "qsa_separation": _qsa_separation,
    SANFORD + "qsa_bits": _qsa_bits,
    SANFORD + "match_width": _match_width,
    SVETE + "precision_figure": _ngram_precision,
    SVETE + "soft_figure": _ngram_soft,
    "transformer_theory.sweeps.attention_maps.plot_attention_maps": _attention_maps,
}
# Plot functions with a test of their own below (they read files, not records).
OWN_TESTS = {
    "transformer_theory.sweeps.plots.plot_curves": "test_plot_curves_renders",
}
# Functions whose last argument is an output directory, not a file.
WRITES_DIRECTORY = {SANFORD + "study_figures"}


# ---- the checks ---------------------------------------------------------------------------------

_MATH = re.compile(r"\$[^$]*\$")
_RAW_TEX = ("\\", "^", "_{", "||")
_NUMBERED = re.compile(r"(?i)\b(?:layer|head)\s+(\d+)\b|\b[LH](\d+)\b")


MIN_POINTS = plotting.MIN_FONT  # the smallest font a figure may use (save_figure raises any below)


def _texts(fig) -> list[str]:
    shown = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text()]
    small = [t.get_text() for t in shown if t.get_fontsize() < MIN_POINTS]
    assert not small, f"text below {MIN_POINTS} pt: {small[:3]}"
    return [t.get_text() for t in shown]


def _is_colorbar(ax) -> bool:
    return hasattr(ax, "_colorbar")


def _has_data(ax) -> bool:
    return bool(ax.lines or ax.collections or ax.images or ax.patches)


def _check_labels(fig) -> None:
    for ax in fig.axes:
        if not ax.get_visible() or _is_colorbar(ax) or not _has_data(ax):
            continue
        if ax.images:
            for im in ax.images:
                assert im.colorbar is not None, f"heat map without colorbar: {ax.get_title()!r}"
                bar = im.colorbar.ax
                assert bar.get_ylabel() or bar.get_xlabel(), "colorbar without a label"
            continue
        assert ax.get_xlabel(), f"axes without an x label: {ax.get_title()!r}"
        shared = ax.get_shared_y_axes().get_siblings(ax)
        assert any(a.get_ylabel() for a in shared), f"axes without a y label: {ax.get_title()!r}"


def _check_text(fig) -> None:
    for text in _texts(fig):
        assert text.count("$") % 2 == 0, f"unbalanced $ in {text!r}"
        plain = _MATH.sub("", text)
        for raw in _RAW_TEX:
            assert raw not in plain, f"raw TeX {raw!r} shown as text: {text!r}"
        for match in _NUMBERED.finditer(plain):
            number = int(next(g for g in match.groups() if g is not None))
            assert number >= 1, f"layers/heads are numbered from 1: {text!r}"


def _check_legends(fig) -> None:
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent(renderer)
        for line in ax.lines:
            xy = line.get_transform().transform(np.asarray(line.get_xydata(), float))
            xy = xy[np.all(np.isfinite(xy), axis=1)]
            inside = (
                (xy[:, 0] > box.x0)
                & (xy[:, 0] < box.x1)
                & (xy[:, 1] > box.y0)
                & (xy[:, 1] < box.y1)
            )
            assert not inside.any(), f"legend covers data of {line.get_label()!r}"


def _check_labels_apart(fig) -> None:
    """No two texts written on the same axes (point labels, annotations) overlap: "n=4n=8" read
    as one word on Peng et al.'s chain-of-thought figure."""
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        shown = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in shown]
        for i, (a, box) in enumerate(boxes):
            for b, other in boxes[i + 1 :]:
                assert not box.overlaps(other), f"labels {a!r} and {b!r} overlap"


def _check_canvas(fig) -> None:
    renderer = fig.canvas.get_renderer()
    tight = fig.get_tightbbox(renderer)
    w, h = fig.get_size_inches()
    tol = 0.02  # inches: antialiasing and font metrics, far below a visible cut
    assert tight.x0 >= -tol and tight.y0 >= -tol, f"clipped at the left/bottom: {tight}"
    assert tight.x1 <= w + tol and tight.y1 <= h + tol, f"clipped at the right/top: {tight}"


def test_every_plot_has_a_case() -> None:
    missing = [name for name in discovered() if name not in CASES and name not in OWN_TESTS]
    assert not missing, f"plot functions without a case in tests/test_plots.py: {missing}"
    stale = [name for name in {**CASES, **OWN_TESTS} if name not in discovered()]
    assert not stale, f"cases for functions that are not discovered: {stale}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_plot_renders_readably(name: str, tmp_path, monkeypatch) -> None:
    fn = _resolve(name)
    args = CASES[name]()
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)  # save_figure closes: keep them to check
    target = str(tmp_path) if name in WRITES_DIRECTORY else str(tmp_path / "figure.png")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = fn(*args, target)
        written = result if isinstance(result, list) else [result]
        assert written and all(os.path.getsize(p) > 0 for p in written)
        assert len(figures) == len(written)
        for fig in figures:
            _check_labels(fig)
            _check_text(fig)
            _check_legends(fig)
            _check_labels_apart(fig)
            _check_canvas(fig)
    finally:
        monkeypatch.undo()
        for fig in figures:
            plt.close(fig)


def test_checks_catch_an_unreadable_figure(tmp_path) -> None:
    """The checks fail on what issue 30 names: raw TeX, layer 0, a heat map without colorbar, a
    clipped label."""
    plt_ = plotting.pyplot()
    fig, ax = plt_.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    ax.set(xlabel="n", ylabel="||y_n - y'_{n+1}||", title="layer 0")
    with pytest.raises(AssertionError, match="raw TeX"):
        _check_text(fig)
    ax.set_ylabel("$\\|y_n\\|$")
    with pytest.raises(AssertionError, match="numbered from 1"):
        _check_text(fig)
    fig2, ax2 = plt_.subplots()
    ax2.imshow(np.eye(3))
    with pytest.raises(AssertionError, match="colorbar"):
        _check_labels(fig2)
    fig3 = plt_.figure(figsize=(2, 2), layout="none")
    fig3.text(0.5, 0.5, "a label far too long for a two-inch figure to hold")
    fig3.canvas.draw()
    with pytest.raises(AssertionError, match="clipped"):
        _check_canvas(fig3)
    fig4, ax4 = plt_.subplots(layout="none")
    ax4.plot([0, 1], [0, 1], label="data")
    ax4.legend(loc="lower right", bbox_to_anchor=(1.0, 0.0))
    ax4.plot([0.95], [0.02], "o", label="under the legend")
    fig4.canvas.draw()
    with pytest.raises(AssertionError, match="legend covers"):
        _check_legends(fig4)
    fig5, ax5 = plt_.subplots()
    for x, n in ((0.25, 4), (0.26, 8)):  # two points close together, labelled beside each
        ax5.annotate(f"n={n}", (x, 4.0), xytext=(3, 3), textcoords="offset points")
    ax5.set(xlim=(0, 1.5), ylim=(0, 5))
    fig5.canvas.draw()
    with pytest.raises(AssertionError, match="overlap"):
        _check_labels_apart(fig5)
    ax5.texts[1].xy = (1.2, 1.0)  # apart: no complaint
    _check_labels_apart(fig5)
    for f in (fig, fig2, fig3, fig4, fig5):
        plt_.close(f)


def test_plot_curves_renders(tmp_path, monkeypatch) -> None:
    """The sweeps' learning curves (Chen & Zou 2024, Figure 2) from synthetic ``metrics.json``
    files at the paper config's layout: the long title wraps instead of being clipped."""
    from transformer_theory.papers.chen_zou2024.experiments import fig2_paper

    # One task, one seed: the narrowest figure, where the paper config's long title was clipped.
    config = fig2_paper.get_config()
    config = config.replace(tasks=config.selected_tasks[:1], seeds=(0,))
    for spec in config.run_specs:
        rows = [
            dict(
                step=s,
                train_loss=1.0,
                train_acc=0.5,
                eval_loss=1 / (s + 1),
                eval_acc=s / 10,
                seconds=1.0,
            )
            for s in (0, 5, 10)
        ]
        os.makedirs(tmp_path / spec.name, exist_ok=True)
        jsonio.write_json(str(tmp_path / spec.name / "metrics.json"), dict(meta={}, rows=rows))
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = sweep_plots.plot_curves(config, str(tmp_path))
    monkeypatch.undo()
    assert os.path.getsize(path) > 0
    for fig in figures:
        _check_labels(fig)
        _check_text(fig)
        _check_legends(fig)
        _check_canvas(fig)
        plt.close(fig)


def test_cost_draws_overhead_floor_hollow(tmp_path, monkeypatch) -> None:
    """``cost.png``: times within TIMING_FLOOR of the fastest call are hollow (no slope is read
    there), the others filled; memory points are never hollow."""
    from transformer_theory.papers.conti2024 import _plots as conti

    records, slopes = _cost()
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    conti.cost_vs_length(records, slopes, str(tmp_path / "cost.png"), fit_from=256)
    monkeypatch.undo()
    (fig,) = figures
    fastest = min(r.seconds for r in records)
    expected = {(r.n, r.seconds) for r in records if r.seconds <= 2.0 * fastest}
    assert expected and len(expected) < len(records)  # the case has both kinds
    for ax, key in zip(fig.axes[:2], ("seconds", "xla_bytes")):
        hollow = {
            tuple(p)
            for line in ax.lines
            if line.get_linestyle() == "None" and line.get_markerfacecolor() == "none"
            for p in line.get_xydata()
        }
        assert hollow == (expected if key == "seconds" else set())
    plt.close(fig)


def test_the_house_style_tells_series_apart_and_keeps_text_readable(tmp_path, monkeypatch) -> None:
    """Twelve lines on one axes get twelve different colours and twelve different markers (a
    repeated colour made notebook 09's sweep unreadable); a 5-pt label, tick or legend is raised
    to MIN_FONT when saved; a line of many points is marked at about fifteen; ``panel_grid`` puts
    at most two panels a row within PAGE_WIDTH (four side by side were 190 pixels each)."""
    from matplotlib.lines import Line2D

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    pp = plotting.pyplot()
    fig, ax = pp.subplots(figsize=(6, 3))
    for i in range(12):
        ax.plot(np.arange(200), np.arange(200) * i, label=f"series {i}")
    ax.set_xlabel("x", fontsize=5)
    ax.set_ylabel("y")
    ax.tick_params(labelsize=5)
    plotting.legend_outside(ax, fontsize=5)
    plotting.save_figure(fig, str(tmp_path / "twelve.png"))
    monkeypatch.undo()
    lines = [line for line in fig.axes[0].lines if isinstance(line, Line2D)]
    assert len({line.get_color() for line in lines}) == 12
    assert len({line.get_marker() for line in lines}) == 12
    assert all(0 < len(np.arange(200)[:: line.get_markevery()]) <= 20 for line in lines)
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]
    assert min(sizes) >= plotting.MIN_FONT, sorted(sizes)[:3]
    assert min(t.label1.get_fontsize() for t in ax.xaxis.get_major_ticks()) >= plotting.MIN_FONT
    _check_legends(fig)
    plt.close(fig)
    for count, shape in ((1, (1, 1)), (2, (1, 2)), (4, (2, 2)), (5, (3, 2))):
        grid, axes = plotting.panel_grid(pp, count)
        rows, cols = grid.axes[0].get_gridspec().get_geometry()
        assert (rows, cols) == shape, (count, rows, cols)
        assert grid.get_figwidth() <= plotting.PAGE_WIDTH
        assert sum(a.get_visible() for a in axes) == count
        plt.close(grid)
    grid, _ = plotting.panel_grid(pp, 3, cols=1)
    assert grid.axes[0].get_gridspec().get_geometry() == (3, 1)
    plt.close(grid)
