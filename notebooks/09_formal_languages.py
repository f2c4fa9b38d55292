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
# # 09 — Transformers as language recognizers: MAJORITY, PARITY, Dyck-1
#
# The table of Strobl et al. 2024 lists which formal languages which transformer variants
# recognize. Here the rows that can be built exactly are built in the library's one parameter
# format and checked on every short string and on sampled long ones: MAJORITY with average-hard
# attention and no positional code (Pérez, Marinković & Barceló 2019), PARITY with softmax
# attention, the code `(i/n, (-1)^i)` and the LayerNorm trick (Chiang & Cholak 2022), Dyck-1 with
# causal average-hard attention (after Yao et al. 2021). `TT_NOTEBOOK_SMOKE=1` picks small sizes.
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

from transformer_theory import plotting, precision  # noqa: E402

precision.enable_x64()
plotting.use_style()  # the library's figure style: readable sizes, a colour and marker per line

from transformer_theory.papers import formal_languages as fl  # noqa: E402
from transformer_theory.papers import study_of  # noqa: E402
from transformer_theory.papers.formal_languages.experiments import languages  # noqa: E402

SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"
# The study behind `transformer-theory languages` (every row of the table): every string up to
# EXHAUSTIVE, then balanced samples at 16, 32, ..., max_len; PARITY's precision sweep at
# parity_lengths.
settings = languages.TableSettings(
    max_len=16 if SMOKE else 256,
    exhaustive_up_to=6 if SMOKE else 10,
    parity_lengths=(16, 64, 256) if SMOKE else (64, 256, 1024, 2048),
    parity_samples=4,
)

# %% [markdown]
# ## The languages and their generators
# Strings over `{0, 1}` (Dyck-1: `0 = "("`, `1 = ")"`), read after `BOS = 2`. The generators give
# balanced classes; membership is a counter or a running depth.

# %%
strings, labels = fl.sample("dyck1", 8, 6, seed=0)
for s, y in zip(strings, labels):
    print("".join("()"[x] for x in s), "member" if y else "not a member")

# %% [markdown]
# ## Build and check every row
# Each recognizer is a `ModelParams` run by `core.forward`; the margin `o_1 - o_0` is signed by the
# truth, so a positive smallest margin means every string was classified correctly.

# %%
# every row built and checked (a record per row, float64), then PARITY's precision sweep
table = study_of(languages).run(settings, progress=False)
rows = table.records  # a typed record per row (languages.json's, field for field)
for r in rows:
    print(
        f"{r.construction:>20}: {r.attention:>22}, code {r.positional:>13}, "
        f"{r.strings_checked} strings, accuracy {r.accuracy:.3f}, "
        f"min margin {r.min_margin:.3g}"
    )

# %%
# one line per row of the table, each its own colour and marker, the legend beside the axes
fig, ax = plt.subplots(figsize=(9, 4.2), layout="constrained")
for r in rows:
    xs = [e.length for e in r.by_length]
    ax.plot(xs, [abs(e.min_margin) for e in r.by_length], label=r.construction)
ax.set(xscale="log", yscale="log", xlabel="length", ylabel="smallest |margin|")
plotting.legend_outside(ax)
plt.show()

# %% [markdown]
# ## PARITY: the LayerNorm trick against Hahn's lemma
# Without the final LayerNorm the decision is `4/n^2` and the cross-entropy tends to 1 bit per
# string; with LayerNorm (`eps = 0`) the margin is `4 sqrt(5)` at every length, in float32 as in
# float64.

# %%
sweep = table.precision  # PARITY at settings.parity_lengths, in float32 and float64
fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
for dtype in ("float32", "float64"):
    for ln in (True, False):
        sel = [r for r in sweep if r.dtype == dtype and r.layer_norm == ln]
        ax.plot(
            [r.n for r in sel],
            [r.max_cross_entropy_bits for r in sel],
            ls="--" if dtype == "float32" else "-",  # float32 lies on float64: dashed over it
            label=f"{dtype}, {'LayerNorm' if ln else 'no LayerNorm'}",
        )
ax.set(xscale="log", xlabel="n", ylabel="max cross-entropy (bits)")
plotting.legend_outside(ax)
plt.show()

# %% [markdown]
# The `eps` matters: the library's default `1e-5` swamps the variance `2 d^2 / D ~ n^-4`.

# %%
p = fl.parity()
p_eps = p.replace(config=p.config.replace(norm_eps=1e-5))
s = np.array([[1] * 41], np.int32)
print(
    "eps = 0:",
    fl.decision_margins(p, s),
    " eps = 1e-5:",
    fl.decision_margins(p_eps, s),
)
print("float32 build:", fl.decision_margins(fl.parity(dtype=jnp.float32), s))

# %% [markdown]
# ## Hahn 2020's rows: training WITH hard attention
# Hahn 2020 proves that no leftmost-hard transformer recognizes PARITY or Dyck-1 at every length.
# Hard attention has no gradient, so a hard model is trained with the straight-through estimator:
# the forward pass is exactly leftmost-hard attention, the backward pass the softmax gradient of
# the same scores (`straight_through_weights`). On scores with a tie, the weights are one-hot on the
# first maximizer, and the gradient is the softmax one:

# %%
from transformer_theory.core.attention import softmax_weights  # noqa: E402

scores = jnp.array([[1.0, 3.0, 3.0, 0.0]])
print("weights:", fl.straight_through_weights(scores))
print("grad:   ", jax.grad(lambda s: fl.straight_through_weights(s)[0, 1])(scores))
print("softmax:", jax.grad(lambda s: softmax_weights(s)[0, 1])(scores))

# %% [markdown]
# A short run on Dyck-(2, 3) (lengths 4-16; `train_hard_attention` draws members and hard
# non-members of `dyck_k_sample`, labels from its stack), the softmax model beside the
# leftmost-hard one; the full experiment (PARITY, Dyck-1 and Dyck-2; softmax, straight-through, and
# an annealed softmax curriculum that ends straight-through, so the final model is the hard one)
# is `experiments/languages_generalization.py` (README), whose `run` this cell calls. A run that
# fails to learn proves no theorem: Hahn's result is about every parameter setting at unbounded
# length. At smoke size (CI) the run takes 2 steps, so both models sit near chance: the cell shows
# the interface only.

# %%
import tempfile  # noqa: E402

from transformer_theory.papers.formal_languages.experiments import (  # noqa: E402
    languages_generalization,
)

STEPS = 2 if SMOKE else 300
LENGTHS = (8,) if SMOKE else (8, 16, 64)
config = languages_generalization.GeneralizationSettings(
    size="notebook",
    modes=(("dyck2", ("softmax", "straight_through_leftmost")),),
    steps=STEPS,
    schedule="constant",
    final_temperature=0.01,
    train_lengths=(4, 8, 12, 16),
    eval_lengths=LENGTHS,
    samples=64,
    small=SMOKE,
)
result = study_of(languages_generalization).run(config, tempfile.mkdtemp(), progress=False)
for r in result.records:  # a typed record per model
    if r.steps:  # the trained models (the run also reads softmax weights as hard, and the
        # construction)
        print(
            f"{r.model:>22}: final loss {r.final_loss:.3f}, accuracy "
            + ", ".join(f"L={n}: {a:.2f}" for n, a in zip(r.eval_lengths, r.accuracy))
        )

# %% [markdown]
# ## SHUFFLE-DYCK-k and counter machines (Bhattamishra, Ahuja & Goyal 2020)
# The rows "SHUFFLE-DYCK-k" and "SSCMs" of the table: softmax attention, a future mask, no
# positional code. SHUFFLE-DYCK-k interleaves `k` bracket types (`2t` opens type `t`, `2t + 1`
# closes it); a string is a member iff no type's depth is negative in any prefix and every depth
# ends at 0. The construction (`counter_recognizer`) is one causal layer with `W_QK = 0`: softmax
# with equal scores averages the prefix, so each type's value `+-1` becomes its depth over the
# length, `r_t = depth_t / (i + 1)`, and BOS gives `b = 1 / (i + 1)`. A ReLU MLP turns these
# into one output per next symbol and one for the end, `b/2` where it may come next and at most
# `-b/2` where not: the paper's next-character convention, under which a string is accepted iff
# each symbol was predicted before it and the end after it.

# %%
m = fl.machine("shuffle_dyck_2")
sd_params = fl.counter_recognizer(m)
sd_strings, sd_labels, sd_kinds = fl.counter_sample("shuffle_dyck_2", 8, 3, seed=0)
brackets = "()[]"
for s, y, kind, acc in zip(sd_strings, sd_labels, sd_kinds, fl.recognize(sd_params, sd_strings)):
    print(f"{''.join(brackets[x] for x in s)}  {kind:>6}: member {y}, accepted {acc}")
# The outputs along the "dip" string (one type below zero, the total depth never negative):
# the row of position i says which symbols may follow, in units of 1/(2(i + 1)).
margins = fl.next_symbol_margins(sd_params, sd_strings[1:2])[0]
scale = 2 * np.arange(1, margins.shape[0] + 1)[:, None]
print("   " + "  ".join(f"{c:>4}" for c in [*brackets, "end"]))
print(np.round(margins * scale, 2))

# %% [markdown]
# Every string up to a length, in exact rational arithmetic (`exact_check` runs the
# same weights in `fmpq`, prefix by prefix): each output exactly `1/(2n)` or at most `-1/(2n)`,
# acceptance = membership. The claims `formal_languages.shuffle_dyck`, `.sscm_boolexp`,
# `.sscm_anbn` and `.sscm_anbncn` run this at README's sizes (`transformer-theory claims --id
# 'formal_languages.s[hs]*' --tier full`). The same counter layer recognizes n-ary Boolean
# expressions in prefix notation (one counter, the expressions still needed, started at 1 by
# BOS), and `a^n b^n`, `a^n b^n c^n` with counters that also check the order.

