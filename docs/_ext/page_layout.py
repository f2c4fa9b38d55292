"""Sphinx extension: tables that wrap at spaces and code that breaks only at its own joints.

A table cell's words must never be broken inside ("memori zation"): ``docs/_static/tables.css``
wraps cells at spaces only. A long identifier, path or command in a cell (``sanford2023.qsa_upper``,
``experiments/results/fig2_quick_aggregate.csv``) would then widen its column past the page, so
this extension gives each inline literal in a table a line-break opportunity (``<wbr>``) after
each dot, slash, underscore, comma and equals sign: it breaks at its joints, where a reader
expects a break, and copies as written (``<wbr>`` is no character).

``install-cell`` shows the notebooks' first code cell (the one ``tests/test_docs_pages.py`` holds
equal in every notebook) and what it prints where the library is not installed and nothing is
uploaded: the cell is run at build time by a Python that sees no installed package (``-I -S``,
in an empty folder, ``TT_INSTALL`` unset), so the page shows its real output.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]

#: After these characters an identifier, path or command may break.
#: (Not after a leading joint: ``_common`` and ``./x`` stay whole.)
JOINTS = re.compile(r"(?<=[^./_,=\s][./_,=])(?=[^./_,=\s])")


def code_with_joints(text: str) -> str:
    """The HTML of an inline literal ``text`` with a ``<wbr>`` at each joint (escaped)."""
    pieces = JOINTS.split(text)
    body = "<wbr>".join(html.escape(piece) for piece in pieces)
    return f'<code class="docutils literal notranslate"><span class="pre">{body}</span></code>'


def _joints_in_tables(app, doctree, docname) -> None:  # noqa: ANN001 (Sphinx's event)
    if app.builder.format != "html":
        return
    for entry in list(doctree.findall(nodes.entry)):
        for literal in list(entry.findall(nodes.literal)):
            text = literal.astext()
            if JOINTS.search(text):
                literal.replace_self(nodes.raw("", code_with_joints(text), format="html"))


def install_cell(notebook: Path | None = None) -> str:
    """The first code cell of a notebook's percent script (``notebooks/01_core_tour.py``)."""
    text = (notebook or ROOT / "notebooks" / "01_core_tour.py").read_text(encoding="utf-8")
    cells = re.split(r"^# %%.*$", text, flags=re.M)
    code = [c.strip("\n") for c in cells[1:] if not c.lstrip().startswith("# %% [markdown]")]
    for cell in code:
        if "find_spec" in cell:
            return cell + "\n"
    raise ValueError(f"no install cell in {notebook}")


def run_without_the_package(code: str) -> str:
    """What ``code`` prints (stdout, then the exception's last line) run by a Python that sees
    no installed package, in an empty folder, with ``TT_INSTALL`` unset."""
    env = {k: v for k, v in os.environ.items() if k not in ("TT_INSTALL", "PYTHONPATH")}
    with tempfile.TemporaryDirectory() as empty:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", code],
            cwd=empty,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return (done.stdout + (lines[-1] if lines else "")).strip()


class InstallCell(SphinxDirective):
    """The install cell and its output where nothing is installed or uploaded."""

    def run(self) -> list[nodes.Node]:
        path = ROOT / "notebooks" / "01_core_tour.py"
        self.env.note_dependency(str(path))
        code = install_cell(path)
        output = run_without_the_package(code)
        cell = nodes.literal_block(code, code, language="python")
        out = nodes.literal_block(output, output, language="text", classes=["install-output"])
        intro = nodes.paragraph(
            text="Its output in a runtime without the library and without an uploaded wheel "
            "(run when this page was built):"
        )
        return [cell, intro, out]


def setup(app):  # noqa: ANN001, ANN201 (Sphinx's entry point)
    app.connect("doctree-resolved", _joints_in_tables)
    app.add_directive("install-cell", InstallCell)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
