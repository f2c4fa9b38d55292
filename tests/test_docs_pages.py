"""The site's generated pages agree with what they are generated from.

- ``CLAIMS.json`` (the records the paper pages render, ``docs/_ext/claims_pages.py``) and
  ``CLAIMS.md`` (the committed table) hold the same claims in the same order with the same
  statuses, and every registered ledger row has a record;
- every paper's claims are rendered by some page's ``claims-table``;
- every figure of ``docs/_ext/results_figures.py`` is drawn from a committed record by a plotting
  function that exists (the paper packages are being reorganised: a renamed one fails here);
- the API index (``docs/_ext/api_pages.py``) lists every public module once and no private one;
- the notebooks' Colab badges agree with the one repository address, ``docs/conf.py``'s
  ``REPOSITORY`` (empty while the public address is unknown: then no badge at all).

The Sphinx build itself runs in ``.ci/run`` (too long for the suite).
"""

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _extension(name: str):
    """A module of ``docs/_ext`` (not a package: loaded by path, as Sphinx's conf.py does)."""
    spec = importlib.util.spec_from_file_location(f"_docs_ext_{name}", DOCS / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _claims_md_rows() -> list[tuple[str, str]]:
    """``(id, status)`` of every row of CLAIMS.md's tables (the status cell's first word)."""
    rows = []
    for line in (ROOT / "CLAIMS.md").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\| `([^`]+)`:", line)
        if not match:
            continue
        cells = re.split(r"(?<!\\)\|", line)
        status = re.match(r"\W*(\w+)", cells[3]).group(1)
        rows.append((match.group(1), status))
    return rows


def _claims_json() -> list[dict]:
    return json.loads((ROOT / "CLAIMS.json").read_text(encoding="utf-8"))["records"]


def test_claims_json_and_claims_md_agree():
    md = _claims_md_rows()
    js = [(r["id"], r["status"]) for r in _claims_json()]
    assert len(md) > 100, len(md)
    assert js == md


def test_every_ledger_row_has_a_record():
    from transformer_theory.claims.runner import builtin_claims

    registered = [c.id for c in builtin_claims()]  # an installed package's rows are not ours
    recorded = [r["id"] for r in _claims_json()]
    assert sorted(registered) == sorted(recorded)
    for r in _claims_json():
        assert r["status"] == r["expected"], f"{r['id']}: {r['status']} (expected {r['expected']})"


def test_every_papers_claims_are_rendered_by_a_page():
    rendered = set()
    for page in DOCS.rglob("*.md"):
        if "_build" in page.parts:
            continue
        for keys in re.findall(r"```\{claims-table\}\n:paper: (.*)\n", page.read_text()):
            rendered |= {k.strip() for k in keys.split(",")}
    prefixes = {r["id"].split(".", 1)[0] for r in _claims_json()}
    assert prefixes <= rendered, prefixes - rendered
    assert rendered <= prefixes, rendered - prefixes


def test_claims_pages_render_every_record():
    """The directive's helpers work on every committed record (no field missing)."""
    pages = _extension("claims_pages")
    _, records = pages.load_records()
    for r in records:
        assert pages._claim_cell(r) and pages._status_cell(r) and pages._evidence_cell(r)
    assert sum(pages.status_counts(records).values()) == len(records)


