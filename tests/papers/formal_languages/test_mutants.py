"""Mutants of the formal-language rows: break the construction, the machine or the constant a row
is about, and the row no longer reaches its expected status (tiny sizes, each under 3 s). A broken
construction of a printed row reads ``failed`` (the library's construction, not the table, is
wrong), of a library finding ``unreproduced``; a check that skips strings, or whose enclosures
no longer contain the library's own float values, reads ``failed``."""

import dataclasses

import pytest

from tests.mutants import mutant, status_of
from transformer_theory import exact
from transformer_theory.papers.formal_languages import (
    _checks,
    _constructions,
    _constructions_counters,
    _constructions_dyck_k,
    _study_dyck_k,
    _tasks_counters,
    _tasks_dyck_k,
)
from transformer_theory.papers.formal_languages import _tasks as tasks
from transformer_theory.papers.formal_languages._tasks import BOS

TINY_ROW = {"exhaustive": 3, "sampled": (), "samples": 1}


def _bos_writes_plus_half(monkeypatch):
    """MAJORITY without its tie-breaker: BOS writes +1/2 instead of -1/2."""
    built = _constructions.majority

    def broken(confidence=1.0, dtype=None, **kw):
        p = built(confidence, dtype) if dtype is not None else built(confidence)
        lp = p.layers[0]
        w_v = lp.attn.w_v.at[0, 3, BOS].set(0.5)
        return p.replace(layers=(lp.replace(attn=lp.attn.replace(w_v=w_v)),))

    monkeypatch.setattr(_constructions, "majority", broken)


def _scaled_readout(monkeypatch, module, name, factor):
    built = getattr(module, name)

    def broken(*args, **kwargs):
        p = built(*args, **kwargs)
        return p.replace(w_o=p.w_o * factor)

    monkeypatch.setattr(module, name, broken)


@mutant("formal_languages.majority")
def test_majority_without_its_tie_breaker(monkeypatch):
    _bos_writes_plus_half(monkeypatch)
    assert status_of("formal_languages.majority", **TINY_ROW) == "failed"


def _reason_of(claim_id, **sizes):
    """The runner's record's figure (the derivation's reason first when failed)."""
    from transformer_theory.claims import runner

    (row,) = [c for c in runner.all_claims() if c.id == claim_id]
    row = dataclasses.replace(
        row, sizes={"quick": {**row.tier_sizes("quick"), **sizes}}, quantifier=None
    )
    return runner._check(row, "quick")


@mutant("formal_languages.majority", "formal_languages.dyck1")
@pytest.mark.parametrize("row", ["majority", "dyck1"])
def test_strings_of_odd_lengths_only_are_an_incomplete_check(monkeypatch, row):
    # the enumeration skips every even length: the domain still says "every string of lengths
    # 1-3", and the tally sees 2 + 8 of its 14 strings
    every = tasks.all_strings
    monkeypatch.setattr(
        tasks, "all_strings", lambda n, **kw: every(n, **kw)[: 0 if n % 2 == 0 else None]
    )
    record = _reason_of(f"formal_languages.{row}", **TINY_ROW)
    assert record.status == "failed" and "incomplete" in record.figure, record.figure


def _enclosures_scaled(monkeypatch, factor):
    """exact.evaluate's enclosed logits multiplied by ``factor``: balls that no longer contain
    the values they claim to (a broken engine), while the float forward pass is unchanged."""
    real = exact.evaluate

    def broken(params, inputs, *, arithmetic="exact", **kw):
        t = real(params, inputs, arithmetic=arithmetic, **kw)
        if arithmetic == "enclosed":
            t = dataclasses.replace(t, logits=[[x * factor for x in row] for row in t.logits])
        return t

    monkeypatch.setattr(exact, "evaluate", broken)


@mutant(
    "formal_languages.parity_layernorm",
    "formal_languages.parity_no_layernorm",
    "formal_languages.parity_confidence",
    "formal_languages.layernorm_eps",
    "formal_languages.counter_continuations",
    "formal_languages.sscm_anbncn_continuations",
)
@pytest.mark.parametrize(
    "row, sizes",
    [
        ("parity_layernorm", TINY_ROW),
        ("parity_no_layernorm", TINY_ROW),
        ("parity_confidence", {"lengths": (8,), "samples": 1}),
        ("layernorm_eps", {"lengths": (41,)}),
        ("counter_continuations", {"languages": ("anbn",), "max_lengths": (2,)}),
        ("sscm_anbncn_continuations", {"languages": ("anbncn",), "max_lengths": (3,)}),
    ],
)
def test_an_enclosure_that_misses_the_float_value_is_unsound(monkeypatch, row, sizes):
    _enclosures_scaled(monkeypatch, 1.01)
    record = _reason_of(f"formal_languages.{row}", **sizes)
    assert record.status == "failed" and "unsound" in record.figure, record.figure


