"""Sphinx extension: tables that wrap at spaces and code that breaks only at its own joints.

A table cell's words must never be broken inside ("memori zation"): ``docs/_static/tables.css``
wraps cells at spaces only. A long identifier, path or command in a cell (``sanford2023.qsa_upper``,
``experiments/results/fig2_quick_aggregate.csv``) would then widen its column past the page, so
this extension gives each inline literal in a table a line-break opportunity (``<wbr>``) after
each dot, slash, underscore, comma and equals sign: it breaks at its joints, where a reader
expects a break, and copies as written (``<wbr>`` is no character).
"""

from __future__ import annotations

import html
import re

from docutils import nodes

#: After these characters an identifier, path or command may break.
JOINTS = re.compile(r"(?<=[./_,=])(?=[^./_,=\s])")


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


def setup(app):  # noqa: ANN001, ANN201 (Sphinx's entry point)
    app.connect("doctree-resolved", _joints_in_tables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