def test_committed_figures_draw(tmp_path, monkeypatch):
    """Every committed figure is drawn from its record, and passes the checks every plot of the
    library passes on synthetic records (``tests/test_plots.py``: labels, no raw TeX, legends off
    the data, labels apart, nothing clipped), here on the records' real data; every paper page
    has at least one figure."""
    import matplotlib.pyplot as plt

    from tests import test_plots as readable

    figures = _extension("results_figures")
    kept = []
    monkeypatch.setattr(plt, "close", kept.append)  # save_figure closes: keep them to check
    drawn = figures.draw_all(tmp_path)
    monkeypatch.undo()
    assert set(drawn) == {f.name for f in figures.FIGURES}
    for path in drawn.values():
        assert path.stat().st_size > 10_000, path
    try:
        for fig in kept:
            if hasattr(fig, "axes"):
                fig.set_dpi(110)  # laid out as save_figure wrote it (at 100 dpi a legend's
                fig.canvas.draw()  # text ran 2 px past a 9-inch canvas the PNG holds whole)
                readable._check_labels(fig)
                readable._check_text(fig)
                readable._check_legends(fig)
                readable._check_labels_apart(fig)
                readable._check_canvas(fig)
    finally:
        for fig in kept:
            plt.close(fig)
    pages = "\n".join(p.read_text() for p in [*DOCS.glob("papers/*.md"), DOCS / "rasp.md"])
    placed = re.findall(r"```\{committed-figures\}\n:paper: ([\w, ]+)", pages)
    papers = {p.strip() for group in placed for p in group.split(",")}
    assert len(placed) == 7, placed  # the six paper pages (Sanford and Peng share one) and RASP
    assert all(any(f.paper == p for f in figures.FIGURES) for p in papers), papers
    for f in figures.FIGURES:
        command = figures._command(figures._read(f.record), f.command)
        assert command and "/work/" not in command and "/tmp/" not in command, (f.name, command)


def test_api_index_lists_every_public_module_once():
    api = _extension("api_pages")
    modules = api.public_modules()
    assert not [m for m in modules if any(p.startswith("_") for p in m.split(".")[1:])]
    listed = re.findall(r"^   (transformer_theory[\w.]*)$", api.api_page(modules), flags=re.M)
    assert sorted(listed) == sorted(modules)
    assert len(listed) == len(set(listed))
    titles = [title for title, _, _ in api.layers(modules)]
    assert titles[:3] == ["The spine", "The claims ledger", "Shared helpers"], titles
    assert "The commands" in titles and "Other modules" not in titles, titles


def _repository() -> str:
    match = re.search(r'^REPOSITORY = "(.*)"', (DOCS / "conf.py").read_text(), flags=re.M)
    assert match, "docs/conf.py: REPOSITORY not found"
    return match.group(1)


@pytest.mark.parametrize(
    "notebook", sorted((ROOT / "notebooks").glob("*.py")), ids=lambda p: p.stem
)
def test_colab_badges_agree_with_the_one_repository_address(notebook):
    repository = _repository()
    for path in (notebook, notebook.with_suffix(".ipynb")):
        text = path.read_text(encoding="utf-8")
        assert "OWNER/REPO" not in text, f"{path.name}: a placeholder address"
        badges = re.findall(r"colab\.research\.google\.com/github/([^)\s\"']+)", text)
        if not repository:
            assert not badges, f"{path.name}: a badge, but docs/conf.py has no REPOSITORY"
            continue
        expected = f"{repository}/blob/main/notebooks/{notebook.stem}.ipynb"
        assert badges == [expected], (path.name, badges)


def test_includes_start_after_a_whole_heading():
    # a :start-after: that is only the start of a heading leaves the heading's tail as a stray
    # line at the top of the included text
    bad = []
    for page in DOCS.rglob("*.md"):
        if "_build" in page.parts:
            continue
        text = page.read_text()
        for path, marker in re.findall(
            r"```\{include\} (\S+)\n(?::[a-z-]+: .*\n)*?:start-after: \"(#+ [^\"]*)\"", text
        ):
            lines = (page.parent / path).read_text().splitlines()
            if marker not in lines:
                bad.append(f"{page.relative_to(DOCS)}: {marker!r}")
    assert not bad, bad


def test_every_notebook_starts_with_the_same_install_cell():
    """The first code cell of every notebook installs the library where it is not importable, from
    ``TT_INSTALL``; its default is the repository's git URL once ``docs/conf.py`` has one, and none
    while it has not (then the cell says what to set instead of installing whatever an index holds
    under the name). ``.ci/notebooks_outside.py`` runs each notebook through that cell."""
    nbformat = pytest.importorskip("nbformat")
    repository = _repository()
    default = f"git+https://github.com/{repository}" if repository else ""
    cells = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        code = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        cells[path.name] = code[0]
    first = next(iter(cells.values()))
    differ = [name for name, cell in cells.items() if cell != first]
    assert not differ, differ
    assert 'find_spec("transformer_theory") is None' in first
    assert f'os.environ.get("TT_INSTALL", "{default}")' in first, first


