"""Sphinx extension: the claims ledger's rows rendered from the committed ``CLAIMS.json``.

``CLAIMS.json`` holds every record of the last full-tier run (:meth:`ClaimRecord.to_dict
<transformer_theory.claims.runner.ClaimRecord.to_dict>`), written beside ``CLAIMS.md`` by
``python -m experiments.claims_full --jobs 2 --out DIR --write-claims-md``. The pages render it
at build time, so they cannot drift from the run:

- ``claims-table`` (option ``:paper:``, one or more claim-id prefixes such as ``peng2024`` or
  ``rasp``, comma separated): the status counts of those claims and a table, one row per claim:
  the id, where the paper states it, what was checked, the paper's printed words (long ones
  behind a ``<details>``), the status, the evidence figure, how it was computed and the command.
- ``claims-summary``: one row per paper with its count of each status, and the run's provenance.

In MyST::

    ```{claims-table}
    :paper: sanford2023, peng2024
    ```
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective

from transformer_theory.claims.runner import ARITHMETIC_WORDS
from transformer_theory.ledger import STATUSES

try:  # one line per status (the ledger's own words, where it has them)
    from transformer_theory.ledger import STATUS_WORDS
except ImportError:  # an older ledger
    STATUS_WORDS = {}

ROOT = Path(__file__).resolve().parents[2]
CLAIMS_JSON = ROOT / "CLAIMS.json"

#: The ledger's statuses, strongest first, then "error" (a check that raised).
STATUS_ORDER = (*STATUSES, "error")

#: A printed statement longer than this goes behind a <details> (its first words the summary).
LONG = 280


def load_records(path: Path = CLAIMS_JSON) -> tuple[str, list[dict]]:
    """``(note, records)`` of ``CLAIMS.json``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("note", ""), list(data["records"])


def paper_key(record: dict) -> str:
    """The claim id's prefix: ``"peng2024"`` of ``"peng2024.theorem1"``."""
    return record["id"].split(".", 1)[0]


def status_counts(records: list[dict]) -> dict[str, int]:
    """``status -> count``, in the ledger's order, statuses with no claim left out."""
    counts = {s: sum(r["status"] == s for r in records) for s in STATUS_ORDER}
    for r in records:  # a status this list does not know still shows
        counts.setdefault(r["status"], sum(q["status"] == r["status"] for q in records))
    return {s: n for s, n in counts.items() if n}


def anchor(claim_id: str) -> str:
    """The HTML id of a claim's row: ``claim-peng2024-theorem1``."""
    return "claim-" + re.sub(r"[^a-z0-9]+", "-", claim_id.lower()).strip("-")


def _raw(text: str) -> nodes.raw:
    return nodes.raw("", text, format="html")


def _details(summary: str, *body: nodes.Node) -> list[nodes.Node]:
    """A collapsed ``<details>`` around ``body`` (HTML); other builders show the body."""
    return [
        _raw(f'<details class="claim-more"><summary>{html.escape(summary)}</summary>'),
        *body,
        _raw("</details>"),
    ]


def _para(*parts: nodes.Node | str, classes: tuple[str, ...] = ()) -> nodes.paragraph:
    p = nodes.paragraph(classes=list(classes))
    for part in parts:
        p += nodes.Text(part) if isinstance(part, str) else part
    return p


#: The records' markup, as the papers print it (their words are the papers' LaTeX and Markdown):
#: display maths ``$$ ... $$`` or ``\\[ ... \\]`` (a display the quote elides, ``\\[ ... + ...
#: Here,``, ends where the elision starts), inline maths ``\\( ... \\)`` or ``$ ... $``, code in
#: backquotes, ``**strong**``, ``*emphasis*`` and ``<sup>`` superscripts.
MARKUP = re.compile(
    r"\$\$(?P<dollars>.+?)(?:\$\$|$)"
    r"|\\\[(?P<bracket>.*?)(?:\\\]|(?=\s\.\.\.\s)|$)"
    r"|\\\((?P<paren>.*?)\\\)"
    r"|\$(?P<dollar>[^$]+?)\$"
    r"|`(?P<code>[^`]+)`"
    r"|\*\*(?P<strong>.+?)\*\*"
    r"|(?<![\w*])\*(?P<em>[^\s*](?:[^*]*[^\s*])?)\*(?![\w*])"
    r"|<sup>(?P<sup>.*?)</sup>",
    flags=re.S,
)
#: The maths alone (for a summary line, where each formula becomes an ellipsis).
MATH = re.compile(
    r"\$\$.+?(?:\$\$|$)|\\\[.*?(?:\\\]|(?=\s\.\.\.\s)|$)|\\\(.*?\\\)|\$[^$]+?\$", flags=re.S
)


