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
# *Set-up:* `pip install .` in a checkout (in Colab: `%pip install` the repository). CPU is enough.

# %%
import os

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np

jax.config.update("jax_enable_x64", True)

from transformer_theory.papers.formal_languages import constructions as recognizers  # noqa: E402
from transformer_theory.papers.formal_languages import study, tasks  # noqa: E402

SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"
# The study behind `transformer-theory languages`: every string up to EXHAUSTIVE, then balanced
# samples at 16, 32, ..., max_len; PARITY's precision sweep at parity_lengths.
settings = study.TableSettings(
    max_len=2 if SMOKE else 256,
    exhaustive_up_to=2 if SMOKE else 10,
    parity_lengths=(16,) if SMOKE else (64, 256, 1024, 2048),
    parity_samples=4,
)

# %% [markdown]
# ## The languages and their generators
# Strings over `{0, 1}` (Dyck-1: `0 = "("`, `1 = ")"`), read after `BOS = 2`. The generators give
# balanced classes; membership is a counter or a running depth.

# %%
strings, labels = tasks.sample("dyck1", 8, 6, seed=0)
for s, y in zip(strings, labels):
    print("".join("()"[x] for x in s), "member" if y else "not a member")

# %% [markdown]
# ## Build and check every row
# Each recognizer is a `ModelParams` run by `core.forward`; the margin `o_1 - o_0` is signed by the
# truth, so a positive smallest margin means every string was classified correctly.

# %%
rows = study.check_rows(settings)  # one record per recognizer, float64
for r in rows:
    print(
        f"{r['construction']:>20}: {r['attention']:>22}, code {r['positional']:>13}, "
        f"{r['strings_checked']} strings, accuracy {r['accuracy']:.3f}, "
        f"min margin {r['min_margin']:.3g}"
    )

# %%
fig, ax = plt.subplots(figsize=(5.5, 3.6))
for r in rows:
    xs = [e["length"] for e in r["by_length"]]
    ax.plot(xs, [abs(e["min_margin"]) for e in r["by_length"]], marker=".", label=r["construction"])
ax.set(xscale="log", yscale="log", xlabel="length", ylabel="smallest |margin|")
ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# ## PARITY: the LayerNorm trick against Hahn's lemma
# Without the final LayerNorm the decision is `4/n^2` and the cross-entropy tends to 1 bit per
# string; with LayerNorm (`eps = 0`) the margin is `4 sqrt(5)` at every length, in float32 as in
# float64.

# %%
precision = study.parity_sweep(settings)
fig, ax = plt.subplots(figsize=(5.5, 3.6))
for dtype in ("float32", "float64"):
    for ln in (True, False):
        sel = [r for r in precision if r["dtype"] == dtype and r["layer_norm"] == ln]
        ax.plot(
            [r["n"] for r in sel],
            [r["max_cross_entropy_bits"] for r in sel],
            marker="o",
            label=f"{dtype}, {'LayerNorm' if ln else 'no LayerNorm'}",
        )
ax.set(xscale="log", xlabel="n", ylabel="max cross-entropy (bits)")
ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# The `eps` matters: the library's default `1e-5` swamps the variance `2 d^2 / D ~ n^-4`.

# %%
p = recognizers.parity()
p_eps = p.replace(config=p.config.replace(norm_eps=1e-5))
s = np.array([[1] * 41], np.int32)
print(
    "eps = 0:",
    recognizers.decision_margins(p, s),
    " eps = 1e-5:",
    recognizers.decision_margins(p_eps, s),
)
print("float32 build:", recognizers.decision_margins(recognizers.parity(dtype=jnp.float32), s))

# %% [markdown]
# ## Hahn 2020's rows: training WITH hard attention
# Hahn 2020 proves that no leftmost-hard transformer recognizes PARITY or Dyck-1 at every length.
# Hard attention has no gradient, so a hard model is trained with the straight-through estimator:
# the forward pass is exactly leftmost-hard attention, the backward pass the softmax gradient of
# the same scores (`hard_training`). On scores with a tie, the weights are one-hot on the
# first maximizer, and the gradient is the softmax one:

# %%
from transformer_theory.core.attention import softmax_weights  # noqa: E402
from transformer_theory.papers.formal_languages import hard_training  # noqa: E402

scores = jnp.array([[1.0, 3.0, 3.0, 0.0]])
print("weights:", hard_training.straight_through_weights(scores))
print("grad:   ", jax.grad(lambda s: hard_training.straight_through_weights(s)[0, 1])(scores))
print("softmax:", jax.grad(lambda s: softmax_weights(s)[0, 1])(scores))

# %% [markdown]
# A short run on Dyck-1 (lengths 4-16), the softmax model beside the leftmost-hard one; the full
# experiment is `experiments/languages_generalization.py` (README). A run that fails to learn
# proves no theorem: Hahn's result is about every parameter setting at unbounded length.

# %%
STEPS = 2 if SMOKE else 150
LENGTHS = (8,) if SMOKE else (8, 16, 64)
for mode in ("softmax", "straight_through_leftmost"):
    params, losses = hard_training.train(
        "dyck1", mode, steps=STEPS, batch=32, seed=0, lengths=(4, 8, 12, 16), small=SMOKE
    )
    model = hard_training.deployed(params, mode)
    accs = [hard_training.accuracy(model, "dyck1", n, 64, seed=n) for n in LENGTHS]
    print(
        f"{model.config.attention:>14}: final loss {np.mean(losses[-10:]):.3f}, accuracy "
        + ", ".join(f"L={n}: {a:.2f}" for n, a in zip(LENGTHS, accs))
    )
