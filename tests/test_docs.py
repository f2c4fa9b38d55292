"""The documentation's code runs: README's "From Python" block, the landing page's quick start and
the ``>>>`` examples of the public API.

README's block and ``docs/index.md``'s quick start are read from the files at test time and
executed; what they print is compared with what they say they print (README: the comment closing
each ``print(...)`` call, ``;`` between the lines of one call in a loop; the quick start: the
``text`` block after it). Values written in scientific notation (``8.7e-17``) are float64 rounding
noise or quantities derived from it: they must match to the order of magnitude (within a factor of
10 either way), not digit for digit, so the check holds on any CPU; every other token must match
exactly, and ``...`` ends a comparison early (the rest is elided). The API examples run with
:mod:`doctest`. The Sphinx build itself runs in ``.ci/run`` (too long for the suite).
"""

import contextlib
import doctest
import io
import math
import re
from pathlib import Path

import pytest

from transformer_theory.constructions import check as construction_check
from transformer_theory.core import attention
from transformer_theory.theory.checks import verdicts

ROOT = Path(__file__).resolve().parents[1]
_SCIENTIFIC = re.compile(r"^[-+]?\d+(\.\d+)?e[-+]?\d+$")
_TOKEN = re.compile(r"[\w.+-]+|[^\w\s]")


def _python_block(text: str, after: str) -> str:
    """The first fenced ```` ```python ```` block after the line ``after``."""
    start = text.index(after)
    match = re.search(r"^```python\n(.*?)^```$", text[start:], flags=re.S | re.M)
    assert match, f"no python block after {after!r}"
    return match.group(1)


def _printed_comments(code: str) -> list[str]:
    """The comment closing each ``print(`` call, split at ``;`` into the lines it prints."""
    expected, pending = [], False
    for line in code.splitlines():
        if "print(" in line:
            pending = True
        comment = re.search(r"\)\s+#\s*(.+)$", line)
        if pending and comment:
            expected += [part.strip() for part in comment.group(1).split(";")]
            pending = False
    return expected


def _run(code: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<docs>", "exec"), {"__name__": "__docs__"})
    return out.getvalue().strip().splitlines()


def _matches(printed: str, expected: str) -> bool:
    """Token by token: scientific notation to the order of magnitude, the rest exactly."""
    got, want = _TOKEN.findall(printed), _TOKEN.findall(expected)
    for i, w in enumerate(want):
        if w == "...":
            return True
        if i >= len(got):
            return False
        g = got[i]
        if _SCIENTIFIC.match(w):
            try:
                ratio = float(g) / float(w)
            except ValueError:
                return False
            if not (ratio > 0 and abs(math.log10(ratio)) <= 1):
                return False
        elif g != w:
            return False
    return len(got) == len(want)


@pytest.mark.parametrize(
    "printed, expected, ok",
    [
        ("7 8.4e-17 4.618e-14 True", "7 8.7e-17 4.6e-14 True", True),
        ("7 8.4e-15 4.618e-14 True", "7 8.7e-17 4.6e-14 True", False),  # 100x off
        ("7 8.4e-17 4.618e-14 False", "7 8.7e-17 4.6e-14 True", False),
        ("{'examples': 288, 'accuracy': 0.5}", "{'examples': 288, 'accuracy': 1.0, ...}", False),
        (
            "{'examples': 288, 'accuracy': 1.0, 'x': 2}",
            "{'examples': 288, 'accuracy': 1.0, ...}",
            True,
        ),
        ("3 4", "3", False),
    ],
)
def test_the_comparison_fails_when_it_should(printed, expected, ok):
    assert _matches(printed, expected) is ok


def test_readme_from_python_block_prints_what_its_comments_say():
    code = _python_block((ROOT / "README.md").read_text(), "### From Python")
    expected = _printed_comments(code)
    assert len(expected) >= 3, expected  # the block's three examples each print something
    printed = _run(code)
    assert len(printed) == len(expected), (printed, expected)
    for got, want in zip(printed, expected):
        assert _matches(got, want), f"printed {got!r}, README says {want!r}"


def test_docs_quick_start_prints_its_stated_output():
    text = (ROOT / "docs" / "index.md").read_text()
    code = _python_block(text, "## Quick start")
    assert len(code.strip().splitlines()) <= 5, "the quick start is five lines"
    stated = re.search(r"^```text\n(.*?)^```$", text[text.index(code) :], flags=re.S | re.M)
    assert stated, "the quick start states its output in a text block"
    assert _run(code) == stated.group(1).strip().splitlines()


@pytest.mark.parametrize(
    "obj",
    [attention.attention_weights, construction_check.check_construction, verdicts.check_family],
    ids=lambda f: f"{f.__module__}.{f.__name__}",
)
def test_api_examples(obj):
    tests = doctest.DocTestFinder(recurse=False).find(
        obj, globs=vars(__import__(obj.__module__, fromlist=["_"]))
    )
    examples = [t for t in tests if t.examples]
    assert examples, f"{obj.__name__} has no >>> example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in examples:
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) of {obj.__name__} failed (above)"


