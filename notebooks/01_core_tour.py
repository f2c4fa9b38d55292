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
# # 01 — A tour of `transformer_theory.core`
#
# Pure functions, one example at a time: a random model and its attention maps, the sparse masks of
# Conti 2024, linear attention, and Chen & Zou's four dependent sequences, for which every one-layer
# ReLU model satisfies `o0 + o1 = o2 + o3` (Prop. 8) while a two-layer model does not.
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
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np

jax.config.update("jax_enable_x64", True)  # exact float64 checks below
from transformer_theory import ModelConfig, forward, init_params, init_params_batch
from transformer_theory.core import forward_trace, linear, masks
from transformer_theory.plotting import heatmap, layer_name

SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"  # set by the test suite: small configs
N_MODELS = 8 if SMOKE else 200

# %% [markdown]
# ## A random model and its attention maps
# Chen & Zou's layer (eq. 2) with softmax attention, one-hot positions (eq. 3). `attention[layer][h,
# i, j]` is query `i`'s weight on key `j`.

# %%
cfg = ModelConfig(
    vocab_size=4, seq_len=6, width=12, num_classes=3, heads=(2, 2), attention="softmax"
)
params = init_params(jax.random.PRNGKey(0), cfg, dtype=jnp.float64)
tokens = jnp.array([0, 3, 1, 2, 1, 3])
trace = jax.jit(forward_trace)(params, tokens)
print("logits", np.round(np.asarray(trace.logits_C), 4))
fig, axes = plt.subplots(1, 4, figsize=(14, 3.2), layout="constrained")
for ax, (l, h) in zip(axes, [(0, 0), (0, 1), (1, 0), (1, 1)]):
    heatmap(fig, ax, trace.attention[l][h], "attention weight", cmap="viridis", vmin=0, vmax=1)
    ax.set_title(f"{layer_name(l)}, head {h + 1}")  # numbered from 1, as the papers' figures
    ax.set_xlabel("key $j$")
    ax.set_ylabel("query $i$")
plt.show()

# %% [markdown]
# ## Sparse attention patterns (Conti 2024, §2.1.1)

# %%
n = 16
patterns = {
    "sliding window w=3": masks.sliding_window_mask(n, 3),
    "dilated w=3, d=2": masks.dilated_window_mask(n, 3, 2),
    "global {0, 8}": masks.global_mask(n, [0, 8]),
    "BigBird": masks.bigbird_mask(jax.random.PRNGKey(1), n, 3, [0], 2),
}
fig, axes = plt.subplots(1, 4, figsize=(14, 3.2), layout="constrained")
for ax, (name, m) in zip(axes, patterns.items()):
    heatmap(fig, ax, np.asarray(m, float), "1 = query i may read key j", cmap="Greys", vmin=0)
    ax.set(title=name, xlabel="key $j$", ylabel="query $i$")
plt.show()

# %% [markdown]
# ## Linear attention (Conti 2024, §2.1.2)
# The O(n) causal form (prefix sums) equals its explicit quadratic form.

# %%
q, k, v = jax.random.normal(jax.random.PRNGKey(2), (3, 32, 8), dtype=jnp.float64)
fast = jax.jit(linear.linear_attention, static_argnames="causal")(q, k, v, causal=True)
slow, w = jax.jit(linear.linear_attention_quadratic, static_argnames="causal")(q, k, v, causal=True)
print("max |O(n) - quadratic| =", float(jnp.abs(fast - slow).max()))
assert float(jnp.abs(fast - slow).max()) < 1e-12

# %% [markdown]
# ## Chen & Zou's dependence demo
# `(a,b,r), (b,a,r), (a,a,r), (b,b,r)` are dependent (Def. 3): position-wise token multisets of the
# first two equal those of the last two. Every one-layer ReLU model (any number of heads) then gives
# `o0 + o1 = o2 + o3` (Prop. 8); two layers break it.

# %%
a, b, r = 0, 1, 2
seqs = jnp.array([[a, b, r], [b, a, r], [a, a, r], [b, b, r]])
# Many models at once: a batch of ModelParams (leading model axis), vmapped over models and
# sequences.
outputs = jax.jit(jax.vmap(jax.vmap(forward, in_axes=(None, 0)), in_axes=(0, None)))
rows = []
for heads in [(2,), (2, 2)]:  # (one layer, two heads), (two layers)
    cfg = ModelConfig(vocab_size=3, seq_len=3, width=8, num_classes=3, heads=heads)
    o = outputs(
        init_params_batch(jax.random.PRNGKey(0), cfg, N_MODELS, dtype=jnp.float64), seqs
    )  # (M, 4, C)
    resid = jnp.abs(o[:, 0] + o[:, 1] - o[:, 2] - o[:, 3]).max(-1) / jnp.abs(o).max((1, 2))
    rows.append((heads, float(resid.max())))
    print(
        f"heads per layer {heads}: max relative |o0 + o1 - o2 - o3| "
        f"over {N_MODELS} models = {rows[-1][1]:.2e}"
    )
assert rows[0][1] < 1e-12  # one layer: the relation holds exactly
assert rows[1][1] > 1e-6  # two layers: it does not
