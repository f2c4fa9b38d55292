"""What the ``rasp`` command writes of one program: the model (``model.npz``), its record
(``rasp.json``) and the figure (``rasp.png``: the residual stream of one example and the
attention maps)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from transformer_theory import jsonio, plotting, saveload
from transformer_theory.rasp import _compiler
from transformer_theory.rasp._records import RaspRecord


def write_outputs(
    compiled: _compiler.CompiledProgram, record: RaspRecord | dict[str, Any], out: str
) -> dict:
    """Write ``model.npz`` (:func:`transformer_theory.saveload.save_model`), ``rasp.json``
    (atomically, strict JSON) and ``rasp.png`` under ``out``; returns the paths."""
    if os.path.lexists(out) and not os.path.isdir(out):
        raise ValueError(f"out: {out} exists and is not a directory")
    os.makedirs(out, exist_ok=True)
    paths = {
        "model": saveload.save_model(os.path.join(out, "model.npz"), compiled.params()),
        "record": jsonio.write_json(os.path.join(out, "rasp.json"), record),
        "figure": figure(compiled, os.path.join(out, "rasp.png")),
    }
    return paths


def figure(compiled: _compiler.CompiledProgram, path: str, example: Sequence | None = None) -> str:
    """The residual stream of one example (rows: positions, columns: the labelled dimensions)
    and every layer's attention maps (summed over heads), for the longest vocabulary cycle."""
    import jax.numpy as jnp

    from transformer_theory.core import forward_trace

    if example is None:
        example = [compiled.vocab[i % len(compiled.vocab)] for i in range(compiled.max_seq_len)]
    tr = forward_trace(
        compiled.params(jnp.float32), jnp.asarray(compiled.embed(example), jnp.float32)
    )
    plt = plotting.pyplot()
    fig, axes = plotting.panel_grid(plt, 1 + len(tr.attention), width=5.0, height=4.0)
    stream = np.asarray(tr.streams_LxNxD[-1])
    plotting.heatmap(fig, axes[0], stream.T, "value", aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1)
    axes[0].set_yticks(range(len(compiled.labels)))
    axes[0].set_yticklabels([_drawable(s) for s in compiled.labels], fontsize=5)
    axes[0].set_xlabel("position (0 = BOS)")
    axes[0].set_title("residual layout")
    for li, att in enumerate(tr.attention):
        ax = axes[li + 1]
        attn = compiled.weights.layers[li].attn
        if not (np.any(attn.w_qk) or np.any(attn.w_v)):  # an MLP-only layer: no head reads
            ax.text(0.5, 0.5, "MLP only\n(no attention head)", ha="center", va="center")
            ax.set_axis_off()
            ax.set_title(f"{plotting.layer_name(li)}: MLP only")
            continue
        plotting.heatmap(fig, ax, np.asarray(att).sum(0), "weight", vmin=0, vmax=1)
        ax.set_title(f"{plotting.layer_name(li)}: attention")
        ax.set_xlabel("key")
        ax.set_ylabel("query")
    title = f"{compiled.program.label} on {''.join(map(str, example))}"
    plotting.suptitle(fig, _drawable(title))
    return plotting.save_figure(fig, path)


def _drawable(text: str) -> str:
    """``text`` with what no font can draw (a lone surrogate: an undecodable byte of a file or
    the command line) written as its escape, so the figure is drawn, not a traceback."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")