def test_docs_includes_find_their_anchors_in_readme_and_claims():
    """The site includes README's and CLAIMS.md's sections by their headings (one source for each
    fact): a renamed heading must fail here, not only in the Sphinx build of ``.ci/run``."""
    pattern = re.compile(r"^```\{include\} (\S+)\n((?::[\w-]+: .*\n)*)```", flags=re.M)
    found = 0
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if "_build" in page.parts:
            continue
        for target, options in pattern.findall(page.read_text()):
            text = (page.parent / target).resolve().read_text()
            found += 1
            for option in ("start-after", "end-before"):
                anchor = re.search(rf"^:{option}: \"(.*)\"$", options, flags=re.M)
                if anchor:
                    assert anchor.group(1) in text, (
                        f"{page.name}: {anchor.group(1)!r} not in {target}"
                    )
    assert found >= 10, found


_MANUAL = ROOT / "docs" / "_sources" / "manual.md"
_BUILD = re.compile(r"^pip install \"\.\[docs\]\" && (python -m sphinx .*)$", flags=re.M)
_BUILD_TIME = re.compile(
    r"^\((\d+ min \d+ s on [^;]*); then open `docs/_build/html/index\.html`\)", flags=re.M
)


def test_readme_and_the_guide_give_one_build_command_and_one_time():
    readme, manual = (ROOT / "README.md").read_text(), _MANUAL.read_text()
    commands = {
        name: _BUILD.findall(text) for name, text in (("README", readme), ("guide", manual))
    }
    assert all(len(c) == 1 for c in commands.values()), commands
    assert commands["README"] == commands["guide"], commands
    times = {
        name: _BUILD_TIME.findall(text) for name, text in (("README", readme), ("guide", manual))
    }
    assert all(len(t) == 1 for t in times.values()) and times["README"] == times["guide"], times


def test_the_guides_from_python_block_is_readmes():
    # the guide showed other figures (8.7e-17 / 3.0e-16) than README and than the code prints
    readme = _python_block((ROOT / "README.md").read_text(), "### From Python")
    assert _python_block(_MANUAL.read_text(), "### From Python") == readme


def test_the_guide_names_every_notebook_and_every_command():
    from transformer_theory.cli import COMMANDS

    manual = _MANUAL.read_text()
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    listed = re.findall(r"^\| \[\d+ [^]]+\]\(notebooks/(\w+)\.ipynb\)", manual, flags=re.M)
    assert listed == notebooks, (listed, notebooks)
    words = {10: "ten", 11: "eleven", 12: "twelve", 13: "thirteen"}
    assert f"the {words[len(notebooks)]} notebooks" in manual
    row = next(line for line in manual.splitlines() if line.startswith("| `cli/` |"))
    named = set(
        re.search(r"transformer-theory \{([^}]*)\}", row).group(1).replace(" ", "").split(",")
    )
    assert named == set(COMMANDS), set(COMMANDS) ^ named


def test_top_level_help_speaks_to_a_user():
    """``transformer-theory --help`` says what the tool does, its main commands and a first
    example that parses (how the command modules are written is the developers' part)."""
    from transformer_theory.cli import COMMANDS, build_parser
    from transformer_theory.cli._main import DESCRIPTION, _load_commands

    parser = build_parser(_load_commands())
    text = parser.format_help()
    assert text.index("Check what the theory of transformers") < text.index("Main commands")
    for internal in ("Thin by design", "add_arguments", "_registry", "module docstring"):
        assert internal not in text, internal
    main = re.findall(r"^  (\w[\w-]*) {2,}", DESCRIPTION.split("Main commands:")[1], flags=re.M)
    assert len(main) >= 5 and set(main) <= set(COMMANDS), main
    example = re.search(r"^  (transformer-theory .*)$", DESCRIPTION, flags=re.M).group(1)
    args = parser.parse_args(example.split()[1:])
    assert args.command == example.split()[1]
