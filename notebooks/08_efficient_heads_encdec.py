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
# # 08 — Efficient attention, the structure of heads, an encoder–decoder (Conti 2024)
#
# Three parts of Conti 2024, "The Math behind transformers", made measurable:
#
# 1. **Efficient attention (§2.1).** Longformer and BigBird computed block by block (never an
#    `n x n` array), linear attention, Linformer: equal to the dense masked reference where they
#    should be, their output error against exact attention as a function of their budget, and
#    their time and memory against the sequence length.
# 2. **Heads (§3.1).** Positional (`Σ1`), syntactic (`Σ2(w)`) and rare-token (`Σ3`) heads found by
#    the L1 projection onto band + bounded-error matrices, with the residual as the score.
# 3. **An encoder–decoder (§1.1–1.2)** trained with teacher forcing on a synthetic translation
#    grammar (reordering and agreement), decoded greedily and with beams, and its heads read.
#
# The notebook defines nothing but `show` (a figure as PNG); everything else is library code.
# `TT_NOTEBOOK_SMOKE=1` (set by CI) picks small sizes.
#
# *Set-up:* the first code cell installs the library where it is not importable: in Colab or
# a fresh environment set `TT_INSTALL` first (the repository's git URL, a checkout's path or
# a wheel); in a checkout, `pip install .` beforehand does the same. Nothing is read from
# beside the notebook: the committed results it draws come with the package.

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
import io
import os

import jax
import jax.numpy as jnp
import numpy as np
from IPython.display import Image, display

from transformer_theory import precision
from transformer_theory.core import attention, blocked, masks
from transformer_theory.papers import conti2024 as conti
from transformer_theory.plotting import heatmap, pyplot

precision.enable_x64()  # the entry point's switch: Linformer's references below are float64

plt = pyplot()  # the library's one backend choice (Agg): figures are drawn to PNG and shown


