"""The ledger's rule, case by case: every status the rule can give, from hand-built rows, domains
and checks (the expected statuses are the module docstring's table read by hand, never computed
by the code under test), and the Domain objects' sizes against independent counts."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from transformer_theory.domains import (
    Continuum,
    Enumerated,
    Exists,
    Family,
    Filtered,
    Grid,
    Product,
    Record,
    Strings,
    Tally,
    Trained,
    relation,
    statement_kind,
)
from transformer_theory.ledger import (
    STATUS_WORDS,
    STATUSES,
    Checked,
    Row,
    Verdict,
    Witness,
    derive_status,
)

# ----------------------------------------------------------------------------------- the domains

BITS = Family("L", lambda L: Strings("01", [L]), start=1, what="binary strings")
FINITE = Strings("ab", range(0, 4))  # 1 + 2 + 4 + 8 = 15 strings
REALS = Continuum("every eps in (0, 1)")
MODELS = Continuum("every real weight of one-layer ReLU attention")


def test_sizes_are_the_counts_of_their_elements():
    assert FINITE.size == 15 == len(set(FINITE.elements()))
    g = Grid({"q": range(1, 4), "N": (8, 16)})
    assert g.size == 6 == len(list(g.elements()))
    assert BITS.upto(5).size == 2 + 4 + 8 + 16 + 32 == len(list(BITS.upto(5).elements()))
    assert BITS.at([3, 5]).size == 8 + 32
    assert BITS.size is None and REALS.size is None
    p = Product(FINITE, Enumerated("two seeds", (0, 1)))
    assert p.size == 30 == len(list(p.elements()))
    balanced = Filtered(Strings("()", [4]), lambda s: _balanced(s), "balanced")
    assert balanced.size == 2  # (()) and ()()
    with pytest.raises(ValueError, match="not finite"):
        list(BITS.elements())


def _balanced(s) -> bool:
    depth = 0
    for c in s:
        depth += 1 if c == "(" else -1
        if depth < 0:
            return False
    return depth == 0


def test_the_quantifier_is_read_from_the_domain():
    assert statement_kind(FINITE) == "finite"
    assert statement_kind(BITS) == "infinite"
    assert statement_kind(REALS) == "continuum"
    assert statement_kind(Product(MODELS, BITS)) == "continuum"
    assert statement_kind(Exists("a two-layer transformer", BITS)) == "exists"
    assert statement_kind(Trained("3 seeds")) == "empirical"
    assert statement_kind(Record("x.json")) == "empirical"


def test_relations_of_sub_domains():
    assert relation(FINITE, FINITE) == "all"
    assert relation(BITS, BITS.upto(4)) == "upto"
    assert relation(BITS, BITS.at([2, 7])) == "upto"
    assert relation(BITS, BITS.at([4])) == "instance"  # one size of a family: an example
    assert relation(REALS, REALS.grid(Grid({"eps": (Fraction(1, 2), Fraction(1, 4))}))) == "grid"
    assert relation(REALS, REALS.enclosure("[1/4, 1/2]")) == "all"
    # one enclosure covers a set of reals, never every size of a family
    from transformer_theory.domains import Enclosure

    with pytest.raises(ValueError, match="only a Continuum"):
        Enclosure(BITS, "every L")
    assert relation(MODELS, MODELS.sample(8, 0, lambda seed, i: i)) == "samples"
    assert relation(MODELS, MODELS.instance("seed 0")) == "instance"
    # a sub-domain of something else is not a sub-domain of the statement's domain
    other = Family("n", lambda n: Strings("xyz", [n]), start=1, what="other strings")
    assert relation(BITS, other.upto(3)) == "none"
    assert relation(BITS, FINITE) == "none"
    # a product relates as its weakest part
    both = Product(MODELS, BITS)
    assert relation(both, Product(MODELS.sample(4, 0, lambda s, i: i), BITS.upto(3))) == "samples"
    assert relation(both, Product(MODELS.instance("seed 0"), BITS.upto(3))) == "instance"
    assert relation(Exists("w", BITS), BITS.upto(3)) == "upto"


def test_a_tally_sees_skipped_repeated_and_foreign_elements():
    t = Tally(FINITE)
    for s in t:
        t.record(s)
    assert t.complete and t.seen == 15
    t = Tally(FINITE)
    for s in t:
        if len(s) % 2:  # a check that skips the odd lengths
            continue
        t.record(s)
    assert not t.complete and "covered 5 of 15" in t.shortfall()
    t = Tally(FINITE)
    t.record_all(["", "a", "a"] + ["b"] * 12)
    assert not t.complete and "twice" in t.shortfall()
    t = Tally(FINITE)
    t.record_all(list(FINITE.elements())[:-1] + ["abcd"])
    assert not t.complete and "outside" in t.shortfall()
    with pytest.raises(ValueError, match="not finite"):
        Tally(BITS)


def test_a_counted_domain_is_checked_by_its_count():
    from transformer_theory.domains import Counted

    pairs = Counted("every pair of different templates of length 4", 15 * 14 // 2)
    assert pairs.size == 105 and relation(pairs, pairs) == "all"
    t = Tally(pairs)
    t.record_count(60)
    t.record_count(45)
    assert t.complete
    t = Tally(pairs)
    t.record_count(104)  # a batch that left one pair out
    assert not t.complete and "104 of 105" in t.shortfall()
    t = Tally(pairs)
    t.record_count(106)  # one counted twice: an excess, not a completion
    assert not t.complete
    for bad in (-1, 2.5, True, "105"):
        with pytest.raises(ValueError, match="count"):
            Counted("x", bad)


# ------------------------------------------------------------------------------------- the rule


def _row(domain, printed="The paper's words.", correction=None):
    return Row(
        id="test.row",
        paper="T 2024",
        place="§1",
        statement="s",
        domain=domain,
        check=lambda: None,
        judge=lambda c: None,
        sizes={"quick": {}},
        expected="open",
        printed=printed,
        correction=correction,
    )


def _full(d):
    t = Tally(d)
    t.record_all(d.elements())
    return t


def _short(d):
    t = Tally(d)
    t.record_all(list(d.elements())[1:])
    return t


_EXACT_BALL = Witness("w", Fraction(1, 3), Fraction(1, 2))
_GRID = Grid({"eps": (Fraction(1, 2), Fraction(1, 4))}, over="rationals")

# (name, domain, arithmetic, covered, holds, extra Checked kw, printed?, status); each expected
# status is the docstring's table applied by hand.
CASES = [
    ("finite exact all", FINITE, "exact", lambda: _full(FINITE), True, {}, True, "proved"),
    (
        "finite enclosed all",
        FINITE,
        "enclosed",
        lambda: _full(FINITE),
        True,
        {"witnesses": (_EXACT_BALL,)},
        True,
        "certified",
    ),
    ("finite float all", FINITE, "float", lambda: _full(FINITE), True, {}, True, "verified"),
    ("family exact upto", BITS, "exact", lambda: _full(BITS.upto(4)), True, {}, True, "bounded"),
    ("family one size", BITS, "exact", lambda: _full(BITS.at([4])), True, {}, True, "example"),
    ("family float upto", BITS, "float", lambda: _full(BITS.upto(4)), True, {}, True, "verified"),
    (
        "reals exact grid",
        REALS,
        "exact",
        lambda: _full(REALS.grid(_GRID)),
        True,
        {},
        True,
        "gridded",
    ),
    (
        "reals enclosed whole",
        REALS,
        "enclosed",
        lambda: REALS.enclosure("(0, 1)"),
        True,
        {"witnesses": (_EXACT_BALL,)},
        True,
        "certified",
    ),
    (
        "models samples",
        MODELS,
        "exact",
        lambda: _full(MODELS.sample(3, 0, lambda s, i: i)),
        True,
        {},
        True,
        "verified",
    ),
    (
        "float on one instance",
        MODELS,
        "float",
        lambda: MODELS.instance("seed 0"),
        True,
        {},
        True,
        "example",
    ),
    (
        "models instance",
        MODELS,
        "exact",
        lambda: MODELS.instance("seed 0"),
        True,
        {},
        True,
        "example",
    ),
    (
        "exists witness upto",
        Exists("a 2-layer model", BITS),
        "exact",
        lambda: _full(BITS.upto(3)),
        True,
        {},
        True,
        "bounded",
    ),
    (
        "exists finite",
        Exists("a model", FINITE),
        "exact",
        lambda: _full(FINITE),
        True,
        {},
        True,
        "proved",
    ),
    # failures of a printed statement
    (
        "printed object fails",
        BITS,
        "exact",
        lambda: _full(BITS.upto(3)),
        False,
        {"subject": "printed"},
        True,
        "refuted",
    ),
    (
        "printed object fails in float",
        BITS,
        "float",
        lambda: _full(BITS.upto(3)),
        False,
        {"subject": "printed"},
        True,
        "refuted",
    ),
    (
        "library construction fails",
        BITS,
        "exact",
        lambda: _full(BITS.upto(3)),
        False,
        {},
        True,
        "failed",
    ),
    (
        "existence: construction fails",
        Exists("a model", BITS),
        "exact",
        lambda: _full(BITS.upto(3)),
        False,
        {"subject": "printed"},
        True,
        "failed",
    ),
    (
        "existence: impossibility certificate",
        Exists("a model", FINITE),
        "exact",
        lambda: _full(FINITE),
        False,
        {"impossibility": True},
        True,
        "refuted",
    ),
    # the check's own soundness
    ("skipped element", FINITE, "exact", lambda: _short(FINITE), True, {}, True, "failed"),
    # a check that stopped at its first counterexample: the counterexample decides
    (
        "stopped at a counterexample",
        FINITE,
        "exact",
        lambda: _short(FINITE),
        False,
        {"subject": "printed"},
        True,
        "refuted",
    ),
    (
        "not a sub-domain",
        BITS,
        "exact",
        lambda: _full(FINITE),
        True,
        {},
        True,
        "failed",
    ),
    (
        "witness above its bound",
        FINITE,
        "enclosed",
        lambda: _full(FINITE),
        True,
        {"witnesses": (Witness("sampled error", Fraction(3, 4), Fraction(1, 2)),)},
        True,
        "failed",
    ),
    # library statements
    ("finding", FINITE, "exact", lambda: _full(FINITE), True, {}, False, "finding"),
    (
        "finding on an instance",
        MODELS,
        "exact",
        lambda: MODELS.instance("seed 0"),
        True,
        {},
        False,
        "example",
    ),
    (
        "finding not reproduced",
        FINITE,
        "exact",
        lambda: _full(FINITE),
        False,
        {},
        False,
        "unreproduced",
    ),
    # measurements and nothing
    ("record", Record("x.json"), "record", lambda: Record("x.json"), True, {}, True, "measured"),
    (
        "training",
        Trained("3 runs"),
        "training",
        lambda: Trained("3 runs"),
        False,
        {},
        True,
        "measured",
    ),
    ("undecided", FINITE, "exact", lambda: _full(FINITE), None, {}, True, "open"),
    ("nothing computed", FINITE, "none", lambda: FINITE, True, {}, True, "open"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_rule_gives_each_status(case):
    _, domain, arithmetic, covered, holds, kw, printed, status = case
    if arithmetic == "float":
        kw = {**kw, "tolerance": "4 u"}
    row = _row(domain, printed="The paper's words." if printed else None)
    checked = Checked(arithmetic, covered(), {}, **kw)
    got = derive_status(row, checked, Verdict(holds, "f"))
    assert got.status == status, got.reason


def test_every_status_is_reached_by_some_case_or_the_correction_table():
    reached = {c[-1] for c in CASES} | {"corrected"}
    assert reached == set(STATUSES)
    assert set(STATUS_WORDS) == set(STATUSES)


CORRECTIONS = [
    # (printed_holds, correction holds, subject, status)
    (False, True, "printed", "corrected"),
    (False, False, "printed", "failed"),  # a failed correction is a failure
    (True, True, "printed", "failed"),  # the correction was not needed
    (True, False, "printed", "failed"),  # ... and never reads stronger than a failure
    (False, True, "library", "failed"),  # the printed object was never run
    (None, True, "printed", "open"),
]


@pytest.mark.parametrize("printed_holds,holds,subject,status", CORRECTIONS)
def test_corrections(printed_holds, holds, subject, status):
    row = _row(BITS, correction="n - 1, not n")
    checked = Checked("exact", _full(BITS.upto(3)), {}, subject=subject)
    got = derive_status(row, checked, Verdict(holds, "f", printed_holds=printed_holds))
    assert got.status == status, got.reason


@pytest.mark.parametrize(
    "arithmetic, faults, status",
    [
        ("enclosed", ("exp",), "failed"),  # balls from an unsound engine enclose nothing
        ("enclosed", (), "certified"),
        ("exact", ("exp",), "proved"),  # rationals do not go through the balls
    ],
)
def test_an_enclosed_check_rests_on_the_engine(arithmetic, faults, status):
    kw = {"witnesses": (_EXACT_BALL,)} if arithmetic == "enclosed" else {}
    checked = Checked(arithmetic, _full(FINITE), {}, **kw)
    got = derive_status(_row(FINITE), checked, Verdict(True, "f"), engine_faults=faults)
    assert got.status == status, got.reason
    if status == "failed":
        assert "engine is unsound" in got.reason and "exp" in got.reason


def test_an_enclosure_with_a_float_quantity_is_float():
    c = Checked(
        "enclosed", _full(FINITE), {}, unenclosed=("the value map",), witnesses=(_EXACT_BALL,)
    )
    assert derive_status(_row(FINITE), c, Verdict(True, "f")).status == "verified"


def test_an_enclosed_check_needs_a_witness():
    with pytest.raises(ValueError, match="witness"):
        Checked("enclosed", _full(FINITE), {})
    # a float quantity beside the balls does not excuse the balls from their witness
    with pytest.raises(ValueError, match="witness"):
        Checked("enclosed", _full(FINITE), {}, unenclosed=("the value map",))


def test_witness_sides_and_balls():
    import flint

    assert Witness("x", 1, 2).holds() and not Witness("x", 3, 2).holds()
    assert Witness("x", 3, 2, "above").holds() and not Witness("x", 1, 2, "above").holds()
    ball = flint.arb(1) / 3
    assert Witness("x", 1 / 3, ball, "inside", slack=1e-15).holds()
    assert not Witness("x", 0.34, ball, "inside").holds()
    assert Witness("x", 0.5, (Fraction(1, 4), Fraction(3, 4)), "inside").holds()
    assert Witness("x", float("nan"), 1).holds() is None  # undecidable, never "sound"
    # a ball as arb prints it (a record's string) is that ball, not an unreadable text
    assert Witness("x", 1 / 3, str(ball), "inside", slack=1e-15).holds()
    assert not Witness("x", 0.34, str(ball), "inside").holds()
    assert Witness("x", 1 / 3, "[0.5 +/- oops]", "inside").holds() is None


def test_rows_refuse_declared_words_and_impossible_expectations():
    with pytest.raises(ValueError, match="quantifier"):
        Row(
            id="a.b",
            paper="T",
            place="§",
            statement="s",
            domain=FINITE,
            quantifier="infinite",
            check=lambda: None,
            judge=lambda c: None,
            sizes={"quick": {}},
            expected="proved",
            printed="p",
        )
    for word in ("failed", "unreproduced"):
        with pytest.raises(ValueError, match="regression"):
            Row(
                id="a.b",
                paper="T",
                place="§",
                statement="s",
                domain=FINITE,
                check=lambda: None,
                judge=lambda c: None,
                sizes={"quick": {}},
                expected=word,
                printed="p",
            )
    with pytest.raises(ValueError, match="nosuch"):
        Row(
            id="a.b",
            paper="T",
            place="§",
            statement="s",
            domain=FINITE,
            check=lambda: None,
            judge=lambda c: None,
            sizes={"quick": {"n": 1}},
            expected="proved",
            printed="p",
            command="tt {nosuch}",
        )


@pytest.mark.parametrize("bad", ["no", float("nan"), 1, "True"])
def test_a_verdict_is_true_false_or_undecided(bad):
    with pytest.raises(ValueError, match="holds"):
        Verdict(bad, "f")


def test_a_covered_domain_of_many_elements_must_be_counted():
    with pytest.raises(ValueError, match="Tally"):
        Checked("exact", FINITE, {})


def test_grid_words_are_generated_from_the_object():
    g = Grid({"q": range(1, 4), "N": (8, 16)})
    assert g.words() == "every q in {1-3} x N in {8, 16} (6 integer points)"
    assert BITS.upto(3).words() == "binary strings at every L = 1-3 (14 elements)"
    assert "only" in BITS.at([3]).words()
    assert math.prod([3, 2]) == g.size
    assert list(itertools.islice(FINITE.elements(), 3)) == [(), ("a",), ("b",)]


def test_the_ledger_hands_a_check_its_elements():
    from transformer_theory.claims import judges

    seen = []

    def check(tally, max_len):
        for s in tally:
            seen.append(s)
            tally.record(s)
        return Checked("exact", tally, {"wrong": 0})

    row = Row(
        id="test.covers",
        paper="T",
        place="§",
        statement="s",
        domain=BITS,
        covers=lambda max_len: BITS.upto(max_len),
        check=check,
        judge=judges.exactly("wrong", 0),
        sizes={"quick": {"max_len": 3}},
        expected="bounded",
        printed="p",
    )
    outcome = row.evaluate("quick")
    assert outcome.status == "bounded" and len(seen) == 2 + 4 + 8

    def lazy(tally, max_len):  # covers one element less than it was handed
        for s in list(tally)[1:]:
            tally.record(s)
        return Checked("exact", tally, {"wrong": 0})

    import dataclasses

    assert dataclasses.replace(row, check=lazy).evaluate("quick").status == "failed"
