"""Conti 2024's rows: every one is the thesis's, quotes it where it says refuted or corrected,
and its checks decide from what they compute (the mutants are in test_mutants.py;
tests/test_claims.py covers the expected statuses)."""

import math
import pathlib
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom

from transformer_theory.ledger import Row
from transformer_theory.papers.conti2024 import _checks as checks
from transformer_theory.papers.conti2024 import _theory_linformer as linformer
from transformer_theory.papers.conti2024 import claims

BY_ID = {c.id: c for c in claims.CLAIMS}
# the project's source documents, in shared/ beside the checkout (as CI lays it out)
SEEDS = pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "seeds"
SEED = SEEDS / "002_4684f4c86eb23b5d.txt"


def test_every_row_is_conti2024s_and_exports_only_claims():
    assert claims.__all__ == ["CLAIMS"]
    assert all(isinstance(c, Row) for c in claims.CLAIMS)
    assert all(c.id.startswith("conti2024.") and c.paper == "Conti 2024" for c in claims.CLAIMS)
    assert {"corrected", "gridded", "verified", "finding", "measured"} <= {
        c.expected for c in claims.CLAIMS
    }


def test_no_row_refutes_a_statement_the_thesis_does_not_print():
    assert "conti2024.beam_larger_never_worse" not in BY_ID
    row = BY_ID["conti2024.beam_larger_can_be_worse"]
    assert row.printed is None and row.expected == "finding"
    for row in claims.CLAIMS:
        if row.expected in ("refuted", "corrected"):
            assert row.printed and row.place


def test_printed_words_are_the_thesis_verbatim():
    """Each quoted passage (pieces split at ``[...]``) occurs in the converted thesis, up to
    whitespace; skipped where the seed documents are not on this machine."""
    if not SEED.exists():
        pytest.skip("the seed documents are not on this machine")
    text = " ".join(SEED.read_text().split())
    for row in claims.CLAIMS:
        if row.printed:
            for piece in row.printed.split("[...]"):
                assert " ".join(piece.split()) in text, row.id


def test_the_beam_witness_is_the_hand_computed_one():
    """Beam 1 follows a, a, a: .45 * .46 * 1; beam 2 keeps b a and b b (.44 * .5 = .22 each,
    above a a's .207), which then spread uniformly: .22 / 3."""
    c = checks.beam_counterexample((1, 2))
    assert c.arithmetic == "exact"
    assert Fraction(c.values["p_small"]) == Fraction(45, 100) * Fraction(46, 100)
    assert Fraction(c.values["p_large"]) == Fraction(22, 100) / 3
    assert c.values["larger_beam_worse"] is True


def test_the_binomial_rule_is_the_tail_quantile():
    for trials, delta, alpha in ((2000, 0.01, 1e-6), (100, 0.1, 1e-3)):
        c = linformer.binomial_critical(trials, delta, alpha)
        assert binom.sf(c, trials, delta) <= alpha < binom.sf(c - 1, trials, delta)


def test_linformer_rule_accepts_the_bound_and_a_quarter_rank_fails_often():
    """Tiny sizes: at the bound's rank no draw fails; at a quarter of it, with P = I_n, far more
    than delta of them do."""
    c = checks.linformer_jl((16,), 500, 0.25, 0.01, 1e-6)
    assert c.values["corrected_holds"] and c.values["max_failures"] == 0
    assert c.values["printed_holds"] is False
    rank = math.ceil(linformer.row_bound_rank(64, 0.25, 0.01) / 4)
    rate = linformer.failure_rate(np.eye(64), np.ones(64), rank, 0.25, 500, 3)
    assert rate > 2 * 0.01
