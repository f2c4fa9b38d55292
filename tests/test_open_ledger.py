"""The ledger is open: a researcher's package registers rows through the entry-point group or
``--module``, asserts their statuses from its own tests, and reads the committed records; the
quoted statements' quantifier words agree with their rows' domains."""

from __future__ import annotations

import pathlib
import re
import sys

import pytest

from transformer_theory import claims
from transformer_theory.claims import runner
from transformer_theory.cli import main
from transformer_theory.ledger import Row

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "my_paper"


@pytest.fixture
def my_paper(monkeypatch):
    """The example package importable without installing it."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    sys.modules.pop("my_paper", None)
    sys.modules.pop("my_paper.claims", None)
    import my_paper.claims as module

    return module


def test_module_rows_run_with_the_same_rule(my_paper):
    rows = claims.module_claims("my_paper.claims")
    assert [r.id for r in rows] == [r.id for r in my_paper.CLAIMS]
    record = claims.run_claims(ids="my_paper.binary_strings_count", modules=["my_paper.claims"])
    assert [r.status for r in record] == ["refuted"]
    assert record[0].subject == "printed" and record[0].quantifier == "infinite"


def test_the_command_takes_a_module(my_paper, tmp_path, capsys):
    code = main(
        [
            "claims",
            "--module",
            "my_paper.claims",
            "--id",
            "my_paper.binary_strings_count",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    assert "refuted" in (tmp_path / "claims.md").read_text()
    assert main(["claims", "--module", "no_such_pkg.claims", "--out", str(tmp_path)]) == 2
    assert "--module" in capsys.readouterr().err


def test_an_entry_point_registers_rows(my_paper, monkeypatch):
    import importlib.metadata as md

    ep = md.EntryPoint("my_paper", "my_paper.claims", runner.ENTRY_POINT_GROUP)

    def entry_points(group=None, **kw):
        return [ep] if group == runner.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(md, "entry_points", entry_points)
    ids = {c.id for c in claims.all_claims()}
    assert {r.id for r in my_paper.CLAIMS} <= ids
    assert not {r.id for r in my_paper.CLAIMS} & {c.id for c in runner.builtin_claims()}
    bad = md.EntryPoint("broken", "no_such_pkg.claims", runner.ENTRY_POINT_GROUP)
    monkeypatch.setattr(md, "entry_points", lambda group=None, **kw: [bad])
    with pytest.raises(RuntimeError, match="broken"):
        claims.all_claims()


def test_assert_status_fails_with_the_reason(my_paper):
    row = my_paper.CLAIMS[-1]
    claims.assert_status(row, "refuted")
    with pytest.raises(AssertionError, match="refuted.*expected 'proved'"):
        claims.assert_status(row, "proved")


def test_module_errors_name_the_argument():
    for bad in ("", "   ", None):
        with pytest.raises(ValueError, match="module"):
            claims.module_claims(bad)
    with pytest.raises(ValueError, match="cannot import"):
        claims.module_claims("no_such_pkg.claims")
    with pytest.raises(ValueError, match="no CLAIMS"):
        claims.module_claims("json")


def test_committed_records_are_readable():
    rec = claims.committed("chen_zou2024.prop8")
    assert rec["id"] == "chen_zou2024.prop8" and rec["status"]
    assert len(claims.committed()) >= 100
    with pytest.raises(ValueError, match="claim_id"):
        claims.committed("no.such")


def test_committed_reads_the_wheels_copy(tmp_path, monkeypatch):
    import json

    pkg = tmp_path / "transformer_theory"
    (pkg / "_results").mkdir(parents=True)
    (pkg / "_results" / "CLAIMS.json").write_text(
        json.dumps({"records": [{"id": "a.b", "status": "proved"}]})
    )
    (pkg / "claims").mkdir()
    monkeypatch.setattr(runner, "__file__", str(pkg / "claims" / "runner.py"))
    assert claims.committed("a.b")["status"] == "proved"


# ------------------------------------------------------------------ quoted words vs their domains

_EXISTS = re.compile(r"\bthere (exists?|is an?)\b|\bexists? an?\b", re.I)
# "for all q", "for any N, M", "for every n": a quantifier over a variable (one or two letters,
# a LaTeX macro, or in $...$) asks for a family or a continuum, never one finite set
_FORALL_VAR = re.compile(
    r"\bfor (all|any|every)\s+\$?\s*(\\[a-zA-Z]+|[a-zA-Z](_\{?\w+\}?)?)\s*"
    r"(\$|,|\\in|\bin\b|>|<|\\ge|\\le|=|\))",
    re.I,
)


def _moved() -> list[Row]:
    return [r for r in runner.builtin_claims() if not r.legacy and r.printed]


_FORALL_WORD = re.compile(r"\bfor (all|any|every)\b", re.I)


def _leading_quantifier(printed: str) -> str | None:
    """``exists`` / ``forall`` for the first sentence that says "there exists": the first
    quantifier word of that sentence (a "for any model ..., there exists a point" is a for-all
    over the models, its existence nested inside)."""
    for sentence in re.split(r"(?<=[.;])\s+", printed):
        m = _EXISTS.search(sentence)
        if m:
            f = _FORALL_WORD.search(sentence)
            return "forall" if f and f.start() < m.start() else "exists"
    return None


# "every input", "any m", "all X", "for all q": a universal word asks for more than one
# finite set unless the words themselves bound it ("every string of length at most 6")
_UNIVERSAL = re.compile(r"\b(for (all|any|every)|every|any|all)\b", re.I)
# a universal word whose own sentence names the finite set it ranges over
_BOUNDED = re.compile(r"\b(at most|up to|of length \d|these|the (two|three|four) )", re.I)


def disagreements(rows: list[Row]) -> list[tuple[str, str]]:
    """``(id, why)`` for each quoted row whose printed quantifier words disagree with the
    quantifier its domain gives: a leading "there exists" over a non-existential domain, a
    for-all (or any universal word not bounded in its own sentence) over one finite set."""
    bad = []
    for r in rows:
        lead = _leading_quantifier(r.printed)
        if lead == "exists" and r.quantifier not in ("exists", "empirical"):
            bad.append((r.id, f"'there exists' over a {r.quantifier} domain"))
        if lead == "forall" and r.quantifier == "finite":
            bad.append((r.id, "a for-all with an existence inside, over one finite set"))
        if _FORALL_VAR.search(r.printed) and r.quantifier == "finite":
            bad.append((r.id, "'for all <variable>' over one finite set"))
        for sentence in re.split(r"(?<=[.;:])\s+", r.printed):
            if (
                _UNIVERSAL.search(sentence)
                and not _BOUNDED.search(sentence)
                and r.quantifier == "finite"
            ):
                bad.append((r.id, f"a universal word over one finite set: {sentence[:60]!r}"))
                break
    return bad


def test_quoted_quantifier_words_agree_with_the_domains():
    bad = disagreements(_moved())
    assert not bad, f"the printed words' quantifier disagrees with the domain: {bad}"


def _with_domain(claim_id: str, domain) -> list[Row]:
    import dataclasses

    return [
        dataclasses.replace(r, domain=domain, quantifier=None) if r.id == claim_id else r
        for r in _moved()
    ]


@pytest.mark.parametrize(
    "claim_id",
    [
        "sanford2023.qsa_upper",  # "For all q, N, any m ...": the checked instance as its domain
        "svete_cotterell2024.theorem31",  # "For every n-gram LM, there exists ..."
        "chen_zou2024.prop8",  # "for any single layer transformer ..."
        "sanford2023.match3bigram",  # "... with f(X) = Match3Bigram(X) for all X"
    ],
)
def test_a_row_that_shrinks_its_quoted_domain_to_one_finite_set_is_flagged(claim_id):
    from transformer_theory.domains import Enumerated

    finite = Enumerated("the instance checked", ("seed 0",))
    assert claim_id in [i for i, _ in disagreements(_with_domain(claim_id, finite))]


@pytest.mark.parametrize(
    "claim_id", ["chen_zou2024.lemma6_template_pairs", "sanford2023.match3bigram"]
)
def test_a_quoted_existence_over_a_for_all_domain_is_flagged(claim_id):
    from transformer_theory.domains import Enumerated, Family

    (row,) = [r for r in _moved() if r.id == claim_id]
    assert _leading_quantifier(row.printed) == "exists"
    family = Family("n", lambda n: Enumerated(f"n = {n}", (n,)), start=1, what="sizes")
    assert claim_id in [i for i, _ in disagreements(_with_domain(claim_id, family))]


def test_the_quote_checks_can_fail():
    assert _FORALL_VAR.search("For all $q, N$, any $m$ ...")
    assert _FORALL_VAR.search("for any N, M the bound holds")
    assert not _FORALL_VAR.search("on every binary string of length at most 6")
    assert _EXISTS.search("There exists a transformer with two layers")
    assert _leading_quantifier("There exists a transformer with two layers.") == "exists"
    assert _leading_quantifier("For any transformer, there exists a point it errs on.") == (
        "forall"
    )
    assert _leading_quantifier("A bound holds.") is None
    assert _UNIVERSAL.search("the bound holds on every input")
    assert _UNIVERSAL.search("All X are matched")
    assert not _UNIVERSAL.search("the sequences (a,b,r), (b,a,r) are dependent")
    assert _BOUNDED.search("on every binary string of length at most 6")