def _plain_text(parts) -> str:
    """The text of ``parts`` outside maths and code (what a reader sees as words)."""
    from docutils import nodes

    out = []
    for part in parts:
        for node in part.findall(nodes.Text):
            if not any(isinstance(a, (nodes.math, nodes.literal)) for a in _ancestors(node)):
                out.append(node.astext())
    return "".join(out)


def _ancestors(node):
    while node is not None:
        yield node
        node = node.parent


def test_printed_statements_are_rendered_as_the_papers_print_them():
    """Every record's printed words, check, figure and correction: each formula (``\\( \\)``,
    ``\\[ \\]``, ``$ $``, ``$$ $$``) is a math node (MathJax renders it; as text it showed raw
    LaTeX), ``**strong**`` and ``<sup>`` are markup nodes, and no delimiter or TeX command is left
    in the words around them; nicematrix's ``NiceArray`` (which MathJax lacks) is drawn as a
    ``pmatrix``, and ``\\tag`` (display maths only) as its number."""
    pages = _extension("claims_pages")
    from docutils import nodes

    with_maths = [r for r in _claims_json() if r.get("printed") and "\\(" in r["printed"]]
    assert len(with_maths) >= 5, len(with_maths)
    dollars = [r for r in _claims_json() if "$" in (r.get("printed") or "")]
    assert len(dollars) >= 10, len(dollars)
    for r in _claims_json():
        for key in ("printed", "checked", "figure", "correction"):
            parts = pages._with_math(r.get(key) or "")
            text = _plain_text(parts)
            assert not re.search(r"\\[()\[\]]|\$|\*\*|\\frac|\\math|<sup>", text), (
                r["id"],
                key,
                text,
            )
            for p in parts:
                for m in p.findall(nodes.math):
                    assert "NiceArray" not in m.astext() and "\\tag" not in m.astext(), r["id"]
                    assert m.astext().count("{") == m.astext().count("}"), r["id"]
    parts = pages._with_math(r"**Theorem**: any $m \ge 1$ and $$x^2$$ with TC <sup>0</sup> `code`")
    kinds = [type(p).__name__ for p in parts]
    assert kinds == [
        "strong",
        "Text",
        "math",
        "Text",
        "math",
        "Text",
        "superscript",
        "Text",
        "literal",
    ]
    assert parts[4].astext() == r"\displaystyle x^2"
    assert (
        pages._latex_for_mathjax(
            r"\begin{NiceArray}{\left\lgroup cc \right\rgroup} a & b \end{NiceArray} \tag{21}"
        )
        == r"\begin{pmatrix} a & b \end{pmatrix} \qquad(21)"
    )
    summary = pages._without_math(r"**Let** \(x \in \mathbb{R}\) be \[y\] or $z$ here")
    assert summary == "Let \u2026 be \u2026 or \u2026 here", summary


def test_no_page_gives_a_placeholder_address():
    pages = [ROOT / "README.md", *(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)]
    bad = [str(p.relative_to(ROOT)) for p in pages if "OWNER/REPO" in p.read_text()]
    assert not bad, bad


