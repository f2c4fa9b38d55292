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
# # 05 — n-gram language models as transformers (Svete & Cotterell 2024)
#
# Every n-gram LM is weakly equivalent to a transformer LM with hard or sparse attention: with
# `n - 1` heads and one layer (Theorem 3.1), one head and `n - 1` layers (3.2), or one head and one
# layer (3.3). Here we build the paper's three (as the authors' rycolab/transformer-ngrams builds
# them) and this library's two variants (3.2-direct, 3.3-slots) for a random n-gram LM, check
# `log q(y) = log p(y)` on every string up to a length, find how long the strings can
# get before float64 / float32 / bfloat16 rounding breaks the construction, and see how close
# softmax attention gets as its scale `beta` grows. `TT_NOTEBOOK_SMOKE=1` picks small sizes.
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

from transformer_theory.precision import enable_x64

enable_x64()

from transformer_theory.core.forward import forward_trace, lm_inputs, lm_log_probs  # noqa: E402
from transformer_theory.papers import svete_cotterell2024 as sc  # noqa: E402
from transformer_theory.papers.svete_cotterell2024 import NGramLM  # noqa: E402
from transformer_theory.precision import PRECISIONS, dtype_of, significand_bits  # noqa: E402

SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"

# %% [markdown]
# ## An n-gram LM
# A trigram LM over `Sigma = {0, 1, 2}`: one row over `Sigma + EOS` per BOS-padded history, drawn
# from a Dirichlet, with 20% exact zeros (impossible continuations, `log 0 = -inf`).

# %%
lm = NGramLM.random(0, 3, 3, zero_fraction=0.2)
print("histories (oldest first, 3 = BOS):\n", lm.histories_AxN[:5], "...")
print("p(. | BOS BOS) =", np.round(np.exp(lm.log_probs_AxC[0]), 3))
y = np.array([[0, 2, 1]])
print("log p(0 2 1) =", lm.log_prob(y)[0], "| mass of strings up to 6:", lm.mass_up_to(6))

# %% [markdown]
# ## The constructions
# All but the paper's 3.3 are a `ModelParams` with `causal_lm=True`: the model reads `BOS^{n-1} y`
# and its output at every position is the next-symbol distribution. 3.1 attends with head `h` to
# position `t - h` (the score `<u(t), u(j+h)>`, `u(s) = (sqrt(1/s), sqrt(1 - 1/s))`, is 1 exactly
# there); the paper's 3.2 composes the history, every layer attending to offset 1; 3.2-direct puts
# 3.1's heads one per layer; 3.3-slots' one head averages the last `n - 1` positions and keeps
# their order in slots `j mod (n - 1)`. The paper's 3.3 scores with `-ReLU(t - j - (n - 2))`,
# averages values `10^-j onehot(y_j)` and decodes the digits with an MLP: a ReLU inside the score,
# so it is its own small model (`sc.Paper33`).

# %%
models = {c: sc.build(lm, c, attention="hard", max_len=8) for c in sc.CONSTRUCTIONS}
for c, p in models.items():
    cfg = p.config
    got = float(jnp.sum(jax.jit(lm_log_probs)(p, jnp.asarray(y[0]))))
    print(f"{c}: heads {cfg.heads}, width {cfg.width}, MLP units {cfg.mlp_hidden}; log q = {got}")
paper33 = sc.build_paper33(lm)
got = float(sc.transformer_log_prob(paper33, y)[0])
print(f"3.3 (the paper's): one head, one layer, digit MLP of depth {lm.order - 1}; log q = {got}")

tokens = lm_inputs(models["3.1"].config, jnp.asarray([0, 2, 1, 1, 0]))
fig, axes = plt.subplots(1, 3, figsize=(9, 3))
trace = jax.jit(forward_trace)
maps = list(trace(models["3.1"], tokens).attention[0]) + [
    trace(models["3.3-slots"], tokens).attention[0][0]
]
for ax, m, title in zip(axes, maps, ["3.1 head 0", "3.1 head 1", "3.3-slots (one head)"]):
    ax.imshow(np.asarray(m), cmap="Blues")
    ax.set(title=title, xlabel="key", ylabel="query")
fig.tight_layout()

# %% [markdown]
# ## Weak equivalence, checked
# Every string up to the length, EOS included: the largest `|log q(y) - log p(y)|`, the strings
# with probability 0 under both, and the mass `sum_{|y| <= L} q(y)` beside the n-gram's own.