@mutant("formal_languages.table_float64")
def test_table_float64_sees_majority_without_its_tie_breaker(monkeypatch):
    _bos_writes_plus_half(monkeypatch)
    # Length 2 has the tie #1 = #0 that the tie-breaker decides.
    sizes = {"max_len": 2, "exhaustive_up_to": 2}
    assert status_of("formal_languages.table_float64", **sizes) == "unreproduced"


@mutant("formal_languages.table_float64")
def test_table_float64_on_one_recognizer_is_not_the_statement():
    # the statement is about the four recognizers: one of them is not a sub-domain of it
    sizes = {"max_len": 2, "exhaustive_up_to": 2, "rows": ("majority",)}
    assert status_of("formal_languages.table_float64", **sizes) == "failed"


@mutant("formal_languages.parity_layernorm", "formal_languages.parity_no_layernorm")
@pytest.mark.parametrize("row", ["parity_layernorm", "parity_no_layernorm"])
def test_parity_with_its_readout_negated(monkeypatch, row):
    _scaled_readout(monkeypatch, _constructions, "parity", -1.0)
    # the table's row: the library's construction fails; the library's own row: not reproduced
    expected = "failed" if row == "parity_layernorm" else "unreproduced"
    assert status_of(f"formal_languages.{row}", **TINY_ROW) == expected


@mutant("formal_languages.dyck1")
def test_dyck1_without_the_final_depth_term(monkeypatch):
    built = _constructions.dyck1

    def broken(*args, **kwargs):
        p = built(*args, **kwargs)
        lp = p.layers[1]
        mlp = lp.mlp.replace(w2=lp.mlp.w2 * 0.0)  # no -|r_last|
        return p.replace(layers=(p.layers[0], lp.replace(mlp=mlp)))

    monkeypatch.setattr(_constructions, "dyck1", broken)
    assert status_of("formal_languages.dyck1", **TINY_ROW) == "unreproduced"


@mutant("formal_languages.parity_confidence")
def test_parity_confidence_with_a_weak_readout(monkeypatch):
    _scaled_readout(monkeypatch, _constructions, "parity", 0.01)
    assert status_of("formal_languages.parity_confidence", lengths=(8,), samples=1) == (
        "unreproduced"
    )


@mutant("formal_languages.parity_float64", "formal_languages.parity_float32")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_parity_float_with_a_halved_readout(monkeypatch, dtype):
    _scaled_readout(monkeypatch, _constructions, "parity", 0.5)
    row = f"formal_languages.parity_{dtype}"
    assert status_of(row, lengths=(8,), samples=2) == "unreproduced"


@mutant("formal_languages.layernorm_eps")
def test_layernorm_eps_zero_keeps_the_margin(monkeypatch):
    monkeypatch.setattr(_checks, "LAYERNORM_EPS", 0.0)
    assert status_of("formal_languages.layernorm_eps", lengths=(5,)) == "unreproduced"


@mutant("formal_languages.dyck_k", "formal_languages.dyck_k_softmax")
@pytest.mark.parametrize("attention", ["hard", "softmax"])
def test_dyck_k_with_its_readout_negated(monkeypatch, attention):
    _scaled_readout(monkeypatch, _constructions_dyck_k, "dyck_k_recognizer", -1.0)
    row = "formal_languages.dyck_k" + ("_softmax" if attention == "softmax" else "")
    # an existence statement: the library's candidate failing refutes nothing
    assert status_of(row, exhaustive={2: 2}, depths=(1,)) == "failed"


@mutant("formal_languages.dyck_k_float32")
def test_dyck_k_float32_with_a_halved_readout(monkeypatch):
    _scaled_readout(monkeypatch, _constructions_dyck_k, "dyck_k_recognizer", 0.5)
    assert status_of("formal_languages.dyck_k_float32", lengths=(8,), samples=2) == ("unreproduced")


def _counters_readout_doubled(monkeypatch):
    built = _constructions_counters.counter_recognizer

    def broken(m, **kw):
        p = built(m, **kw)
        return p.replace(w_o=p.w_o * 2.0)  # outputs +-1/n: not the derived 1/(2n)

    monkeypatch.setattr(_constructions_counters, "counter_recognizer", broken)


@mutant(
    "formal_languages.shuffle_dyck",
    "formal_languages.sscm_anbn",
    "formal_languages.sscm_anbncn",
    "formal_languages.sscm_boolexp",
)
@pytest.mark.parametrize(
    "row, language",
    [
        ("shuffle_dyck", "shuffle_dyck_2"),
        ("sscm_anbn", "anbn"),
        ("sscm_anbncn", "anbncn"),
        ("sscm_boolexp", "boolexp_3"),
    ],
)
def test_counter_rows_with_a_doubled_readout(monkeypatch, row, language):
    _counters_readout_doubled(monkeypatch)
    sizes = {"languages": (language,), "exhaustive": (2,), "sampled": (), "samples": 1}
    # exact_check stops at the first wrong output, which decides: the table's printed row
    # (an existence statement) reads the library's construction failed, the library's own
    # counter-machine findings unreproduced
    want = "failed" if row == "shuffle_dyck" else "unreproduced"
    assert status_of(f"formal_languages.{row}", **sizes) == want