def test_api_pages_show_every_public_name_of_each_curated_face():
    """A package's page lists every name of its ``__all__``: defined on it, documented on it
    (re-exported from a private module) or listed with a link to the public submodule that
    documents it (``theory.checks`` and ``constructions`` showed no object at all)."""
    import importlib
    import inspect

    api = _extension("api_pages")
    modules = api.public_modules()
    faces, reexported = api.curated_faces(modules), api.reexports(modules)
    checks = dict(faces["transformer_theory.theory.checks"])
    assert {"Family", "random_models", "check_family"} <= set(checks), checks
    assert checks["Family"] == "transformer_theory.theory.checks.families.Family"
    assert "check_construction" in dict(faces["transformer_theory.constructions"])
    documented_once = {name for names in reexported.values() for name, _ in names}
    missing = []
    for module in modules:
        mod = importlib.import_module(module)
        shown = {n for n, _ in faces.get(module, [])} | {n for n, _ in reexported.get(module, [])}
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            home = getattr(obj, "__module__", None)
            if inspect.ismodule(obj) or home == module or name in shown:
                continue
            if not (home or "").startswith("transformer_theory") or name in documented_once:
                continue  # a foreign object, or documented on a shallower page
            missing.append(f"{module}.{name}")
    assert not missing, missing[:10]


def test_project_urls_name_the_one_repository_address():
    """``[project.urls]`` exists exactly when ``docs/conf.py`` has a public ``REPOSITORY``, and then
    every URL in it (and CITATION.cff's ``repository-code``) names that address: no placeholder
    reaches an index's page."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    repository = _repository()
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("urls", {})
    citation = (ROOT / "CITATION.cff").read_text()
    code = re.search(r"^repository-code: \"?([^\"\n]+)", citation, flags=re.M)
    if not repository:
        assert not urls, urls
        assert code is None, code.group(1)
        return
    assert urls and all(f"github.com/{repository}" in u for u in urls.values()), urls
    assert code and code.group(1) == f"https://github.com/{repository}", code


def test_every_status_of_the_ledger_has_a_colour_and_a_meaning_on_the_site():
    """The claims pages render whatever statuses ``transformer_theory.ledger.STATUSES`` lists:
    each has its badge colour in the site's CSS and its line on the claims page."""
    from transformer_theory.ledger import STATUSES

    css = (DOCS / "_static" / "tables.css").read_text()
    missing = [s for s in (*STATUSES, "error") if f".claim-status-{s}" not in css]
    assert not missing, missing
    pages = _extension("claims_pages")
    assert pages.STATUS_ORDER[: len(STATUSES)] == tuple(STATUSES)
    assert "```{claims-statuses}" in (DOCS / "claims.md").read_text()


def test_the_page_check_reports_what_a_reader_would_see_wrong():
    """``.ci/check_pages.py`` (run by ``.ci/run`` on the built site with headless Chromium) turns
    each measurement into a failure line: raw markup, a broken word, an image shown under its
    minimum scale or narrower than its minimum, a clipped output; a clean page gives none."""
    spec = importlib.util.spec_from_file_location("_check_pages", ROOT / ".ci" / "check_pages.py")
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    clean = {"raw": [], "broken": [], "images": [], "clipped": [], "merror": 0}
    fine = {"src": "a.png", "natural": 990, "shown": 780}
    assert check.problems("p", {**clean, "images": [fine]}) == []
    bad = {
        "raw": ["$m \\ge 1$"],
        "broken": ["memorization"],
        "images": [{"src": "b.png", "natural": 1760, "shown": 780}, {**fine, "natural": 200}],
        "clipped": ["a long line"],
        "merror": 2,
    }
    lines = check.problems("p", bad)
    assert len(lines) == 6, lines
    assert any("raw markup" in x for x in lines) and any("broken" in x for x in lines)
    assert "index.html" in check.PAGES and "papers/conti2024.html" in check.PAGES


_FIXTURE = """<!doctype html><html><head><meta charset="utf-8"><style>
td {{ width: 40px; word-break: break-all; }} div.highlight pre {{ width: 200px; overflow: auto; }}
</style></head><body><article>
<p>{prose}</p>
<table><tr><td>{cell}</td></tr></table>
<figure><img src="wide.png" style="width: {shown}px"></figure>
<div class="highlight"><pre>{code}</pre></div>
<p><span class="math">\\(x \\le 1\\)</span> <code>$HOME **x**</code></p>
</article></body></html>"""


