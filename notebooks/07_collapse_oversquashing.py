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
# # 07 — Representational collapse and over-squashing (Barbero et al. 2024)
#
# Barbero et al. 2024 ("Transformers need glasses!") study the causal Pre-LN transformer: `norm1`
# before attention, an MLP `psi` after `norm2`, the final `norm3`, and the row-stochastic,
# lower-triangular attention matrix `Λ`. Two phenomena:
#
# 1. **Representational collapse** (§4): `v = (1, …, 1, 0)` and `v' = (1, …, 1, 0, 0)` end in final
#    last-token representations `y_n`, `y'_{n+1}` whose distance falls like `1/n`; in finite
#    precision they stop being distinguishable.
# 2. **Over-squashing** (§5): the sensitivity `||∂y_n/∂v_i||` of the last token to input token `i`
#    is bounded by the attention-weighted paths `Λ^(L)⋯Λ^(1)`; early tokens have more paths.
#
# This notebook builds random models in the library's one parameter format, measures both, checks
# the `1/n` rate against the limit derived from the weights and the certified bound against exact
# Jacobians, and trains a small model on copying. Everything is library code.
# `TT_NOTEBOOK_SMOKE=1` picks small sizes (CI).
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
import os
import tempfile

import numpy as np

from transformer_theory.precision import enable_x64

enable_x64()

from transformer_theory.papers import study_of  # noqa: E402
from transformer_theory.papers.barbero2024 import (  # noqa: E402
    asymptotic_rate,
    causal_pre_ln_config,
    model_grid,
    model_record,
    random_model,
)
from transformer_theory.papers.barbero2024.experiments import collapse, oversquash  # noqa: E402
from transformer_theory.precision import PRECISIONS as ALL_PRECISIONS  # noqa: E402

SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"
# Smoke sizes still show the effect the text describes: to n = 512 the one-layer model's distance
# falls like n^-1.01 (at n <= 32 the tail read n^-0.65, not yet the asymptotic rate).
MAX_LEN = 512 if SMOKE else 2048
POINTS = 6 if SMOKE else 10  # the rate needs >= 3 lengths >= 8
PRECISIONS = ("float64", "bfloat16") if SMOKE else ALL_PRECISIONS
OUT = tempfile.mkdtemp()  # the studies write their records and figures here

# %% [markdown]
# ## 1. Collapse: distance against length, at every precision
#
# A one-layer model without positional information in its scores, and a two-layer RoPE model.
# The model runs entirely in each precision (parameters and activations). At smoke size (lengths
# up to 512, float64 and bfloat16, the one-layer model only) the rate is already `n^-1`, but
# bfloat16 still tells the pair apart: they become bit-identical further out (the claims ledger's
# `barbero2024.bfloat16_identical`: all 32 coordinates equal at n = 32768).

# %%
# The study behind `transformer-theory collapse`: its settings are the command's options.
settings = collapse.CollapseSettings(
    depths=(1,) if SMOKE else (1, 2),
    positionals=("none",) if SMOKE else ("none", "rope"),
    max_len=MAX_LEN,
    points=POINTS,
    precisions=PRECISIONS,
    width=24,
)
# Of the grid (every depth with every positional code), the two models described above.
grid = [
    m
    for m in model_grid(
        settings.depths, settings.heads, settings.positionals, settings.seeds, settings.width
    )
    if m.name in ("L1_H1_none_seed0", "L2_H1_rope_seed0")
]
study = study_of(collapse).run(settings, OUT, progress=False, grid=grid)
lengths, models = study.record.settings.lengths, study.record.models
for rec in models:
    # the verdict is read from the curve's tail (last decade) and a plateau test, not hand-written
    print(rec.name, "(float64):", rec.verdict)
    for prec, r in rec.precisions.items():
        print(f"  {prec:9s} first bit-identical length: {r.first_identical}")

# %% [markdown]
# The rate, derived from the model: at the last query a head gives the ones the score `a` and the
# zero the score `b`; with `n − 1` ones and `k` zeros its output is
# `(A u_1 + k B u_0)/(A + k B)`, `A = (n−1)e^a`, `B = e^b`, so the extra zero moves it by
# `e^(b−a)(u_0 − u_1)/n + O(1/n²)`. Through the token-wise rest of the layer, `n·||y_n − y'_{n+1}||`
# tends to a constant `K` that `one_layer_limit` computes from the weights:

# %%
k = models[0].predicted_limit
d64 = np.array(models[0].precisions["float64"].distance)
print("K derived from the weights:", round(k, 4))
print("n * distance (float64):    ", np.round(np.array(lengths) * d64, 4))

# %%
from IPython.display import Image, display  # noqa: E402

display(Image(study.figure_path))

# %% [markdown]
# Outside the theorem's hypotheses. ALiBi's bias `−m|i − j|` is unbounded and does not decay: the
# ones' attention mass becomes a converged geometric series `≈ e^a/m` instead of growing like
# `n e^a`, so the derivation above holds with `n` replaced by about `1/m` (256 for the smallest
# slope `2^-8`): the distance falls until `n ~ 1/m`, then stays at a constant of order
# `m e^(b−a)||W_V(x_0 − x_1)||` — no collapse. An absolute sinusoidal code is *added to the
# stream*, so `v` and `v'` end in tokens carrying the codes of positions `n` and `n + 1`: that
# breaks the theorem's premise (positions only through the kernel `k(q, k, p_ij)`), so its "no
# collapse" is no finding against the paper. `asymptotic_rate` reads the verdict from the tail.
# Below `1/m` the ALiBi distance still falls; from n = 256 on it plateaus, so the lengths are
# 256, 1024 and 4096 at every size (one forward pass each: seconds; the ledger's
# `barbero2024.alibi_no_collapse` reads lengths 512 to 8192):

# %%
alibi_lengths = [256, 1024, 4096]
for positional in ("sinusoidal", "alibi"):
    cfg = causal_pre_ln_config(1, 1, positional, width=24)
    r = model_record(random_model(cfg), positional, alibi_lengths, ("float64",))
    d = r["precisions"]["float64"]["distance"]
    print(positional, [f"{x:.4g}" for x in d], asymptotic_rate(alibi_lengths, d)["verdict"])

# %% [markdown]
# ## 2. Over-squashing: sensitivities against attention paths
#
# Exact Jacobians by `jax.jacrev`, the products `Λ^(L)⋯Λ^(1)` and the path counts of the all-causal
# graph (`C(n − i + L − 1, L − 1)`: early tokens have more paths), and the certified
# product-of-attention bound, whose constants come from the weights at this input.

# %%
n = 8 if SMOKE else 32
# The study behind `transformer-theory oversquash`, on RoPE models reading n random bits.
settings = oversquash.OversquashSettings(
    depths=(1, 2) if SMOKE else (1, 2, 4),
    positionals=("rope",),
    seeds=(1,),
    length=n,
    pattern="random",
    width=16,
)
study = study_of(oversquash).run(settings, OUT)
for rec in study.record.models:
    s = np.array(rec.sensitivity_final)
    print(
        f"L={rec.depth}: bound holds {rec.bound_holds} (measured / bound <= "
        f"{rec.bound_ratio_max:.3f}); sensitivity first {s[0]:.3g}, middle {s[n // 2]:.3g}, "
        f"last {s[-1]:.3g}"
    )
display(Image(study.figure_path))

# %% [markdown]
# ## 3. A trained model: copying at growing lengths and precisions
#
# `copy_last` reads `(1, …, 1, b, ?)` and answers `b`. Trained on lengths 2–16 (float32, Adam),
# evaluated far beyond, in every precision; the plot marks where both inputs of the confusable
# pair get one prediction. At smoke size: 300 steps (enough to copy every training length),
# evaluated in bfloat16 up to length 256, where the pair already gets one prediction.

# %%
from transformer_theory.papers.barbero2024.experiments import collapse_tasks  # noqa: E402

config = collapse_tasks.CollapseTaskSettings(
    name="notebook",
    tasks=("copy_last",),
    separators=(None,),
    steps=300 if SMOKE else 1000,
    eval_max_len=256 if SMOKE else 2048,
    eval_points=4 if SMOKE else 10,
    precisions=("bfloat16",) if SMOKE else ALL_PRECISIONS,
)
record = study_of(collapse_tasks).run(config, OUT, progress=False)  # writes notebook.json and .png
print("\n".join(study_of(collapse_tasks).summary_lines(record)))
display(Image(os.path.join(OUT, "notebook.png")))