def _latex_for_mathjax(latex: str) -> str:
    """The paper's LaTeX as MathJax reads it: ``NiceArray`` (nicematrix, which MathJax lacks)
    with ``\\left\\lgroup ... \\right\\rgroup`` delimiters becomes the ``pmatrix`` it draws, and
    an equation's ``\\tag{21}`` (display maths only) its number ``(21)`` beside it."""
    latex = re.sub(r"\\begin\{NiceArray\}\{[^{}]*\}", r"\\begin{pmatrix}", latex)
    latex = re.sub(r"\\tag\{([^{}]*)\}", r"\\qquad(\1)", latex)
    return latex.replace(r"\end{NiceArray}", r"\end{pmatrix}")


def _with_math(text: str) -> list[nodes.Node]:
    """``text`` as the paper prints it: its formulas as math nodes (rendered by MathJax; a
    display formula drawn in display style within the line), its Markdown as emphasis, strong,
    code and superscript nodes, the rest as text."""
    out: list[nodes.Node] = []
    last = 0
    for m in MARKUP.finditer(text):
        if m.start() > last:
            out.append(nodes.Text(text[last : m.start()]))
        kind = m.lastgroup
        body = m.group(kind)
        if kind in ("dollars", "bracket", "paren", "dollar"):
            latex = _latex_for_mathjax(body.strip())
            if kind in ("dollars", "bracket"):
                latex = r"\displaystyle " + latex
            out.append(nodes.math(latex, latex))
        elif kind == "code":
            out.append(nodes.literal(text=body))
        elif kind == "strong":
            out.append(nodes.strong("", "", *_with_math(body)))
        elif kind == "em":
            out.append(nodes.emphasis("", "", *_with_math(body)))
        else:
            out.append(nodes.superscript(text=body))
        last = m.end()
    if last < len(text):
        out.append(nodes.Text(text[last:]))
    return out


def _inline(text: str, classes: tuple[str, ...] = ()) -> nodes.paragraph:
    """A paragraph of ``text`` rendered as :func:`_with_math` reads it (the records' backquoted
    parts as code, their formulas as maths)."""
    p = nodes.paragraph(classes=list(classes))
    p.extend(_with_math(text))
    return p


def _without_math(text: str) -> str:
    """``text`` with each formula shown as an ellipsis and its Markdown markers dropped (for a
    one-line summary)."""
    text = MATH.sub("\u2026", text)
    text = re.sub(r"\*\*(.+?)\*\*|<sup>(.*?)</sup>", lambda m: m.group(1) or m.group(2) or "", text)
    return " ".join(text.replace("`", "").split())


def _status_badge(status: str) -> nodes.inline:
    return nodes.inline(text=status, classes=["claim-status", f"claim-status-{status}"])


def _counts_paragraph(records: list[dict]) -> nodes.paragraph:
    p = _para("Statuses: ")
    counts = status_counts(records)
    for i, (status, n) in enumerate(counts.items()):
        if i:
            p += nodes.Text(", ")
        p += _status_badge(status)
        p += nodes.Text(f" {n}")
    p += nodes.Text(f" ({len(records)} claims).")
    return p


def _claim_cell(r: dict) -> list[nodes.Node]:
    head = _para(
        nodes.target("", "", ids=[anchor(r["id"])]),
        nodes.literal(text=r["id"]),
        nodes.Text(" \u2014 "),
        nodes.emphasis(text=r["place"]),
    )
    out: list[nodes.Node] = [head, _inline(r["checked"])]
    printed = r.get("printed")
    if printed:
        quote = _para("\u201c", *_with_math(printed), "\u201d", classes=("claim-printed",))
        if len(printed) > LONG:
            words = " ".join(_without_math(printed).split()[:10])
            out += _details(f"The paper's statement: \u201c{words} \u2026\u201d", quote)
        else:
            out += [_para(nodes.strong(text="The paper: ")), quote]
    else:
        out.append(_para(nodes.emphasis(text="A statement of the library's own.")))
    if r.get("correction"):
        correction = _inline(r["correction"])
        correction.insert(0, nodes.strong(text="Correction: "))
        out.append(correction)
    return out


def _status_cell(r: dict) -> list[nodes.Node]:
    p = _para(_status_badge(r["status"]))
    if r["status"] in ("finding", "corrected") and r.get("strength"):
        p += nodes.Text(f" ({r['strength']})")
    out: list[nodes.Node] = [p]
    if r["status"] != r["expected"]:
        out.append(_para(nodes.strong(text=f"expected {r['expected']}")))
    return out


