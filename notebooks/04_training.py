# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 — Training depth experiments (Chen & Zou 2024, §6, §9)
#
# Train a one-layer and a two-layer attention-only transformer on in-context question answering
# (`InContextQA(4, 4, 2)`, Theorem 2 vs Theorem 3), with the paper's initialization (§9.1), then
# hand the trained model to the verifier's format (`ModelParams`) and look at its attention maps.
# Everything here is library code; the notebook defines nothing. Tiny sizes: runs in seconds on a
# CPU.
#
# *Set-up:* the first code cell installs the library where it is not importable: in Colab or
# a fresh environment set `TT_INSTALL` first (the repository's git URL, a checkout's path or
# a wheel); in a checkout, `pip install .` beforehand does the same. Nothing is read from
# beside the notebook: the committed results it draws come with the package.
# The cells run on CPU, GPU or TPU (float32, as training does).

# %%
# Set-up: install the library where it is not importable (a fresh Colab runtime or virtual
# environment). No package index or public repository holds it yet; TT_INSTALL says what pip
# installs, one of:
#   - the wheel a release builds (`python -m build` in a checkout writes
#     dist/transformer_theory-<version>-py3-none-any.whl): upload it to the runtime (Colab: the
#     Files pane, into /content) or put it beside the notebook: with TT_INSTALL unset this
#     cell installs it;
#   - a checkout's path: os.environ["TT_INSTALL"] = "/path/to/transformer_theory";
#   - the repository's git URL once it is published: "git+https://github.com/<owner>/<name>".
# Restart the runtime if Colab asks to.
import glob
import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec("transformer_theory") is None:
    source = os.environ.get("TT_INSTALL", "")
    wheels = sorted(
        glob.glob("transformer_theory-*.whl") + glob.glob("/content/transformer_theory-*.whl")
    )
    if not source and wheels:
        source = wheels[-1]  # an uploaded wheel (the last name in order if several)
    if not source:
        raise RuntimeError(
            "transformer_theory is not installed here, and no package index or public repository "
            "holds it yet. Upload the wheel a release builds (transformer_theory-<version>-"
            "py3-none-any.whl; Colab: the Files pane) beside this notebook, or set "
            "os.environ['TT_INSTALL'] "
            "to that wheel's path, a checkout's path, or the repository's git URL once it is "
            "published (git+https://github.com/<owner>/<name>); then run this cell again."
        )
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", source])

# %%
import jax
import numpy as np

from transformer_theory import tasks
from transformer_theory.core.forward import forward_trace
from transformer_theory.train import DataSettings, TaskData, TrainSettings, paper_init, train

task = tasks.InContextQA(4, 4, 2)
data = TaskData(task, jax.random.key(2), DataSettings(holdout=0.2))
tc = TrainSettings(steps=400, batch_size=64, learning_rate=0.1, grad_clip=1.0, log_every=100)
results = {}
for heads in [(1,), (1, 1)]:
    params = paper_init(
        jax.random.key(0), task.model_config(heads=heads), task, w_v="identity", later_qk_scale=0.1
    )
    results[heads] = train(params, data, tc, progress=False)
    print(
        f"{len(heads)} layer(s): held-out accuracy",
        [round(r["eval_acc"], 3) for r in results[heads].metrics],
    )

# %% [markdown]
# One layer stays near chance (1/4); two layers learn copy-then-match. The trained parameters are a
# plain `ModelParams`, so the verifier, certificates and analyses take them directly:

# %%
trained = results[(1, 1)].params
tokens, labels = task.sample(jax.random.key(5), 1)
trace = forward_trace(trained, tokens[0])
print(task.describe(tokens[0], int(labels[0])), "-> predicted", int(np.argmax(trace.logits_C)) + 1)
print("layer-1 attention (rows = query):")
print(np.round(np.asarray(trace.attention[0][0]), 2))

# %%
import io

from IPython.display import Image, display

from transformer_theory.plotting import heatmap, panel_grid, pyplot

plt = pyplot()  # the library's backend (Agg) draws to files and bytes, shown as PNG here


def show(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    display(Image(buf.getvalue()))


fig, axes = plt.subplots(1, 2, figsize=(8, 3))
for i, ax in enumerate(axes):
    heatmap(fig, ax, np.asarray(trace.attention[i][0]), "attention weight", vmin=0)
    ax.set_title(f"layer {i + 1}")
    ax.set_xlabel("key position")
    ax.set_ylabel("query position")
show(fig)

# %% [markdown]
# The paper's figures are experiments shipped with the library
# (`transformer_theory.papers.chen_zou2024.experiments`, trained by `transformer_theory.sweeps`):
# `transformer-theory train --experiment fig2_depth` runs one
# from the command line, `--config my_sweep.py` runs a file of your own with a `get_config()`.
# From Python, a config is a frozen dataclass; narrow it and run it (here: the two-layer reasoning
# run of Figure 2, 200 steps). The run directory records its settings, and the trained parameters
# come back from its checkpoint as a `ModelParams`:

# %%
import tempfile

from transformer_theory import sweeps
from transformer_theory.papers.chen_zou2024.experiments import fig2_depth

config = fig2_depth.get_config("default")
print(config.name, "-", len(config.runs()), "runs:", [s.name for s in config.runs()[:3]], "...")
config = config.replace(heads={"reasoning": ((1, 1),)}, seeds=(0,), steps=200)
out = tempfile.mkdtemp()
rows, figures = sweeps.run_experiment(config, out, progress=False)
print(
    rows[0]["run"],
    "held-out accuracy",
    round(rows[0]["final_eval_acc"], 3),
    "->",
    [os.path.relpath(f, out) for f in figures],
)
restored = sweeps.trained_params(config.runs()[0], out)
print("restored", type(restored).__name__, "with heads", restored.config.heads)

# %% [markdown]
# ## Figure 2 at the paper's sizes
#
# The sweep `fig2_paper` (all four tasks x depths 1-4 x 3 seeds at §9.1's sizes, Adam, early
# stopping) takes hours on 2 CPU cores, so it is not run here. Its committed summary, one row per
# run (`experiments/results/fig2_paper_summary.csv`, written by
# `experiments/fig2_paper_table.py`), is read and drawn: held-out accuracy per depth, one dot per
# seed, chance dashed.

# %%
import csv

from transformer_theory.ledger import RESULTS_DIR  # the checkout's records, or the wheel's copy

summary = RESULTS_DIR / "fig2_paper_summary.csv"
if summary.exists():
    with open(summary) as f:
        sweep = list(csv.DictReader(f))
    tasks = list(dict.fromkeys(r["task"] for r in sweep))
    fig, axes = panel_grid(plt, len(tasks), height=2.8)  # two panels a row: readable text
    for ax, name in zip(axes, tasks):
        rs = [r for r in sweep if r["task"] == name]
        ax.scatter([int(r["depth"]) for r in rs], [float(r["final_eval_acc"]) for r in rs])
        ax.axhline(float(rs[0]["chance"]), ls="--", c="gray", lw=1)
        ax.set_title(f"{name} (Adam {rs[0]['learning_rate']})")
        ax.set(xlabel="layers", xticks=[1, 2, 3, 4], ylabel="held-out accuracy", ylim=(-0.03, 1.05))
    fig.set_layout_engine("constrained")
    show(fig)
else:  # neither a checkout nor a built wheel: an editable install of a partial tree
    print(f"{summary} not found: run the sweep (experiments/fig2_paper_table.py) to draw it")
