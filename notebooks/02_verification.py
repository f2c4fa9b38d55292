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
# # 02 — Verifying Chen & Zou's impossibility results in batch
#
# Definition 3 (dependent sequences), Propositions 7–10 (one layer ⇒ `Σ λ_i o_i = 0`, or `Σ Z_i λ_i
# o_i = 0` for one softmax head),
# the stronger affine form, and the controls where the relation is **not** expected.
# Everything here is `transformer_theory.theory`; the notebook defines nothing. The command-line
# version is `transformer-theory verify`.
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
import numpy as np

from transformer_theory import plotting, verify_outputs
from transformer_theory.theory import checks, suite
from transformer_theory.theory import dependence as dep

SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"
M = 2 if SMOKE else 8  # random models per family

# %% [markdown]
# ## Definition 3, exactly
# The paper's example `(a,b,r), (b,a,r), (a,a,r), (b,b,r)` and a lattice basis of *all* dependences
# of the 9 sequences `(x, y, r)`.

# %%
ex = dep.paper_example()
print(ex.tokens_BxN.tolist(), list(ex.lam_B))
print("basis of the example:", dep.dependence_basis(ex.tokens_BxN, 3).tolist())
toy = np.array([[a, b, 2] for a in range(3) for b in range(3)])
print("basis of all (x, y, r):\n", dep.dependence_basis(toy, 3))
print("(1,-1,1,-1) is a dependence?", dep.is_dependence(ex.tokens_BxN, [1, -1, 1, -1], 3))

# %% [markdown]
# ## Props. 7–10 on random models of every family
# In scope: residual at rounding level, below the tolerance printed beside it. Controls (two layers,
# an MLP, a final LayerNorm, several softmax heads, plain λ on softmax): O(1e-2).

# %%
sets = [ex] + dep.basis_sets(toy, 3) + dep.random_dependent_sets(0, 4, 2, 3, 3)
verdicts = []
for fam in checks.FAMILIES.values():
    params = checks.random_models(fam, 3, 3, 2, 0, M)
    verdicts += checks.check_family(fam, params, sets, toy, dataset="toy")
print(verify_outputs.format_table(verdicts))

# %% [markdown]
# ## The affine form over a whole dataset
# One least-squares fit of the outputs on `[1, c]` tests every dependence of `InContextQA(3, 3, 2)`
# at once (streamed in chunks).

# %%
from transformer_theory.tasks import InContextQA

task = InContextQA(3, 3, 2)
for name in ("relu-3h", "softmax-1h", "softmax-3h"):
    fam = checks.FAMILIES[name]
    params = checks.random_models(fam, task.vocab_size, task.seq_len, task.num_classes, 1, M)
    res = checks.affine_residuals(params, task, weighted=fam.weighted("affine"), chunk_size=32)
    tol = checks.affine_tolerance(params.w_o.dtype, params.config, res.rank, res.num_chunks)
    print(
        f"{name:12s} {res.relations} relations tested at once; "
        f"max residual {res.residual_M.max():.2e} (tol {tol:.1e}); "
        f"in scope: {fam.in_scope('affine')}"
    )

# %%
import os
import tempfile

from IPython.display import Image, display

png = os.path.join(
    tempfile.mkdtemp(), "verify.png"
)  # residuals per family, log scale; bars = tolerances
plotting.residuals_by_family(verdicts, png)
display(Image(png))

# %% [markdown]
# ## Certificates
# Theorem 2's toy set: no one-layer ReLU (any heads) or single-head softmax model classifies all
# four; the exact accuracy bound is 3/4.

# %%
recs = suite.run_certificates(icqa=(2, 2, 2))
print(
    "\n".join(
        verify_outputs.certificate_line(r)
        if r["kind"] == "certificate"
        else verify_outputs.bound_line(r)
        for r in recs
        if r["dataset"].startswith("theorem2")
    )
)
