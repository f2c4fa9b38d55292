"""Every ledger row's printed quote (``Row.printed``, "the paper's words, verbatim") occurs in the
paper's text.

The texts are the project's source documents, in ``shared/seeds/`` beside the checkout (CI lays it
out the same way); the test is skipped, saying so, only where that folder is absent. Each paper
key maps to its file in :data:`SOURCES` (checked against the folder's README); a paper whose rows
quote but which has no source there fails, naming the paper.

A quote is split at its elision marks (:data:`ELISIONS`) and each piece must be a substring of
the text after ONE normalisation (:func:`normalise`) applied to both sides: the conversion's
markup removed and the symbols mapped to the ASCII the rows write (:data:`SYMBOLS`, each entry
with its reason). Nothing else: no fuzzy matching, no list of rows excused.

The rows are the library's (``all_claims(entry_points=False)``): an installed package's rows (the
``examples/my_paper`` package quotes an invented paper) have no source among the seeds.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import types

import pytest

from transformer_theory import claims

# the project's source documents, in shared/ beside the checkout (as CI lays it out), or where
# TRANSFORMER_THEORY_SEEDS points (a git worktree elsewhere)
SEEDS = pathlib.Path(
    os.environ.get("TRANSFORMER_THEORY_SEEDS")
    or pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "seeds"
)

#: paper key (the row id's prefix) -> (its source file, words README.md's line for that file
#: holds), or (None, why its source is not among the seeds: such a paper's rows may not quote).
SOURCES: dict[str, tuple[str | None, str]] = {
    "chen_zou2024": ("003_151f5138e12808d0.txt", "Chen & Zou, 2024"),
    "barbero2024": ("000_753111d4239c5b56.txt", "over-squashing"),
    "svete_cotterell2024": ("001_4a8a9b13747ade48.txt", "Svete & Cotterell"),
    "formal_languages": ("001_4a8a9b13747ade48.txt", "Strobl et al."),
    "sanford2023": ("001_4a8a9b13747ade48.txt", "Sanford et al."),
    "peng2024": ("001_4a8a9b13747ade48.txt", "Peng et al."),
    "conti2024": ("002_4684f4c86eb23b5d.txt", "The Math behind transformers"),
    "rasp": (
        None,
        "Weiss et al. 2021 and tracr are not among the seeds: the rows are the compiler's",
    ),
    "exact": (None, "the exact engine's own enclosures: no paper"),
}

#: where a quote leaves text out: "...", "…", Conti's "[...]", and " / " between the lines of
#: a table the formal-language rows quote (each line is its own piece).
ELISIONS = re.compile(r"\[\.\.\.\]|\.\.\.|…| / ")

#: LaTeX commands and Unicode symbols -> the ASCII the rows write for them, with the reason.
SYMBOLS: dict[str, tuple[str, str]] = {
    r"\oplus": ("(+)", "Chen & Zou's sequence concatenation in definition2's quote"),
    r"\lambda": ("lambda", "the coefficients in definition3_basis's quote"),
    r"\sum": ("sum", "the sum in definition3_basis's quote"),
}

#: markup of the PDF-to-text conversion that carries no words, removed (or unwrapped) on both
#: sides, each with its reason.
_UNWRAP = re.compile(r"\\(?:mathbf|boldsymbol|texttt|text|mathrm|mathcal|mathbb)\{([^{}]*)\}")
_DELETE = re.compile(r"\$|\\\(|\\\)|\\\[|\\\]|\*\*|\*|^[ \t]*- ", re.M)


def normalise(text: str, symbols: dict[str, tuple[str, str]] | None = None) -> str:
    """The one normalisation, the same for a quote's piece and for the text:

    1. a table cell break (a tab in the conversion) reads " | ", as the rows join cells;
    2. markdown emphasis (``*``, ``**``) and a list bullet (``- `` at a line's start) dropped;
    3. LaTeX math delimiters (``$``, ``\\(``, ``\\)``, ``\\[``, ``\\]``) dropped and font
       wrappers (``\\mathbf{X}``, ``\\texttt{TF}``, ...) unwrapped to their contents;
    4. each :data:`SYMBOLS` entry replaced by its ASCII (a command only where no letter follows,
       so ``\\in`` is not ``\\infty``'s start);
    5. whitespace collapsed to one space.
    """
    text = text.replace("\t", " | ")
    text = _DELETE.sub("", text)
    for _ in range(3):  # nested wrappers: \mathbf{\texttt{x}}
        text = _UNWRAP.sub(r"\1", text)
    for symbol, (ascii_, _why) in (SYMBOLS if symbols is None else symbols).items():
        if symbol.startswith("\\"):
            text = re.sub(re.escape(symbol) + r"(?![A-Za-z])", lambda _m, a=ascii_: a, text)
        else:
            text = text.replace(symbol, ascii_)
    return " ".join(text.split())


def pieces(printed: str, symbols=None) -> list[str]:
    """A quote's pieces between its elision marks, each normalised (empty ones dropped)."""
    return [p for p in (normalise(x, symbols) for x in ELISIONS.split(printed)) if p]


def missing(row, texts: dict[str, str], symbols=None) -> list[str]:
    """The pieces of ``row.printed`` the paper's normalised text does not hold ([] if none)."""
    if row.printed is None:
        return []
    key = row.id.split(".", 1)[0]
    if key not in SOURCES:
        raise AssertionError(f"{row.id}: paper {key!r} quotes but has no source in SOURCES")
    name, why = SOURCES[key]
    if name is None:
        raise AssertionError(f"{row.id}: quotes a source that is not among the seeds ({why})")
    return [p for p in pieces(row.printed, symbols) if p not in texts[name]]


def _texts() -> dict[str, str]:
    if not SEEDS.is_dir():
        pytest.skip(f"the seed documents are not beside this checkout ({SEEDS})")
    readme = (SEEDS / "README.md").read_text(encoding="utf-8")
    texts = {}
    for key, (name, words) in SOURCES.items():
        if name is None:
            continue
        path = SEEDS / name
        assert path.is_file(), f"{key}: its source {name} is not in {SEEDS}"
        line = next((x for x in readme.splitlines() if name in x), "")
        assert words in line, f"{key}: README.md's line for {name} does not say {words!r}"
        texts[name] = normalise(path.read_text(encoding="utf-8"))
    return texts


def _rows():
    return claims.all_claims(entry_points=False)


def test_every_quote_is_in_its_papers_text():
    texts = _texts()
    bad = {row.id: m for row in _rows() if (m := missing(row, texts))}
    assert not bad, "quoted words not in the paper's text:\n" + "\n".join(
        f"{rid}: {p!r}" for rid, ps in bad.items() for p in ps
    )


def test_every_paper_that_quotes_is_mapped():
    keys = {row.id.split(".", 1)[0] for row in _rows() if row.printed is not None}
    assert keys <= {k for k, (name, _) in SOURCES.items() if name is not None}


def test_a_planted_paraphrase_is_flagged():
    texts = _texts()
    row = next(r for r in _rows() if r.id == "chen_zou2024.theorem1_memorization")
    assert missing(row, texts) == []
    plants = [
        row.printed.replace("there exists", "there is"),  # a paraphrase
        row.printed.replace("attention layer", "layer"),  # a word dropped without a mark
        row.printed.replace(r"\in", "∉"),  # a symbol the table does not map
    ]
    for printed in plants:
        assert printed != row.printed
        assert missing(dataclasses.replace(row, printed=printed), texts), printed
    # an elision mark lets a quote skip words, and only between pieces that are each in the text
    first, rest = row.printed.split(" let ", 1)
    assert missing(dataclasses.replace(row, printed=first + " ... " + rest[40:]), texts) == []
    assert missing(dataclasses.replace(row, printed=first + " " + rest[40:]), texts)


def test_a_paper_that_quotes_without_a_source_fails_by_name():
    texts = _texts()
    with pytest.raises(AssertionError, match="not among the seeds"):
        missing(types.SimpleNamespace(id="rasp.length", printed="RASP"), texts)
    with pytest.raises(AssertionError, match="'nobody2025' quotes but has no source"):
        missing(types.SimpleNamespace(id="nobody2025.x", printed="words"), texts)
    assert missing(types.SimpleNamespace(id="nobody2025.x", printed=None), texts) == []


def test_every_symbol_of_the_table_is_needed():
    """Drop one entry and some quote no longer matches: the table holds nothing idle."""
    raw = {name: (SEEDS / name).read_text(encoding="utf-8") for name in set(_texts())}
    rows = [r for r in _rows() if r.printed is not None]
    for symbol in SYMBOLS:
        fewer = {s: v for s, v in SYMBOLS.items() if s != symbol}
        texts = {name: normalise(t, fewer) for name, t in raw.items()}
        assert any(missing(r, texts, fewer) for r in rows), f"{symbol!r} is not needed"


def test_the_normalisation_is_the_documented_one():
    """Each step on a hand-written input; what is not markup or a table entry stays."""
    assert normalise("a\tb\t\n") == "a | b |"  # table cells
    assert normalise("**Max** *n*-gram\n- 1. one\n- 2. two") == "Max n-gram 1. one 2. two"
    assert normalise(r"\(\mathbf{X}^{(0)} \in \mathcal{X}\)") == r"X^{(0)} \in X"
    assert normalise(r"$\texttt{\mathbf{TF}}$ \[x\]") == "TF x"  # nested wrappers
    assert (
        normalise(r"\sum \lambda_i \oplus \lambdax \summa") == r"sum lambda_i (+) \lambdax \summa"
    )
    assert normalise(r"\frac{1}{t} \langle \neq ∈") == r"\frac{1}{t} \langle \neq ∈"
    assert pieces("a ... b … c [...] d / e") == ["a", "b", "c", "d", "e"]
