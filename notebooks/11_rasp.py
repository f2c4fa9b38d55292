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
# # 11 — RASP programs compiled into the one parameter format, checked on every input
#
# RASP (Weiss et al. 2021) writes attention programs; tracr (Lindner et al. 2023) compiles them
# into weights. `transformer_theory.rasp` compiles them into this library's `ModelParams`, runs
# them with its own forward pass and compares EVERY node at EVERY position with the interpreter,
# on every short input. The constants (each head's softmax inverse temperature, each MLP ramp) are
# derived from the value sets and `max_seq_len` by a stated law, and the precision limits are
# measured beside that law. `TT_NOTEBOOK_SMOKE=1` picks small sizes.
#
# *Set-up:* the first code cell installs the library where it is not importable: in Colab or
# a fresh environment set `TT_INSTALL` first (the repository's git URL, a checkout's path or
# a wheel); in a checkout, `pip install .` beforehand does the same. Nothing is read from
# beside the notebook: the committed results it draws come with the package. CPU
# is enough.

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

jax.config.update("jax_enable_x64", True)

from transformer_theory import plotting, rasp  # noqa: E402
from transformer_theory.core import forward_trace  # noqa: E402

plotting.use_style()  # the library's figure style: readable sizes, a colour and marker per line
SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"
MAX_LEN = 4 if SMOKE else 6

# %% [markdown]
# ## A program: reverse
# `length` is the width of the all-true selector; position `i` reads the key whose index is
# `length - i - 1`. The interpreter defines the meaning.

# %%
t, i, C = rasp.tokens, rasp.indices, rasp.Comparison
length = rasp.SelectorWidth(rasp.Select(t, t, C.TRUE), label="length")
opp = rasp.SequenceMap(lambda n, k: n - k - 1, length, i, label="opp")
reverse = rasp.Aggregate(rasp.Select(i, opp, C.EQ), t, label="reverse")
print(rasp.evaluate(reverse, list("abca")))

# %% [markdown]
# ## Compile, then check on every input
# The compiled model is a `ModelParams` (softmax, heads summed, one-hot positions, a BOS token);
# `check` decodes every materialized node from the final residual stream.

# %%
compiled = rasp.compile(reverse, "abc", MAX_LEN)
print(compiled.sizes())
record = rasp.check(compiled)
print(
    {k: record[k] for k in ("inputs_checked", "positions_compared", "agree", "exact", "min_margin")}
)

# %% [markdown]
# ## The residual layout and the attention maps
# Rows of the stream are the labelled dimensions (`compiled.labels`); position 0 is BOS.

# %%
xs = list("abcab"[:MAX_LEN])
trace = forward_trace(compiled.params(), jnp.asarray(compiled.embed(xs)))
# The stream first, one row per labelled dimension at a readable size, then the attention maps.
stream = np.asarray(trace.streams_LxNxD[-1]).T
fig, ax = plt.subplots(figsize=(8, 0.22 * len(compiled.labels) + 1.2), layout="constrained")
image = ax.imshow(stream, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1)
ax.set_yticks(range(len(compiled.labels)), compiled.labels)
ax.set_xticks(range(stream.shape[1]), ["BOS", *xs])
ax.set(title="residual stream after the last layer", xlabel="position")
plotting.colorbar(fig, ax, image, "value")
plt.show()
fig, axes = plt.subplots(
    1, len(trace.attention), figsize=(4 * len(trace.attention), 3.6), squeeze=False
)
for k, att in enumerate(trace.attention):
    image = axes[0, k].imshow(np.asarray(att).sum(0), vmin=0, vmax=1)
    axes[0, k].set(title=f"layer {k + 1}: attention", xlabel="key", ylabel="query")
    plotting.colorbar(fig, axes[0, k], image, "weight")
plt.show()

# %% [markdown]
# ## Every library program: size, attention depth, agreement
# The attention depth of the dependency graph (Weiss et al. 2021) is a lower bound for the
# compiled attention sublayers; every library program meets it. A composition can exceed it:
# sort-then-reverse has attention depth 3 and compiles to 4 attention sublayers.

# %%
names = (
    ["length", "reverse", "histogram", "frac_prevs", "dyck1", "majority"]
    if SMOKE
    else list(rasp.PROGRAMS)
)
for name in names:
    spec = rasp.PROGRAMS[name]
    c = rasp.compile(spec.make(spec.vocab), spec.vocab, 3 if SMOKE else spec.max_len)
    r = rasp.check(c)
    s = c.sizes()
    print(
        f"{name:>18}: layers {s['layers']}, attention {s['attention_sublayers']} "
        f"(depth {s['attention_depth']}), heads {s['heads']}, width {s['residual_width']}, "
        f"{r['inputs_checked']} inputs, agree {r['agree']}, min margin {r['min_margin']:.3f}"
    )

# %% [markdown]
# ## Precision: the law against the measurement
# With tracr's MLP constant (a ramp of width 1/100) `length` is guaranteed exact while
# `N (N + 1) <= 100`; with the law's constant it stays exact at every length tried.

# %%
lengths = (4, 8, 9, 10, 12, 16)  # every size: the failure the text describes is at 16 (seconds)
for slope in (100.0, None):
    row = rasp.precision_limits(
        rasp.PROGRAMS["length"].make("ab"),
        "ab",
        lengths=lengths,
        dtypes=("float32",),
        samples=4,
        mlp_slope=slope,
    )[0]
    print(
        f"slope {slope}: exact up to {row['longest_exact']} (first failure "
        f"{row['first_failure'] or 'none up to ' + str(max(lengths))}); the law guarantees up "
        f"to {row['predicted_longest']}"
    )

# %% [markdown]
# ## Lower bounds beside the construction
# The attention depth of the dependency graph bounds the attention layers; the library's
# one-layer certificates (Chen & Zou 2024) say where ONE attention layer with a linear
# classifier (no MLP) cannot label every input's last position. `parity` is certified impossible
# from length 3, yet compiles to one layer: its MLP is what the certified family lacks. `dyck1`
# is certified at length 4 and compiles to two layers.

# %%
for name in ("parity", "dyck1", "majority"):
    spec = rasp.PROGRAMS[name]
    _, rec = rasp.study(spec.make(spec.vocab), spec.vocab, 4)  # compile, check, lower bounds
    lb = rec.lower_bounds
    print(
        f"{name:>8}: attention depth {lb.attention_depth}, compiled layers "
        f"{lb.compiled_layers}; one attention layer certified impossible at lengths "
        f"{list(lb.one_layer_certified_impossible_at) or 'none'} of 2..4"
    )
