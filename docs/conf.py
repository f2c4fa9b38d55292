"""Sphinx configuration of the transformer_theory documentation site.

Build (warnings are errors, as in CI)::

    pip install ".[docs]"
    python -m sphinx -j 2 -W --keep-going -b html docs docs/_build/html

(``TT_DOCS_EXECUTE=off`` in the environment skips the notebooks: a quick look at the pages.)

The notebooks in ``notebooks/`` are copied into ``docs/notebooks/`` (ignored by git) and executed
by MyST-NB at build time at smoke size (``TT_NOTEBOOK_SMOKE=1``); a cell that raises fails the
build. The API reference is generated from the docstrings (autosummary + napoleon, Google style),
one page per public module; its index ``docs/api.md`` is written at every build by
``docs/_ext/api_pages.py``. The paper pages' claims tables and figures are rendered from
``CLAIMS.json`` and ``experiments/results/`` (``docs/_ext/claims_pages.py``,
``docs/_ext/results_figures.py``).
"""

import importlib
import os
import re
import shutil
import sys
from pathlib import Path

import transformer_theory

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# The site's own extensions: the API index generated from the package (api_pages writes api.md),
# the claims tables rendered from CLAIMS.json (claims_pages), the figures drawn from the
# committed results (results_figures) and the tables' code broken at its joints (page_layout).
sys.path.insert(0, str(DOCS / "_ext"))

# The notebooks read this to pick their small configurations; the kernels MyST-NB starts inherit it.
os.environ["TT_NOTEBOOK_SMOKE"] = "1"
# The kernels import this checkout's package (as the build does: it runs from the checkout's root),
# not whichever copy is installed (an editable install of another checkout would be documented
# instead, with its own notebooks' imports).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
)
# No MPLBACKEND: the kernels' default (inline) backend is what draws the figures into the pages; a
# non-interactive one (Agg, as the test suite sets) would leave them empty.
os.environ.pop("MPLBACKEND", None)

# The committed notebooks carry no outputs; the site is where they are read with them. Copy the
# current ones in on every build (docs/notebooks/ is generated, see .gitignore).
_NB_DIR = DOCS / "notebooks"
_NB_DIR.mkdir(exist_ok=True)
for _old in _NB_DIR.glob("*.ipynb"):
    if not (ROOT / "notebooks" / _old.name).exists():
        _old.unlink()
for _nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
    _dst = _NB_DIR / _nb.name
    if not _dst.exists() or _dst.read_bytes() != _nb.read_bytes():
        shutil.copyfile(_nb, _dst)

# autosummary writes a page per module but never removes one: after a module is renamed, its old
# page would import a module that is gone (a warning, an error under -W). Start from none.
shutil.rmtree(DOCS / "_autosummary", ignore_errors=True)

# The public repository ("owner/name" on GitHub), the one place the notebooks' "Open in Colab"
# badges take it from (tests/test_docs_pages.py). Empty: the public address is not known yet, so
# no notebook carries a badge; set it here and add each notebook's badge
# (https://colab.research.google.com/github/<REPOSITORY>/blob/main/notebooks/<name>.ipynb).
REPOSITORY = ""

project = "transformer_theory"
author = "the transformer_theory authors"
copyright = "2026, the transformer_theory authors"  # noqa: A001 (Sphinx's name)
release = transformer_theory.__version__
version = release

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "api_pages",
    "claims_pages",
    "results_figures",
    "page_layout",
]

exclude_patterns = [
    "_build",
    "_inventories",
    "_sources",
    "_ext",
    "_generated",
    "Thumbs.db",
    ".DS_Store",
    "**.ipynb_checkpoints",
]
templates_path = ["_templates"]

# --- MyST and MyST-NB ------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath"]
# README and CLAIMS.md fragments are included under a page title, so their ### headings follow a
# # heading; that jump is intended.
suppress_warnings = ["myst.header"]
# The notebooks' kernels run on this machine and talk to the build over loopback TCP; ipykernel
# logs an "unencrypted TCP ... susceptible to eavesdropping" warning at every start, once per
# notebook. (IPC sockets would avoid it, but two kernels started side by side with -j 2 then
# failed to connect.) The kernels read this build's own IPython directory, whose kernel config
# logs errors only; nothing outside the docs build changes.
import tempfile  # noqa: E402

