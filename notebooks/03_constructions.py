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
# # 03 — The constructions of Chen & Zou 2024, built and checked
#
# Explicit weights from the proofs (Lemmas 1–4, Theorems 1, 3, 5, 6) as the library's `ModelParams`
# (ReLU attention, bidirectional, eq. 2's head mean), checked on **every** example of small
# datasets.
# Where the printed proofs are garbled, `transformer_theory.constructions` implements the corrected
# version and keeps the literal one as `*_as_printed` (see the module docstrings).
#
# *Set-up:* the first code cell installs the library where it is not importable: in Colab or
# a fresh environment set `TT_INSTALL` first (the repository's git URL, a checkout's path or
# a wheel); in a checkout, `pip install .` beforehand does the same. Nothing is read from
# beside the notebook: the committed results it draws come with the package.
# The cells run on CPU, GPU or TPU; the float64 checks need `jax_enable_x64`, set in the
# second code cell.

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
import os

import jax

jax.config.update("jax_enable_x64", True)
import matplotlib.pyplot as plt
import numpy as np

from transformer_theory.constructions import (
    check_construction,
    theorem3,
    theorem5,
    theorem6,
    theorem6_as_printed,
)
from transformer_theory.core import forward_trace
from transformer_theory.plotting import heatmap
from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    TemplateMatching,
    all_templates,
)

SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"  # CI runs the small sizes

# %% [markdown]
# ## Theorem 3: copy within each question–answer block, then match
# Layer 1 is Lemma 1's instructive attention (a fixed block-diagonal map); layer 2 matches the final
# question against the copied questions. Every example scores the right answer 3 and the rest 0.

# %%
task = InContextQA(3, 3, 2) if SMOKE else InContextQA(6, 6, 3)
params = theorem3(task)
print(task.summary())
print(check_construction(params, task))
tokens, labels = task.sample(jax.random.PRNGKey(0), 1)
print(task.describe(tokens[0], labels[0]))
maps = forward_trace(params, tokens[0]).attention
fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4), layout="constrained")
for ax, m, title in zip(axes, maps, ["layer 1 (copy)", "layer 2 (match)"]):
    heatmap(fig, ax, np.asarray(m[0]), "attention weight", cmap="viridis", vmin=0)
    ax.set(title=title, xlabel="key position", ylabel="query position")

# %% [markdown]
# ## Theorem 5: layer 1 parses a sequence into its template
# The position block of each token after layer 1 is a column of `R = I + E`, `E[r, j] = [t_r =
# t_j]`:
# the same for every substitution of the template.

# %%
tm = TemplateMatching(4, all_templates(3))
p5 = theorem5(tm)
d, n = tm.vocab_size, tm.seq_len
for seq in (
    [0, 1, 1, 4],
    [2, 0, 0, 4],
):  # two substitutions of the template α β β, then the CLS (4)
    stream = np.asarray(forward_trace(p5, np.array(seq)).streams_LxNxD[1])
    print(tm.describe(np.array(seq)), "->\n", stream[:-1, d : d + n - 1].T.astype(int))
print(check_construction(p5, tm))

# %% [markdown]
# ## Theorem 6: the printed §15 fails, the corrected construction answers everything
# As printed, the final response sign never collects the context answers and layer 3 reads the
# wrong coordinates: all answer logits tie.

# %%
ic = InContextTemplateMatching(3, 3, all_templates(2), 2)
for name, p in [("printed", theorem6_as_printed(ic)), ("corrected", theorem6(ic))]:
    print(f"{name:9s}", check_construction(p, ic))