@mutant("formal_languages.shuffle_dyck_float64", "formal_languages.shuffle_dyck_float32")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_shuffle_dyck_float_with_a_drifting_forward(monkeypatch, dtype):
    plain = _constructions_counters.next_symbol_margins
    monkeypatch.setattr(
        _constructions_counters, "next_symbol_margins", lambda p, s: plain(p, s) + 1e-3
    )
    row = f"formal_languages.shuffle_dyck_{dtype}"
    assert status_of(row, lengths=(8,), samples=2) == "unreproduced"


def _with_machine(monkeypatch, language, **changes):
    m = _tasks_counters.machine(language)
    broken = dataclasses.replace(m, **changes)
    monkeypatch.setitem(_tasks_counters.LANGUAGES, language, lambda: broken)


@mutant("formal_languages.counter_continuations")
def test_continuations_see_a_close_allowed_at_depth_zero(monkeypatch):
    # SHUFFLE-DYCK-1 with the close's guard ">= 0" instead of ">= 1": the model then offers ")"
    # at depth 0, which no member continues with.
    _with_machine(monkeypatch, "shuffle_dyck_1", guards=((), ((0, "nonnegative"),)))
    sizes = {"languages": ("shuffle_dyck_1",), "max_lengths": (2,)}
    assert status_of("formal_languages.counter_continuations", **sizes) == "unreproduced"


@mutant("formal_languages.sscm_anbncn_continuations")
def test_anbncn_continuations_right_with_a_guard_on_a_minus_b(monkeypatch):
    # 'c' also needing #a - #b = 0 makes the next-symbol sets the continuation sets: no witness.
    m = _tasks_counters.machine("anbncn")
    guards = (m.guards[0], m.guards[1], ((1, "positive"), (0, "zero")))
    _with_machine(monkeypatch, "anbncn", guards=guards)
    sizes = {"languages": ("anbncn",), "max_lengths": (4,)}
    # no witness found: undecided (an existence is not refuted by a search that finds none)
    assert status_of("formal_languages.sscm_anbncn_continuations", **sizes) == "open"


@mutant("formal_languages.dyck_k", "formal_languages.dyck_k_softmax")
@pytest.mark.parametrize("row", ["dyck_k", "dyck_k_softmax"])
def test_dyck_k_strings_that_skip_a_first_symbol_are_an_incomplete_check(monkeypatch, row):
    every = _tasks_dyck_k.all_strings
    monkeypatch.setattr(_tasks_dyck_k, "all_strings", lambda n, k, **kw: every(n, k, **kw)[1:])
    record = _reason_of(f"formal_languages.{row}", exhaustive={2: 2}, depths=(1,))
    assert record.status == "failed" and "incomplete" in record.figure, record.figure


@mutant("formal_languages.dyck_k", "formal_languages.dyck_k_softmax")
@pytest.mark.parametrize("row", ["dyck_k", "dyck_k_softmax"])
def test_dyck_k_records_of_odd_lengths_only_are_an_incomplete_check(monkeypatch, row):
    # the enumeration is whole, but the check's record keeps only the odd lengths: the count
    # must come from what was evaluated, not from the enumeration beside it
    real = _study_dyck_k.check_record

    def odd_only(*args, **kwargs):
        r = real(*args, **kwargs)
        keep = [e for e in r.by_length if e.length % 2 or not e.exhaustive]
        return dataclasses.replace(r, by_length=tuple(keep))

    monkeypatch.setattr(_study_dyck_k, "check_record", odd_only)
    record = _reason_of(f"formal_languages.{row}", exhaustive={2: 3}, depths=(1,))
    assert record.status == "failed" and "incomplete" in record.figure, record.figure


@mutant("formal_languages.table_float64")
def test_table_float64_records_of_odd_lengths_only_are_an_incomplete_check(monkeypatch):
    # the languages command's record keeps only the odd lengths: every string it has is right,
    # but the (row, string) pairs of the even lengths were never evaluated
    real = _checks.row_record

    def odd_only(*args, **kwargs):
        r = real(*args, **kwargs)
        keep = [e for e in r["by_length"] if e["length"] % 2 or not e["exhaustive"]]
        return {**r, "by_length": keep}

    monkeypatch.setattr(_checks, "row_record", odd_only)
    record = _reason_of("formal_languages.table_float64", max_len=2, exhaustive_up_to=2)
    assert record.status == "failed" and "incomplete" in record.figure, record.figure
