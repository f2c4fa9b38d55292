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
# # 06 — Transformers against other networks: qSA, Match2/Match3, function composition
#
# Sanford et al. 2023 and Peng et al. 2024.
#
# Build the self-attention units of Sanford, Hsu & Telgarsky 2023 in the library's one parameter
# format, check them (the restricted isometry property measured on the drawn matrix, the qSA error
# over the whole input space, Match2/Match3Bigram/Match3Local on every small input), see how much
# floating-point precision they need, and look at the function-composition prompts and the error
# bound of Peng, Narayanan & Papadimitriou 2024. `TT_NOTEBOOK_SMOKE=1` picks small sizes.
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
import itertools
import os

import matplotlib.pyplot as plt
import numpy as np

from transformer_theory import precision

precision.enable_x64()  # float64 is one of the formats compared, before any array

from transformer_theory.papers import peng2024 as comp  # noqa: E402
from transformer_theory.papers import sanford2023 as analysis  # noqa: E402
from transformer_theory.precision import FORMATS  # noqa: E402

SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"

# %% [markdown]
# ## q-sparse averaging
# A Rademacher `U` (`m x N`, scaled by `1/sqrt(m)`); its restricted isometry / orthogonality
# constants measured exhaustively; the vectors `w_y` (least norm, LP where needed); the unit
# `phi, Q, K, V` with `alpha = ceil(2 log(4N/eps))`. The worst error over ALL inputs is exact: the
# attention row of query `i` depends only on `y_i`, and the error is linear in the `z_j`.

# %%
n, q, eps, rows = 8, 2, 0.1, 32
u = analysis.rademacher(0, rows, n)
print(analysis.rip_constants(u, q))
unit = analysis.qsa_construction(n, q, 2, eps, rows, seed=0)
print("alpha", unit.alpha, "| worst error over all inputs:", analysis.qsa_worst_error(unit))
z, members = analysis.qsa_sample(1, 1000, n, q, 2)
out, ok = analysis.qsa_apply(unit, z, members)
target = np.einsum("bij,bjz->biz", members, z) / members.sum(-1, keepdims=True)  # (1/q) sum z_j
print("sampled max error", np.linalg.norm(out - target, axis=-1).max())

# %% [markdown]
# The smallest `m` at which the drawn unit reaches `eps`, against `q log N` (four `(N, q)` cells at
# smoke size, five up to `N = 32` at full size).

# %%
grid = [(6, 1), (8, 1), (8, 2), (12, 2)] if SMOKE else [(8, 1), (16, 1), (16, 2), (32, 2), (32, 4)]
recs = [analysis.qsa_record(n, q, eps, samples=1000) for n, q in grid]
for r in recs:
    print({k: r[k] for k in ("N", "q", "m_min", "bits_min", "max_error", "rip_isometry")})
plt.scatter([r["q_log_N"] for r in recs], [r["m_min"] for r in recs])
plt.xlabel("q log N")
plt.ylabel("smallest m reaching eps")
plt.show()

# %% [markdown]
# ## The lower bound as code: set disjointness (the slides' reduction)
# Alice puts `2i - 1` (if `a_i = 1`) or `2i` into `y_{2q+1}`; Bob sets `z_j = e_1` for odd `j`
# with `b_{(j+1)/2} = 1`, else `-e_1`. Then `qSA(X)_{2q+1} = (-1 + 2|a & b|/q) e_1`: it is `-e_1`
# iff the sets are disjoint, and otherwise at least `2/q` away, so an `eps < 1/q` approximation
# decides DISJ. Checked on every pair in exact rationals, then with the library's qSA unit whose
# query `Q(x_{2q+1})` (the only thing of Alice's that Bob needs) is quantized to `p` bits and sent
# as exactly `m p` bits: a protocol right on every pair needs `2^q` distinct messages, `m p >= q`.

# %%
from transformer_theory.papers import study_of  # noqa: E402
from transformer_theory.papers.sanford2023.experiments import sanford as study  # noqa: E402

for q_disj in (1, 2, 3, 4):
    print(analysis.reduction_record(q_disj))
table = analysis.protocol_table((1, 2) if SMOKE else (1, 2, 3, 4))
for r in table:
    print(study_of(study).protocol_summary(r))
for r in analysis.match3_bound_table(study.match3_trained())[:3]:
    print({k: r[k] for k in ("source", "N", "m", "p", "H", "c_needed")})