# %%
for language, length in [
    ("shuffle_dyck_1", 6),
    ("shuffle_dyck_2", 4 if SMOKE else 6),
    ("shuffle_dyck_3", 3 if SMOKE else 4),
    ("boolexp_3", 3 if SMOKE else 5),
    ("anbn", 6),
    ("anbncn", 6),
]:
    result = fl.exact_check(fl.counter_recognizer(fl.machine(language)), language, length)
    print(
        f"{language:>15}: lengths 0-{length}, {result['strings']:,} strings, "
        f"{result['members']} members, exact: {result['ok']}"
    )

# %% [markdown]
# The depth-to-length ratios the layer computes along one long member (Bhattamishra et al. find
# trained models' attention tracking the same ratio).

# %%
long_member = fl.counter_sample("shuffle_dyck_2", 16 if SMOKE else 256, 1, seed=1)[0][0]
# each type's depth after every prefix (row 0: BOS alone): +1 for its opening symbol 2t, -1 for
# its closing symbol 2t + 1
steps = np.stack([(long_member == 2 * t) * 1 - (long_member == 2 * t + 1) for t in range(2)], 1)
depth = np.concatenate([np.zeros((1, 2), int), np.cumsum(steps, 0)])
fig, ax = plt.subplots(figsize=(8, 3), layout="constrained")
for t in range(2):
    ax.plot(depth[:, t] / np.arange(1, len(depth) + 1), label=f"type {t}: depth / (i + 1)")
ax.set(xlabel="position i", ylabel="$r_t$")
plotting.legend_outside(ax)
plt.show()

# %% [markdown]
# ## Dyck-(k, D): bracket matching after Yao et al. 2021
# The table's Dyck-k row: `k` bracket types, nesting depth at most `D`. Strings over `2k`
# symbols (opening `0 .. k-1`, closing `k + t` for type `t`), read after `BOS = 2k`. The sampler
# gives members and *hard* non-members: closing types swapped (right counts, wrong matching, as in
# `( [ ) ]`), one level too deep, or a prefix dipping below zero.

# %%
from transformer_theory.core import forward_trace  # noqa: E402

k, D = 2, 2
glyph = "([)]"
dyck_strings, dyck_labels, dyck_kinds = fl.dyck_k_sample(k, D, 10, 8, seed=2)
for s, kind in zip(dyck_strings, dyck_kinds):
    print(" ".join(glyph[x] for x in s), " ", kind)

# %% [markdown]
# The recognizer (`dyck_k_recognizer`, our variant after Yao et al.; its docstring gives the
# weights): layer 1 averages the prefix for the depth `d_i / (i + 1)`; layer `l + 1` sends every
# position to the nearest opening bracket of depth `l` (score `-n |d_j - l| / (j + 1) + j / (2n)`);
# the last layer copies the largest error flag. Below, where each closing bracket of
# `( [ ] ) [ ( ) ]` looks in the level layers: its partner.

# %%
params = fl.dyck_k_recognizer(k, D)
example = np.array([0, 1, 3, 2, 1, 0, 2, 3])
trace = forward_trace(params, fl.dyck_k_embed(params, example[None])[0])
depths = np.concatenate([[0], np.cumsum(np.where(example < k, 1, -1))])
for i, x in enumerate(example, start=1):
    if x >= k:  # a closing bracket at level d_{i-1}: the level layer of that depth matches it
        level = depths[i - 1]
        partner = int(np.argmax(trace.attention[level][0, i]))
        seen = glyph[example[partner - 1]]
        print(f"position {i} '{glyph[x]}' (level {level}) -> position {partner} '{seen}'")

# %% [markdown]
# Every string up to a length against the stack, with the derived margins (members exactly
# `1/(4n)`, non-members at most `-3/(4n)`), average-hard and leftmost-hard alike; then softmax
# with the scores scaled by `2N ln(2N^2)`. The claims `formal_languages.dyck_k` and
# `.dyck_k_softmax` run this for k = 2, 3 and D = 1-4 (`transformer-theory experiment dyck_k`).

# %%
from transformer_theory.papers.formal_languages.experiments import dyck_k  # noqa: E402

check = dyck_k.DyckKSettings(  # the experiment's settings: one (k, D), both recognizers
    exhaustive=((k, 4 if SMOKE else 6),),
    depths=(D,),
    sampled_lengths=() if SMOKE else (16, 64),
    samples=32,
    precision_k=k,  # and a short margin sweep (its records are not read here)
    precision_depth=D,
    precision_lengths=(8,),
    precision_samples=2,
)
for attention, rec in zip(check.attentions, study_of(dyck_k).run(check, progress=False).records):
    print(
        f"{attention:>8}: {rec.strings_checked:,} strings, accuracy {rec.accuracy}, "
        f"smallest margin x n {rec.min_margin_times_n:.4f}, derived {rec.derived}, "
        f"leftmost = average: {rec.leftmost_max_difference in (None, 0.0)}"
    )