# %%
max_len = 3 if SMOKE else 7
for c in [*models, "3.3"]:
    for attention in ("hard",) if SMOKE or c == "3.3" else ("hard", "sparse"):
        if c == "3.3":
            params = paper33
        else:
            params = sc.build(lm, c, attention=attention, max_len=max_len)
        rec = sc.equivalence_record(lm, params, max_len)
        print(
            f"{c} {attention:6s}: equivalent={rec['equivalent']} on {rec['strings']} strings, "
            f"max diff {rec['max_abs_logprob_diff']:.1e}, mass {rec['mass_transformer']:.12f} "
            f"vs {rec['mass_ngram']:.12f}"
        )

# %% [markdown]
# ## Precision: how long until rounding breaks it?
# 3.1/3.2's score gap between the target and its neighbour shrinks like `1/(8 t^3)`; 3.3-slots'
# polynomial scores are exact integers only while their largest intermediate stays below `2^p`;
# the paper's 3.3 needs its values `10^-t` to stay normal numbers. The rounding of a score depends
# on the sequence length (the compiler picks the reduction order from the shapes), so the scan
# runs the model at EVERY length up to its limit; the derivation gives a guaranteed length below.

# %%
limit = 6 if SMOKE else 40
for c in ("3.1", "3.3-slots", "3.3"):
    for name in PRECISIONS:
        dtype = dtype_of(name)
        if c == "3.3":
            scan = sc.paper33_scan(sc.build_paper33(lm, dtype=dtype), max_length=limit)
            derived = None
        else:
            p = sc.build(lm, c, max_len=8, dtype=dtype)
            scan = sc.selection_scan(p, c, max_length=limit)
            derived = sc.predicted_exact_length(c, 3, dtype)
        longest = scan["longest_exact_length"]
        exact = f">= {limit} (scan limit)" if longest is None else longest
        print(f"{c:9s} {name:9s}: exact at every length up to {exact} (derived {derived})")

t = np.unique(np.logspace(0, 5, 200).astype(int))
plt.figure(figsize=(5, 3.5))
plt.loglog(t, sc.score_gap(t), "k-", label="3.1/3.2 score gap")
for name in PRECISIONS:
    plt.axhline(10 * 2.0 ** -significand_bits(name), ls=":", label=f"10u {name}")
plt.xlabel("position t")
plt.legend(fontsize=7)
plt.title("the gap against each format's rounding")

# %% [markdown]
# ## Soft attention
# Replace hardmax by a softmax of `beta` times the scores. The KL divergence from the n-gram (on
# the first `L + 1` outcomes) falls as `beta` grows; 3.3-slots' integer gap needs a small,
# length-free `beta`, while 3.1's shrinking cosine gap needs a `beta` that grows with the length.

# %%
soft_lm = NGramLM.random(1, 2, 3)  # no exact zeros: a softmax spreads weight everywhere
L = 2 if SMOKE else 6
betas = [1, 100, 1e4] if SMOKE else [1, 10, 100, 1e3, 1e4, 1e5]
plt.figure(figsize=(5, 3.5))
for c in ("3.1", "3.3-slots"):
    kl = [max(sc.soft_kl(soft_lm, c, b, L), 1e-18) for b in betas]
    plt.loglog(betas, kl, "o-", label=c)
plt.xlabel("beta")
plt.ylabel(f"KL, first {L + 1} outcomes")
plt.legend()
for c in ("3.1", "3.3-slots"):
    lengths = [L] if SMOKE else [2, 4, L]
    need = [sc.beta_for_kl(soft_lm, c, 1e-3, n) for n in lengths]
    print(f"{c}: beta for KL <= 1e-3 at lengths {lengths}: {np.round(need, 1)}")

# %% [markdown]
# ## Size of the constructions (Theorem 5.1's topic)
# The slides say only that "space complexity has been addressed in Theorem 5.1"; the bound itself
# is not printed in the source texts, so here the BUILT models are counted: width, heads, layers,
# stored numbers, non-zero weights outside the n-gram table, and the significand bits the
# structural weights need, beside the closed forms in `n` and `|Sigma|` (`sc.space_table`). The
# width is dominated by the `A = sum_k |Sigma|^k` history indicators, exponential in `n`.

# %%
size_rows = sc.space_table([2, 3] if SMOKE else [2, 3, 4, 5], [2] if SMOKE else [2, 3])
for r in size_rows:
    print(
        f"{r['construction']:10s} n={r['order']} |Sigma|={r['alphabet']}: width {r['width']:4d}, "
        f"{r['layers']} layer(s), {r['heads']} head(s), {r['params']:7d} numbers, "
        f"{r['nonzero_structural']:5d} non-zero, {r['significand_bits']:2d} significand bits, "
        f"closed form {'=' if r['matches'] else 'DIFFERS'}"
    )