# %% [markdown]
# ## Match2, Match3Bigram, Match3Local on every small input
# `j = i` is allowed (the Match2 construction attends to itself).

# %%
x = np.array(list(itertools.product(range(6), repeat=3)))
for name, params, window in [
    ("match2", analysis.match2_construction(3, 6), 0),
    ("match3bigram", analysis.match3bigram_construction(3, 6), 0),
    ("match3local", analysis.match3local_construction(3, 6, 1), 1),
]:
    predicted = analysis.UNITS[name].apply(params, x, 6, window)  # the unit's forward pass
    right = predicted == analysis.match_labels(name, x, 6, window)  # brute-force reference
    print(name, "accuracy on all of [6]^3:", np.mean(right))

# %% [markdown]
# ## Precision: which float format keeps Match2 exact as `M` grows (`c = M^2 log 6N`)
# From `M = 64` on (smoke size already: `N = 4, 8, 11`) the 16-bit formats miss on sampled inputs
# while float32 and float64 stay exact; the full size goes on to `N = 64` (from `N = 12` on the
# constant `c` exceeds float16's largest number, 65504, and NumPy warns of the overflow).

# %%
sizes = [4, 8, 11] if SMOKE else [4, 8, 16, 32, 64]
by_format = [analysis.match_record("match2", n, n * n, samples=2000) for n in sizes]
for dtype in FORMATS:
    plt.plot(
        [r["M"] for r in by_format],
        [r["accuracy_by_dtype"][dtype] for r in by_format],
        "o-",
        label=dtype,
    )
plt.xscale("log")
plt.xlabel("M = N^2")
plt.ylabel("accuracy")
plt.legend()
plt.show()

# %% [markdown]
# ## Function composition (Peng et al. 2024)
# A prompt for `g(f(a))` with domains of size 4, and the Theorem 1 error bound `R / (3 n log n)`,
# `R = n log n - H (d + 1) p`, against the embedding width.

# %%
tokens, answers = comp.composition_sample(0, 1, 4, depth=2)
print(tokens[0], "->", answers[0])
widths = np.arange(1, 64)
for bits in (8, 16, 32):
    plt.plot(widths, [comp.peng_error_bound(1024, 1, d, bits) for d in widths], label=f"p={bits}")
plt.xlabel("embedding d (H = 1, n = 1024)")
plt.ylabel("lower bound on the error")
plt.legend()
plt.show()

# %% [markdown]
# ## How many bits one layer needs (Theorem 1, the other side)
# The bound is positive below `n log2 n` message bits `H (d + 1) p`. A hand-built one-layer model
# (ours: `peng2024.build`, two heads and a ReLU MLP on pair-token prompts, each
# table entry one token `(argument, value)`) answers `g(f(x))` right on every prompt of n = 3 at
# its fewest exact bits, and errs with one bit fewer: its `H (d + 1) p` is a budget that
# suffices. `experiments/composition_one_pass.py` trains the same architecture from random
# weights (an auxiliary `f(x)` curriculum) where the bound is void and where `R > 0`. Building and
# checking every prompt is slow beyond n = 3, so the smoke size draws n = 2, 3 only (a line
# through two points; the full size goes to n = 16): the built budget stays far above `n log2 n`.

# %%
tokens3, answers3 = comp.all_prompts(3)
for bits in (2, 3):
    wrong = comp.errors(comp.build(3, bits), tokens3, answers3)
    print(f"n = 3, p = {bits}: {wrong} of {len(tokens3)} prompts wrong")
rows = comp.budget_table((2, 3) if SMOKE else (2, 3, 4, 8, 16))
for r in rows:
    print(
        f"n = {r['n']}: exact at p = {r['bits']}, H (d + 1) p = {r['construction_bits']} bits; "
        f"the bound is positive below n log2 n = {r['threshold_bits']:.1f}"
    )
plt.loglog([r["n"] for r in rows], [r["construction_bits"] for r in rows], "k*-", label="built")
plt.loglog([r["n"] for r in rows], [r["threshold_bits"] for r in rows], "C0--", label="n log2 n")
plt.xlabel("domain size n")
plt.ylabel("message bits H (d + 1) p")
plt.legend()
plt.show()