def show(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    display(Image(buf.getvalue()))


SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"  # CI runs the small sizes

# %% [markdown]
# ## 1. Efficient attention
#
# BigBird = sliding window ∪ global tokens ∪ random keys. The blocked version gives the same output
# as dense attention under the dense mask (here on 40 positions, where the mask is cheap to build):

# %%
n, dim = 40, 16
q, k, v = jax.random.normal(jax.random.key(0), (3, n, dim))
keys = blocked.random_keys(jax.random.key(1), n, 3)
out = blocked.bigbird_attention(q, k, v, 5, [0], keys)
mask = masks.sliding_window_mask(n, 5) | masks.global_mask(n, [0]) | blocked.keys_mask(keys)
dense, _ = attention.dot_product_attention(q, k, v, mask)
print("max |blocked - dense masked| =", float(jnp.max(jnp.abs(out - dense))))

# %% [markdown]
# Output error against exact softmax attention as a function of the budget. On i.i.d. inputs
# attention is spread over the whole sequence (the hard case for sparse patterns); on "local"
# inputs (queries and keys carry the sinusoidal code of their position) it is concentrated near the
# diagonal, which windows are made for.

# %%
err_n = 32 if SMOKE else 512
variants = ["sliding_window", "bigbird", "linformer", "performer", "linear_elu", "taylor"]
# A few budgets each in smoke mode (every budget is one compiled program); all powers of two else.
budgets = {"sliding_window": [2, 8, 64], "bigbird": [2, 8], "linformer": [4, 32], "performer": [16]}
records = []
for kind in ("iid", "local"):
    qb, kb, vb = conti.random_inputs(jax.random.key(2), 2 if SMOKE else 8, err_n, 64, kind)
    records += conti.error_vs_budget(
        qb, kb, vb, variants=variants, budgets=budgets if SMOKE else None, label=f"random {kind}"
    )
for r in records:
    if r.variant in ("sliding_window", "linear_elu") and r.budget in (None, 8, 2 * err_n):
        print(f"{r.inputs:>13} {r.variant:>15} budget {r.budget}: error {r.error:.3f}")

# %%
# The error against the budget, one panel per input kind (variants without a budget: a line).
fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for ax, inputs in zip(axes, ["random iid", "random local"]):
    for i, variant in enumerate(variants):
        pts = sorted(
            (r.budget, r.error) for r in records if r.inputs == inputs and r.variant == variant
        )
        if pts[0][0] is None:
            ax.axhline(pts[0][1], color=f"C{i}", ls="--", label=variant)
        else:
            ax.plot(*zip(*pts), "o-", color=f"C{i}", mfc="none", label=variant)
    ax.set(xscale="log", title=inputs, xlabel="budget (window / random keys / features / rank)")
axes[0].set_ylabel("relative error vs softmax attention")
axes[1].legend(fontsize=7)
show(fig)

# %% [markdown]
# Time and memory against `n`. Memory is XLA's own account of the compiled program (argument,
# output and temporary buffers); the dense reference is `jax.nn.dot_product_attention`. The fitted
# log-log slopes say which variants are really sub-quadratic (the command
# `transformer-theory efficient-attention --max-len 16384 --out DIR` runs the full study). At
# smoke size the lengths stop at 1024, where the time slopes are mostly fixed costs and noise
# (they change from run to run); the memory slopes already separate dense attention (1.8, tending
# to 2) from the sub-quadratic variants (1.0).

# %%
lengths = [128, 256, 512, 1024] if SMOKE else [512, 1024, 2048, 4096]
cost = conti.cost_vs_length(
    lengths, variants=["sliding_window", "bigbird", "linear_elu", "dense"], repeats=2
)
slopes = conti.fit_slopes(cost, min_n=lengths[1], min_points=3)  # a slope needs 3 lengths
for name, s in slopes.items():
    print(f"{name:>15}: time slope {s['seconds']:.2f}, memory slope {s['xla_bytes']:.2f}")
if not slopes:
    print("slopes n/a: fewer than 3 lengths from", lengths[1])

# %% [markdown]
# ## 2. The structure of heads
#
# Conti 2024, eq. 19: a head's map is a structured part from one of three families plus a small
# error. The L1 projection onto "free on the family's support, `|e| <= eps` elsewhere" has a
# closed form, so each family gets a residual score in `[0, 1]`; the simplest family within a
# slack of the best wins. Synthetic heads of each kind, with noise:

# %%
rng = np.random.default_rng(0)
fig, axes = plt.subplots(1, 4, figsize=(12, 3))
for ax, kind in zip(axes, ["positional", "syntactic", "rare_token", "diffuse"]):
    m = conti.synthetic_head(kind, 12, rng, noise=0.5)
    rec = conti.classify_map(m)
    heatmap(fig, ax, m, "attention weight", vmin=0)
    ax.set_title(f"built {kind}\nfound {rec['kind']} ({rec['score']:.2f})", fontsize=9)
    ax.set_xlabel("key position")
    ax.set_ylabel("query position")
    print(kind, "->", rec["kind"], {f: round(s, 3) for f, s in rec["scores"].items()})
show(fig)

# %% [markdown]
# Conti 2024 allows each family "up to a proper permutation" (eq. 19-20). A sharp alignment that
# reorders -- each query reading its own key, far from the diagonal -- is in none of the families
# as printed, and a positional head once its columns are permuted. The permutation is an
# assignment problem (`classify_map` solves it); every record reports both classifications:

# %%
sigma = rng.permutation(12)
m = conti.synthetic_head("diffuse", 12, rng, noise=0.1) + 4 * np.eye(12)[sigma]
m /= m.sum(axis=1, keepdims=True)
rec = conti.classify_map(m)
print("plain:", rec["kind"], "| up to a permutation:", rec["permuted"]["kind"])
print("sigma:", sigma.tolist(), "\nfound:", rec["permuted"]["order"])

# %% [markdown]
# ## 3. An encoder–decoder on a synthetic translation grammar
#
# English-like SVO with optional adjectives before the noun → an Italian-like SOV with adjectives
# after the noun, determiners and adjectives agreeing with the noun's gender and number, and the
# verb with the subject's number:

# %%
from flax import nnx

from transformer_theory.nn.encdec import EncoderDecoder, Seq2SeqConfig
from transformer_theory.papers.conti2024 import BOS, EOS, Translation, token_accuracy
from transformer_theory.train import TrainSettings
from transformer_theory.train import seq2seq as s2s

task = Translation(num_nouns=3, num_adjectives=2, num_verbs=2) if SMOKE else Translation()
src, tgt = task.pairs(np.array([0, 7, task.size - 1]))
for s, t in zip(src, tgt):
    print(f"{task.describe(s):<45} -> {task.describe(t)}")
print(task.size, "sentence pairs; vocabulary", task.vocab_size)

# %% [markdown]
# One layer with eight heads (Conti 2024, §3.1 compares one and eight heads), trained with teacher
# forcing (Adam); then greedy decoding of the held-out sentences against the grammar's reference.

# %%
data = s2s.split_pairs(task, jax.random.key(0), 0.5, bos=BOS)  # half the pairs held out
cfg = Seq2SeqConfig(
    vocab_size=task.vocab_size,
    width=32 if SMOKE else 64,
    num_heads=8,
    ffn_hidden=64 if SMOKE else 128,
)
tc = TrainSettings(
    steps=200 if SMOKE else 1000,
    batch_size=64,
    learning_rate=3e-3,
    optimizer="adam",
    grad_clip=1.0,
    log_every=100,
)
params, rows = s2s.train_seq2seq(EncoderDecoder(cfg, rngs=nnx.Rngs(0)), data, tc, progress=False)
print("held-out teacher-forced token accuracy:", [round(r["eval_acc"], 3) for r in rows])
greedy, greedy_lp = s2s.decode_all(params, data.src_eval_BxN, task.target_len)
print("greedy decoding:", token_accuracy(greedy, data.tgt_eval_BxT))

# %% [markdown]
# Beam search: beam 1 is greedy; a wider beam usually finds more likely sequences, but beam
# search does not guarantee it (`transformer_theory.core.beam` explains why; its test builds a
# model where a beam of 2 ends below a beam of 1). Here, how often it happens:

# %%
sub = data.src_eval_BxN[:64]
beam2, beam2_lp = s2s.decode_all(params, sub, task.target_len, beam_size=2)
print("beam 2 exact match:", token_accuracy(beam2, data.tgt_eval_BxT[:64])["exact_match"])
print(
    "sentences where beam 2 is less likely than greedy:",
    int((beam2_lp < greedy_lp[:64] - 1e-5).sum()),
)

# %% [markdown]
# The decoder users know stops each hypothesis at `<eos>`, keeps the finished ones and ranks them
# by `log p(y) / ((5 + |y|) / 6)^alpha` (GNMT's length penalty): `beam.beam_decode_eos`.

# %%
from transformer_theory.core import beam

hyp = beam.beam_decode_eos(params, sub[0], BOS, EOS, task.target_len, 4, alpha=0.6)
for i in range(4):
    m_i = int(hyp.lengths_K[i])
    print(
        f"score {float(hyp.scores_K[i]):7.3f}  log p {float(hyp.logprobs_K[i]):7.3f}  "
        f"{task.describe(np.asarray(hyp.tokens_KxL[i, :m_i]))}"
    )
print("reference:", task.describe(np.asarray(data.tgt_eval_BxT[0])))

# %% [markdown]
# The heads of the trained model, as in Conti 2024, Figures 11–12: every head's map on one
# held-out sentence, titled with its kind and score over 32 sentences.

# %%
from transformer_theory.nn import activations

maps = activations.seq2seq_maps(
    params, data.src_eval_BxN[:32], s2s.decoder_inputs(data.tgt_eval_BxT[:32])
)
records = conti.classify_model(maps)
for r in records:
    print(
        f"{r['attention']:>8} head {r['head'] + 1}: {r['kind']:<10} score {r['score']:.2f}; "
        f"up to a permutation {r['permuted']['kind']:<10} score {r['permuted']['score']:.2f}"
    )
words = task.words()
src_w = [words[t] for t in data.src_eval_BxN[0]]
tgt_w = [words[t] for t in s2s.decoder_inputs(data.tgt_eval_BxT[:1])[0]]
labels = {"encoder": (src_w, src_w), "decoder": (tgt_w, tgt_w), "cross": (tgt_w, src_w)}
by_head = {(r["attention"], r["layer"], r["head"]): r for r in records}
heads = maps[0][2].shape[1]
cols = 4  # four heads a row at the page's width: every label readable (eight were shrunk to 5 px)
rows_per = -(-heads // cols)
fig, axes = plt.subplots(
    len(maps) * rows_per, cols, figsize=(9, 2.9 * len(maps) * rows_per), squeeze=False
)
for row, (kind, layer, m) in enumerate(maps):  # m: (B, H, Q, K); draw the first sentence
    q_words, k_words = labels[kind]
    for h in range(heads):
        ax = axes[row * rows_per + h // cols][h % cols]
        ax.imshow(np.asarray(m[0, h]), vmin=0, vmax=1)
        r = by_head[(kind, layer, h)]
        ax.set_title(f"{kind}, head {h + 1}\n{r['kind']} ({r['score']:.2f})")
        ax.set_yticks(range(len(q_words)), q_words if h % cols == 0 else [])
        ax.set_xticks(range(len(k_words)), k_words, rotation=90)
fig.colorbar(axes[0][0].images[0], ax=axes, shrink=0.3, label="attention weight (0 to 1)")
show(fig)

# %% [markdown]
# ## Linformer's random projection, as the thesis writes it (§2.1.3)
# Eq. 16 approximates `P = softmax(A)` by `P R^T R` with a Gaussian `R` (`k' x n`, entries
# `N(0, 1/k')`) and claims `||P~ w - P w|| < eps ||P w||` for ANY value vector `w`. Uniform
# attention and `w = e_0 - e_1` give `P w = 0` while `P~ w != 0`, so that cannot hold; what the
# Johnson-Lindenstrauss argument gives is a per-row bound relative to `||P_i|| ||w||`, at
# `k' = O(log n / eps^2)`. Below: the printed form's witness, the `k'` the corrected bound needs
# against `n` (measured, beside the union bound's), and the spectrum of the trained encoder's
# attention above (how many singular values hold 90% of `||P||_F^2`).

# %%
n0 = 8
w0 = np.eye(n0)[0] - np.eye(n0)[1]
uniform = np.full((n0, n0), 1.0 / n0)
r0 = conti.jl_projection(0, 4, n0)  # R: k' = 4 rows, entries N(0, 1/k')
print(
    f"eq. 16 with P w = 0: ||P R^T R w - P w|| = {np.linalg.norm(uniform @ r0.T @ r0 @ w0):.3f}, "
    f"||P w|| = {np.linalg.norm(uniform @ w0):.3f}: no eps bounds the ratio"
)
jl = conti.scaling_study(
    (32, 64) if SMOKE else (64, 128, 256, 512, 1024),
    0.5,
    0.1,
    kinds=("iid",) if SMOKE else ("iid", "local"),
    trials=20 if SMOKE else 100,
)
for r in jl["rows"]:
    print(
        f"{r['kind']:5s} n={r['n']:5d}: k' needed {r['rank_needed']}, union bound "
        f"{r['row_bound_rank']}, Lemma 2.1 {r['lemma_rank']}"
    )
slopes = ", ".join(f"{kind} {slope:.1f}" for kind, slope in jl["slopes"].items())
print(f"slope of k' against ln n: {slopes} (union bound {jl['bound_slope']:.1f})")
enc = [m for attention, _, m in maps if attention == "encoder"][0]  # (B, H, N, N)
ranks = [conti.spectrum_rank(enc[b, h]) for b in range(enc.shape[0]) for h in range(enc.shape[1])]
print(
    f"trained encoder attention (n = {enc.shape[-1]}): 90% of ||P||_F^2 in {np.mean(ranks):.1f} "
    "singular values on average"
)

# %% [markdown]
# The same classifier reads Chen & Zou 2024's depth models: a two-layer in-context QA run of the
# Figure 2 experiment (its first layer starts from the copy pattern, blocks of question, sign and
# answer reading each other -- a syntactic head).

# %%
import tempfile

from transformer_theory import sweeps
from transformer_theory.papers.chen_zou2024.experiments import fig2_depth

config = fig2_depth.get_config("default").replace(
    heads={"reasoning": ((1, 1),)}, seeds=(0,), steps=20 if SMOKE else 2000
)
out = tempfile.mkdtemp()
sweeps.run_experiment(config, out, progress=False)
spec = config.runs()[0]
trained = sweeps.trained_params(spec, out)
tokens = sweeps.build_data(spec).eval_tokens_BxN[:32]
for r in conti.classify_model(activations.depth_maps(trained, tokens)):
    print(f"layer {r['layer'] + 1} head {r['head'] + 1}: {r['kind']} (score {r['score']:.2f})")