def _page(folder: Path, **parts: str | int) -> Path:
    """A page with one of each thing :data:`SCRIPT` measures (a clean value for every part not
    given), and the 990-pixel image it shows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(9, 1))
    fig.savefig(folder / "wide.png", dpi=110)
    plt.close(fig)
    clean = {"prose": "plain words", "cell": "ok", "shown": 800, "code": "short"}
    page = folder / "page.html"
    page.write_text(_FIXTURE.format(**{**clean, **parts}), encoding="utf-8")
    return page


def test_the_page_check_sees_what_chromium_renders(tmp_path):
    """The measurements themselves, in the browser CI runs (``.ci/check_pages.py``'s script on
    small pages): a clean page (maths in ``span.math``, markup inside ``code``) gives nothing, and
    each fault alone gives its line: raw ``$``/``\\frac``/``**`` in the text, a word broken in a
    table cell, an image shown under its minimum scale, a clipped code block."""
    import shutil

    check = _check_pages()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.skip("no chromium (apt-get install chromium): .ci/run installs it")

    def lines(**parts: str | int) -> list[str]:
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        return check.problems("p", check.render(_page(folder, **parts), chromium, 3000))

    assert lines() == []
    faults = {
        "prose": "a bound $m$</p><p>half \\frac{1}{2}</p><p>the **Theorem** says",
        "cell": "memorization",
        "shown": 300,
        "code": "x" * 200,
    }
    found = lines(**faults)
    assert len(found) == 6, found
    assert [x for x in found if "raw markup" in x] == [
        "p: raw markup in the text: 'a bound $m$'",
        "p: raw markup in the text: 'half \\\\frac{1}{2}'",
        "p: raw markup in the text: 'the **Theorem** says'",
    ], found
    for words in ("broken inside a table cell: 'memorization'", "wide.png shown 300 px", "wider"):
        assert sum(words in x for x in found) == 1, (words, found)


def test_the_page_check_typesets_with_a_local_mathjax(tmp_path):
    """With a local MathJax (``MATHJAX``: a ``node_modules`` holding ``mathjax@4``, as ``.ci/run``
    installs), the page's CDN link is replaced, every formula is typeset, and one MathJax cannot
    typeset fails; a clean formula gives nothing."""
    import os
    import shutil

    if not os.environ.get("MATHJAX") or not shutil.which("chromium"):
        pytest.skip("no local MathJax (MATHJAX=node_modules of npm install mathjax@4) or chromium")
    check = _check_pages()
    cdn = '<script defer="defer" src="https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js">'
    found = {}
    for name, formula in (
        ("clean", "x \\le 1"),
        ("undefined", "\\undefinedmacro{1}"),
        ("unread", "\\frac{1}{"),
    ):
        page = tmp_path / f"{name}.html"
        page.write_text(
            f'<html><body><article><p><span class="math">\\({formula}\\)</span></p></article>'
            f"{cdn}</script></body></html>",
            encoding="utf-8",
        )
        found[name] = check.render(page, "chromium", 5000, Path(os.environ["MATHJAX"]))
    assert check.problems("p", found["clean"]) == [] and found["clean"]["mathjax"]
    assert check.problems("p", found["undefined"]) == ["p: 1 formulas MathJax could not typeset"]
    assert check.problems("p", found["unread"]) == [
        "p: raw markup in the text: '\\\\(\\\\frac{1}{\\\\)'"
    ]


def _check_pages():
    spec = importlib.util.spec_from_file_location("_check_pages", ROOT / ".ci" / "check_pages.py")
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    return check


def test_table_code_breaks_only_at_its_joints():
    layout = _extension("page_layout")
    assert layout.code_with_joints("sanford2023.qsa_upper").count("<wbr>") == 2
    assert "<wbr>" not in layout.code_with_joints("_common")  # a leading joint stays whole
    assert "<wbr>" not in layout.code_with_joints("memorization")
    assert "&lt;b&gt;" in layout.code_with_joints("<b>.x")  # escaped
