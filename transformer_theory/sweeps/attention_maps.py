"""Figure 3 of Chen & Zou 2024 (§6.2): a trained two-layer model's attention maps beside Theorem
3's construction (§13.2), on the in-context QA inputs ``A=1B=2A=`` and ``A=1B=2B=``.

For each input, the trained and the constructed layer-1 and layer-2 maps (rows = query position,
columns = key position; the paper draws the transpose). Red boxes mark the construction's COPY
positions in layer 1 (each position reads the other members of its question-sign-answer block)
and the MATCH positions in layer 2 (the last position reads the block whose question equals the
final question). ``fig3_attention.json`` gives the share of each model's attention that falls on
those positions, and both models' predictions.
"""

from __future__ import annotations

import os

import jax.numpy as jnp
import numpy as np

from transformer_theory import tasks as tasklib
from transformer_theory.constructions.reasoning import theorem3
from transformer_theory.core.forward import forward_trace
from transformer_theory.jsonio import write_json
from transformer_theory.params import ModelParams
from transformer_theory.plotting import heatmap, layer_name, pyplot, save_figure, suptitle
from transformer_theory.train.init import copy_pattern_alpha

__all__ = [
    "FIGURE",
    "SUMMARY",
    "copy_support",
    "draw",
    "example_inputs",
    "match_support",
    "plot_attention_maps",
]

FIGURE = "fig3_attention_maps.png"
SUMMARY = "fig3_attention.json"


def example_inputs(task: tasklib.InContextQA) -> dict[str, np.ndarray]:
    """Token ids of ``A=1B=2A=`` and ``A=1B=2B=`` (A, B = questions 0, 1; 1, 2 = answers 0, 1;
    ``=`` is the response sign r)."""
    r, a0 = task.vocab_size - 1, task.n_q
    A, B, one, two = 0, 1, a0, a0 + 1
    return {
        "A=1B=2A=": np.array([A, r, one, B, r, two, A, r], np.int32),
        "A=1B=2B=": np.array([A, r, one, B, r, two, B, r], np.int32),
    }


def copy_support(k: int) -> np.ndarray:
    """``(n, n)`` bool: query i reads key j of its own question-sign-answer block (j != i)."""
    return copy_pattern_alpha(k) > 0


def match_support(tokens: np.ndarray, k: int) -> np.ndarray:
    """``(n, n)`` bool: the last query reads the block whose question equals the final question."""
    n = 3 * k + 2
    s = np.zeros((n, n), bool)
    for b in range(k):
        if tokens[3 * b] == tokens[n - 2]:
            s[n - 1, 3 * b : 3 * b + 3] = True
    return s


def draw(
    task: tasklib.InContextQA, trained: ModelParams, out: str, title: str | None = None
) -> list[str]:
    """Figure 3 from ``trained`` (the two-layer, one-head reasoning run's parameters) beside
    Theorem 3's construction for ``task`` (k = 2), drawn to ``out/`` :data:`FIGURE`, and the
    attention-share summary written to ``out/`` :data:`SUMMARY`; returns ``[figure, summary]``
    paths."""
    built = theorem3(task, dtype=jnp.float32)
    k = task.k
    inputs = example_inputs(task)
    panels = {}
    summary = {}
    for text, toks in inputs.items():
        traces = (
            ("trained", forward_trace(trained, jnp.asarray(toks))),
            ("constructed", forward_trace(built, jnp.asarray(toks))),
        )
        supports = [copy_support(k), match_support(toks, k)]
        matched = [b for b in range(k) if toks[3 * b] == toks[-2]][0]
        info = dict(
            trained_prediction=int(jnp.argmax(traces[0][1].logits_C)),
            constructed_prediction=int(jnp.argmax(traces[1][1].logits_C)),
            answer=int(toks[3 * matched + 2] - task.n_q),
        )
        panels[text] = []
        for who, trace in traces:
            for layer in range(2):
                w = np.asarray(trace.attention[layer][0])
                sup = supports[layer]
                rows_used = slice(None) if layer == 0 else slice(-1, None)
                mass = w[rows_used].sum()
                share = float(w[sup].sum() / mass) if mass > 0 else float("nan")
                what = "copy" if layer == 0 else "match"
                info[f"{who}_layer{layer + 1}_share_on_{what}"] = round(share, 4)
                panels[text].append((who, layer, w, sup))
        summary[text] = info
    title = (
        title or "Chen & Zou 2024, Figure 3: trained two-layer model vs Theorem 3's construction"
    )
    paths = [plot_attention_maps(panels, title, os.path.join(out, FIGURE))]
    paths.append(os.path.join(out, SUMMARY))
    write_json(paths[1], summary)  # a share of no attention mass is NaN: null, listed as such
    return paths


def plot_attention_maps(
    panels: dict[str, list[tuple[str, int, np.ndarray, np.ndarray]]], title: str, path: str
) -> str:
    """Figure 3's panels: one row per input text, one heat map per ``(model, layer index from 0,
    weights_QxK, support_QxK)`` with its colorbar, the support boxed in red; layers are titled
    from 1 as the paper does. Returns ``path``."""
    from matplotlib.patches import Rectangle

    plt = pyplot()
    cols = max(len(row) for row in panels.values())
    fig, axes = plt.subplots(len(panels), cols, figsize=(4.6 * cols, 4.0 * len(panels)))
    axes = np.asarray(axes).reshape(len(panels), cols)
    for row, (text, cells) in enumerate(panels.items()):
        for col, (who, layer, w, sup) in enumerate(cells):
            ax = axes[row, col]
            heatmap(fig, ax, w, "attention weight", cmap="viridis", vmin=0, vmax=1)
            ticks = list(text)
            ax.set_xticks(range(len(ticks)), ticks)
            ax.set_yticks(range(len(ticks)), ticks)
            ax.set_xlabel("key position")
            ax.set_ylabel("query position")
            what = "copy" if layer == 0 else "match"
            ax.set_title(f"{who}, {layer_name(layer)} ({what} marked)\n{text}")
            for i, j in zip(*np.nonzero(sup)):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="red", lw=1.3))
    suptitle(fig, title)
    return save_figure(fig, path)