def _evidence_cell(r: dict) -> list[nodes.Node]:
    out: list[nodes.Node] = [_inline(r["figure"])]
    how = [ARITHMETIC_WORDS.get(r["arithmetic"], r["arithmetic"]), r["domain"]]
    if r.get("tolerance"):
        how.append(f"tolerance {r['tolerance']}")
    out += _details("How it was computed", _inline("; ".join(h for h in how if h)))
    if r.get("command"):
        out.append(_para(nodes.literal(text=r["command"]), classes=("claim-command",)))
    out.append(_para(f"{r['seconds']:.1f} s (full tier)", classes=("claim-seconds",)))
    return out


def _table(
    headers: list[str],
    widths: list[int],
    rows: list[list[list[nodes.Node]]],
    cls: str,
    *,
    given: bool = True,
) -> nodes.table:
    """A table of ``rows`` (cells of nodes); ``given``: the browser keeps ``widths`` (percent),
    else it sizes the columns to their contents."""
    table = nodes.table(classes=[cls, "colwidths-given" if given else "colwidths-auto"])
    group = nodes.tgroup(cols=len(headers))
    table += group
    for w in widths:
        group += nodes.colspec(colwidth=w)
    head = nodes.thead()
    row = nodes.row()
    for h in headers:
        entry = nodes.entry()
        entry += _para(h)
        row += entry
    head += row
    group += head
    body = nodes.tbody()
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry.extend(cell)
            row += entry
        body += row
    group += body
    return table


class ClaimsTable(SphinxDirective):
    """The status counts and the table of the claims whose id starts with ``:paper:``."""

    option_spec = {"paper": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(CLAIMS_JSON))
        keys = [k.strip() for k in self.options["paper"].split(",") if k.strip()]
        _, records = load_records()
        mine = [r for r in records if paper_key(r) in keys]
        if not mine:
            raise self.error(f"claims-table: no claim in {CLAIMS_JSON.name} has prefix {keys}")
        rows = [[_claim_cell(r), _status_cell(r), _evidence_cell(r)] for r in mine]
        source = _para(
            "Generated from ",
            nodes.literal(text="CLAIMS.json"),
            ", the records of the full tier's last run (",
            nodes.literal(text="python -m experiments.claims_full --jobs 2 --write-claims-md"),
            "); the statuses are derived by the rule of the ledger (the claims page says how).",
        )
        return [
            _counts_paragraph(mine),
            source,
            _table(["claim", "status", "evidence"], [52, 13, 35], rows, "claims-table"),
        ]


class ClaimsSummary(SphinxDirective):
    """One row per paper with its count of each status, then the run's provenance."""

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(CLAIMS_JSON))
        note, records = load_records()
        papers: dict[str, list[dict]] = {}
        for r in records:
            papers.setdefault(r["paper"], []).append(r)
        statuses = list(status_counts(records))
        rows = []
        for paper, rs in papers.items():
            counts = status_counts(rs)
            rows.append(
                [[_para(paper)], [_para(str(len(rs)))]]
                + [[_para(str(counts.get(s, "")))] for s in statuses]
            )
        total = status_counts(records)
        rows.append(
            [[_para(nodes.strong(text="all"))], [_para(nodes.strong(text=str(len(records))))]]
            + [[_para(nodes.strong(text=str(total[s])))] for s in statuses]
        )
        widths = [24, 8] + [68 // len(statuses)] * len(statuses)
        table = _table(["paper", "claims", *statuses], widths, rows, "claims-summary", given=False)
        return [_counts_paragraph(records), table, _inline(note)]


class ClaimsStatuses(SphinxDirective):
    """Every status of :data:`transformer_theory.ledger.STATUSES`, strongest first, with what it
    means (``STATUS_WORDS``): whatever statuses the ledger lists, generically."""

    def run(self) -> list[nodes.Node]:
        items = nodes.bullet_list()
        for status in STATUSES:
            item = nodes.list_item()
            words = STATUS_WORDS.get(status, "")
            item += _para(_status_badge(status), *([": " + words] if words else []))
            items += item
        return [items]


def setup(app):  # noqa: ANN001, ANN201 (Sphinx's entry point)
    app.add_directive("claims-statuses", ClaimsStatuses)
    app.add_directive("claims-table", ClaimsTable)
    app.add_directive("claims-summary", ClaimsSummary)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