_IPYTHONDIR = tempfile.mkdtemp(prefix="tt-docs-ipython-")
os.makedirs(os.path.join(_IPYTHONDIR, "profile_default"), exist_ok=True)
with open(os.path.join(_IPYTHONDIR, "profile_default", "ipython_kernel_config.py"), "w") as _f:
    _f.write('c.IPKernelApp.log_level = "ERROR"\n')
os.environ["IPYTHONDIR"] = _IPYTHONDIR

# every build runs every notebook: the site always shows fresh outputs. TT_DOCS_EXECUTE=off skips
# them (a quick look at the pages while writing them; the notebooks then show no outputs).
nb_execution_mode = "off" if os.environ.get("TT_DOCS_EXECUTE") == "off" else "force"
nb_execution_raise_on_error = True  # a cell that raises fails the build
nb_execution_timeout = 300  # seconds per cell (tests/test_notebooks.py gives a notebook 300 s)
nb_execution_show_tb = True  # the traceback in the log when a cell fails
nb_merge_streams = True
# A cell's Markdown output (notebook 10's claims table: pipe tables, the papers' $...$ maths) is
# read as MyST, as the pages are; MyST-NB's default, CommonMark, has no tables and showed it raw.
nb_render_markdown_format = "myst"

# --- API reference -----------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autosummary_ignore_module_all = True  # find submodules on disk; automodule still follows __all__
# Each object is documented once, in the module that defines it: a package's re-exports (its
# __all__ naming a submodule's objects) would otherwise be described twice.
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True  # "Attributes:" as fields: a NamedTuple's fields are not described twice

# --- intersphinx -------------------------------------------------------------------------------
# Each project's online inventory is tried first; without network (CI here has none) the build
# falls back to a small local inventory of the targets the API pages use (docs/_inventories/,
# written by docs/_inventories/make_inventories.py with the projects' real addresses).
_INV = "_inventories"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", (None, f"{_INV}/python.inv")),
    "numpy": ("https://numpy.org/doc/stable", (None, f"{_INV}/numpy.inv")),
    "jax": ("https://docs.jax.dev/en/latest", (None, f"{_INV}/jax.inv")),
    "flax": ("https://flax.readthedocs.io/en/latest", (None, f"{_INV}/flax.inv")),
    "optax": ("https://optax.readthedocs.io/en/latest", (None, f"{_INV}/optax.inv")),
}
intersphinx_timeout = 5

# --- HTML --------------------------------------------------------------------------------------
html_theme = "furo"
# Wide tables wrap instead of scrolling (the claims ledger: docs/_static/tables.css).
html_static_path = ["_static"]
html_css_files = ["tables.css"]
html_title = f"transformer_theory {release}"


# --- relative references in docstrings ---------------------------------------------------------
# The docstrings write :mod:`.tasks` for "the module tasks next to this one", as Python reads a
# relative import. Sphinx instead searches every module whose name ends in ".tasks" (six papers
# have one) and warns that the reference is ambiguous. Rewrite each such reference to the absolute
# name Python's rule gives: the nearest enclosing package that has it.
_RELATIVE_REF = re.compile(
    r"(:(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj|const):)`(~?)\.([\w.]+)`"
)


def _resolves(dotted: str) -> bool:
    """Whether ``dotted`` names a module, or an attribute reached from one."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def _home_module(name: str) -> str:
    """The longest prefix of the documented object's name that is an imported module."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in sys.modules:
            return ".".join(parts[:i])
    return name


def _absolute_refs(app, what, name, obj, options, lines) -> None:  # noqa: ANN001 (Sphinx's event)
    module = _home_module(name)

    def absolute(match: re.Match) -> str:
        role, tilde, ref = match.groups()
        scope = module.split(".")
        while scope:
            target = ".".join([*scope, ref])
            if _resolves(target):
                return f"{role}`{ref.rsplit('.', 1)[-1] if tilde else ref} <{target}>`"
            scope.pop()
        return match.group(0)

    lines[:] = [_RELATIVE_REF.sub(absolute, line) for line in lines]


def setup(app) -> None:  # noqa: ANN001 (Sphinx's entry point)
    """Connect the docstring rewriting."""
    app.connect("autodoc-process-docstring", _absolute_refs)
