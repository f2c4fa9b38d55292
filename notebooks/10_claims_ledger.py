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
# # 10 — The claims ledger: every statement of the papers, its status and its evidence
#
# Each statement the library checks is a row of the ledger: an id (`chen_zou2024.theorem2_toy`),
# where the paper states it, the paper's words verbatim (or none, for a statement of the library's
# own), the statement as checked, its quantifier (finite, for all sizes, exists, empirical), a
# check that returns numbers together with HOW they were computed (exact rationals, arb balls,
# floats with a tolerance, a training run, a committed record) and OVER WHAT (every element, every
# size up to a bound, samples, one instance), and a judge. Nobody types the status: one rule
# (`transformer_theory.ledger.derive_status`) derives it: `proved` (exact, the whole domain),
# `certified` (balls, the whole domain), `bounded` (exact or balls up to a stated size of an
# infinite family), `verified` (floats, or samples), `example` (one seeded instance), `corrected` /
# `refuted` (the paper's printed words fail), `finding` (a statement of the library's own),
# `measured` (experiments) and `open`. `CLAIMS.md` at the repository root is the full tier's
# table; this notebook runs the quick tier.
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
import collections
import os

import jax

jax.config.update("jax_enable_x64", True)

from transformer_theory import claims  # noqa: E402

SMOKE = os.environ.get("TT_NOTEBOOK_SMOKE") == "1"
registry = claims.all_claims()
by_paper = collections.Counter(c.paper for c in registry)
by_status = collections.Counter(c.expected for c in registry)
by_quantifier = collections.Counter(c.quantifier for c in registry)
print(len(registry), "claims")
for paper, n in by_paper.items():
    print(f"  {paper:<40} {n}")
print("expected statuses:", dict(by_status))
print("quantifiers:", dict(by_quantifier))

# %% [markdown]
# ## Filter: one paper, one status
#
# `select` picks claims by paper (the id's first part) and by id pattern; each row carries the
# paper's words and the statement as the library checks it, its sizes appended per tier.

# %%
proved = [c for c in claims.select(registry, paper="chen_zou2024") if c.expected == "proved"]
for c in proved[:5]:
    print(c.id, "|", c.place)
    print("   printed:", c.printed or "(a statement of the library's own)")
    print("   checked:", c.checked_sentence("quick")[:200], f"({c.quantifier})")

# %% [markdown]
# ## Run claims and open one claim's evidence
#
# `run_claims` checks the selected claims at a tier and compares each status with the expected
# one; a different status (or a check that raises) is a regression, which the command reports
# with exit status 1. The smoke run checks one paper's claims; the full notebook all of them.

# %%
paper = "chen_zou2024" if SMOKE else None
records = claims.run_claims(paper=paper, ids=["chen_zou2024.theorem2*"] if SMOKE else None)
for r in records:
    flag = "" if not r.regression else f"   <- expected {r.expected}"
    print(f"{r.id:<40} {r.status:<9} {r.figure}{flag}")
print(sum(r.regression for r in records), "regressions")

# %%
record = claims.run("chen_zou2024.theorem2_toy")
print(record["status"], "-", record["figure"])
print("computed:", record["arithmetic"], "over", record["domain"], f"({record['coverage']})")
print("command:", record["command"])
print("evidence:", record["details"])

# %% [markdown]
# ## The table
#
# `markdown` renders the records as `CLAIMS.md` does (one table per paper); the command
# `transformer-theory claims --tier full --out DIR` writes it with `claims.json` beside.

# %%
from IPython.display import Markdown, display  # noqa: E402

display(Markdown(claims.markdown(records, title="Claims (this notebook's run)")))