# %% [markdown]
# ## Chain of thought (Peng et al. 2024, Theorem 2)
# Iterated composition of `K` functions in table form (`peng2024.cot_sample`): the token at
# position `(k - 1) n + i` is `f_k(i)`, so each token names the position of its next value and one
# CoT step is one lookup. A one-layer causal model writes `f_1(x)`, `f_2(f_1(x))`, ... on the
# growing prompt (`cot.generate`). Theorem 2 says a layer needs `Omega(sqrt(n / (H d p)))` such
# steps; `experiments/composition_cot.py` measures the steps a trained one-layer model needs
# (an upper bound for that recipe; the Omega's constant is not given). The model trained in the
# cell below is a demonstration of the format: at smoke size it takes 10 Adam steps and answers at
# about chance (1/4); the plot after it is the committed sweep of trained models.

# %%
from transformer_theory.papers import peng2024 as cot  # noqa: E402

prompt, chain = cot.cot_sample(0, 1, 3, 2)
print("prompt", prompt[0], "-> chain", chain[0])
record = cot.cot_record(4, 2, 1, 1, 8, None, steps=10 if SMOKE else 800, held_out=200)
print(
    "one layer, d = 8, float32, 2 CoT steps: answer accuracy",
    record["accuracy"],
    "per token",
    record["token_accuracy"],
)
# the committed sweep (experiments/composition_cot.py): the checkout's record, or the wheel's copy
from transformer_theory.ledger import RESULTS_DIR  # noqa: E402

results = os.path.join(RESULTS_DIR, "peng2024_composition_cot.json")
if os.path.exists(results):
    from transformer_theory.jsonio import read_json  # noqa: E402

    summary = read_json(results)["summary"]
    for r in summary:
        y = r["steps_needed"] or max(r["steps_tried"]) + 1
        plt.scatter(r["cot_bound"], y, c="C0" if r["steps_needed"] else "none", edgecolors="C0")
        plt.annotate(f"n={r['n']} d={r['d']} p={r['p']}", (r["cot_bound"], y), fontsize=6)
    plt.xlabel("sqrt(n / (H d p))")
    plt.ylabel("CoT steps for the target (hollow: none reached it)")
    plt.show()
else:
    print(f"{results} not found: run experiments/composition_cot.py to draw the committed sweep")

# %% [markdown]
# ## The qSA separation, trained
# One softmax attention unit (query/key width `m`), a fully connected ReLU network and a GRU, each
# trained with Adam on q-sparse averaging (`sanford2023.qsa_trained_record`); the dotted
# lines are the numbers of Sanford et al. 2023's bounds drawn on a width axis. Only the FNN's
# (`N d'/2`) counts width; attention's (`m p >= q`) and the RNN's (`(N - 1)/2` for `q = d' = 1`)
# count BITS, which a float32 width of 1 or 2 already exceeds, so here they test nothing:
# `experiments/sanford_qsa_bits.py` quantizes the query and the state and sweeps width x precision
# across them. The full float32 sweep is `experiments/sanford_qsa_separation.py`. At smoke size
# (N = 6, 300 Adam steps, two or three widths each) the widest FNN reaches `eps` and attention
# comes close, while the GRU stays far above it; the full size trains 3000 steps at N = 16.

# %%
n, q, steps = (6, 1, 300) if SMOKE else (16, 1, 3000)
widths = (
    {"attention": [1, 2, 4], "fnn": [2, 64], "rnn": [2, 8]}
    if SMOKE
    else {"attention": [1, 2, 4, 8], "fnn": [16, 256, 1024], "rnn": [4, 16, 64]}
)
trained = [
    analysis.qsa_trained_record(model, n, q, 1, w, steps=steps, held_out=500)
    for model, ws in widths.items()
    for w in ws
]
for i, model in enumerate(widths):
    rows = [r for r in trained if r["model"] == model]
    plt.plot(
        [r["width"] for r in rows],
        [r["mean_max_error"] for r in rows],
        "o-",
        c=f"C{i}",
        label=f"{model} ({rows[-1]['params']} params at the largest width)",
    )
    if rows[0]["threshold"] is not None:
        plt.axvline(rows[0]["threshold"], c=f"C{i}", ls=":")
plt.axhline(trained[0]["epsilon"], c="k", ls="--", lw=0.8)
plt.xscale("log")
plt.xlabel("width / embedding dimension")
plt.ylabel("held-out mean of max_i error")
plt.title(f"qSA, N = {n}, q = {q}, d' = 1")
plt.legend(fontsize=7)
plt.show()
