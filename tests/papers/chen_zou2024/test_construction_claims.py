"""The construction checks of the ledger (``papers/chen_zou2024/_checks_construction.py``): what
they compute on broken models (a witness, the exact margin) and the exact engine's dyadic path
they rest on.

``tests/test_claims.py`` runs every row at the quick tier; the mutants that move each row's
status are in ``test_construction_mutants.py``.
"""

import dataclasses
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.mutants import status_of
from transformer_theory import constructions, exact
from transformer_theory.papers.chen_zou2024 import _checks_construction as checks
from transformer_theory.papers.chen_zou2024 import _claims_construction as table
from transformer_theory.params import AttentionParams, LayerParams
from transformer_theory.tasks import InContextQA, InContextTemplateMatching, all_templates

jax.config.update("jax_enable_x64", True)


def test_every_construction_row_is_a_row_with_the_papers_words_where_it_corrects():
    from transformer_theory.ledger import Row

    assert all(isinstance(r, Row) for r in table.CLAIMS)
    for r in table.CLAIMS:
        if r.expected in ("corrected", "refuted"):
            assert r.printed and r.place


def test_theorem3_with_swapped_answer_rows_gives_an_exact_witness(monkeypatch):
    good = constructions.theorem3

    def broken(task, **kw):
        p = good(task, **kw)
        w_o = np.asarray(p.w_o).copy()
        w_o[[0, 1]] = w_o[[1, 0]]  # answers 0 and 1 exchanged
        return dataclasses.replace(p, w_o=jnp.asarray(w_o))

    monkeypatch.setattr(constructions, "theorem3", broken)
    c = checks.theorem3(5)
    assert Fraction(c.values["min_margin"]) == -3
    assert c.values["witness_label"] in (0, 1) and len(c.values["witness_tokens"]) == 5


def test_theorem3_family_covers_every_size_up_to_the_bound():
    from transformer_theory.papers.chen_zou2024 import _domains

    c = checks.theorem3(5)
    assert c.coverage_against(_domains.THEOREM3) == "upto" and c.covered.complete
    # n_q + n_a + k <= 5 with n_a >= 2 (one answer leaves nothing to classify): (1, 2, 1) with
    # 1 * 2 = 2 inputs, (1, 3, 1) with 3, (2, 2, 1) with 2 * 2 = 4 (query x answer of the pair)
    assert [p["size"] for p in c.values["per_size"]] == [
        "n_q=1 n_a=2 k=1",
        "n_q=1 n_a=3 k=1",
        "n_q=2 n_a=2 k=1",
    ]
    assert c.covered.size == 2 + 3 + 4 and c.values["min_margin"] == "3"


def test_theorem6_with_a_halved_layer3_value_has_exact_margin_one_quarter(monkeypatch):
    good = constructions.theorem6

    def broken(task, **kw):
        p = good(task, **kw)
        last = p.layers[-1]
        attn = AttentionParams(w_v=last.attn.w_v * 0.5, w_qk=last.attn.w_qk)
        return dataclasses.replace(p, layers=(*p.layers[:-1], LayerParams(attn=attn)))

    monkeypatch.setattr(constructions, "theorem6", broken)
    c = checks.theorem6(8)
    # (2 symbols, 2 answers, l = 2, k = 2) has margin 1/l = 1/2, halved 1/4: l x margin 1/2
    assert Fraction(c.values["min_margin"]) == Fraction(1, 4)
    assert Fraction(c.values["scaled_margin"]) == Fraction(1, 2)


def test_theorem1_datasets_are_every_labelled_set():
    tasks = checks.theorem1_tasks([[2, 1]])
    # two sequences of length 1: (0), (1) and (1), (0) -- both labellings of the one pair
    got = [tuple(int(s[0]) for s in t.data[0]) for _, t in tasks]
    assert got == [(0, 1), (1, 0)]
    assert all(list(t.data[1]) == [0, 1] for _, t in tasks)


def test_lemma3_datasets_are_pairwise_independent_and_complete():
    from transformer_theory.constructions import exactly_parallel

    sets = list(checks.lemma3_datasets(2, 2))
    # 8 nonzero vectors in {-1,0,1}^2, each independent of the 6 outside its own direction
    assert len(sets) == 8 * 6
    assert all(not exactly_parallel(x[0], x[1]) for x in sets)


def test_dyadic_pass_matches_float64_and_refuses_non_dyadic_attention():
    task = InContextTemplateMatching(3, 3, all_templates(2), 2)
    params = constructions.theorem6(task)
    tokens, labels = task.all()
    ex = exact.dyadic_margins(params, np.asarray(tokens)[:300], np.asarray(labels)[:300])
    assert ex["min_margin"] == Fraction(1, 2) and ex["denominator"] == 4  # eq. 2's 1/(2l)
    noisy = dataclasses.replace(
        params,
        layers=(
            LayerParams(
                attn=AttentionParams(
                    w_v=params.layers[0].attn.w_v * (1 + 2**-45), w_qk=params.layers[0].attn.w_qk
                )
            ),
            *params.layers[1:],
        ),
    )
    with pytest.raises(ArithmeticError, match="dyadic"):
        exact.dyadic_margins(noisy, np.asarray(tokens)[:10], np.asarray(labels)[:10])


def test_dyadic_margins_of_a_dyadic_classifier_equal_fraction_arithmetic():
    """A W_O with entries 2^-60 and 1e-300 (a huge common exponent): the exact pass gives the
    same minimum margin as Fraction arithmetic on the library's (integer) float64 streams."""
    from transformer_theory.constructions._common import last_streams

    task = InContextQA(2, 2, 1)
    params = constructions.theorem3(task)
    w_o = np.asarray(params.w_o) * 2.0**-60
    w_o[0, 0] = 1e-300
    w_o[1, 5] = -3.5
    params = dataclasses.replace(params, w_o=jnp.asarray(w_o))
    tokens, labels = (np.asarray(a) for a in task.all())
    ex = exact.dyadic_margins(params, tokens, labels)
    streams = last_streams(params, tokens)
    want = None
    for h, y in zip(streams, labels):
        logits = [
            sum(Fraction(float(w)) * Fraction(float(v)) for w, v in zip(row, h)) for row in w_o
        ]
        m = logits[y] - max(v for c, v in enumerate(logits) if c != y)
        want = m if want is None else min(want, m)
    assert ex["min_margin"] == want


def test_record_rows_say_open_without_their_results_file(monkeypatch, tmp_path):
    for name, row in (
        ("FIG2_CSV", "fig2_reasoning"),
        ("FIG2_QUICK_CSV", "fig2_quick"),
        ("HEADS_CSV", "fig4_7_heads"),
        ("FIG3_JSON", "fig3_attention_maps"),
        ("PAPER_SIZES_JSON", "constructions_paper_sizes_record"),
    ):
        monkeypatch.setattr(checks, name, tmp_path / "missing")
        assert status_of(f"chen_zou2024.{row}") == "open", row


def test_paper_size_record_row_is_measured_at_most():
    assert status_of("chen_zou2024.constructions_paper_sizes_record") == "measured"


def test_no_row_of_the_paper_declares_its_own_quantifier():
    from transformer_theory.papers.chen_zou2024.claims import CLAIMS

    assert [r.id for r in CLAIMS if r.legacy] == []


def test_quoted_existence_statements_are_exists_domains():
    """Every quoted 'there exist(s)' of a construction row reads an Exists (a failed construction
    refutes nothing) or a correction (the printed object fails)."""
    for r in table.CLAIMS:
        if r.printed and "there exist" in r.printed.lower() and not r.correction:
            assert r.quantifier == "exists", r.id


def test_families_count_their_members_independently():
    """The diagonal members' sizes are this test's own counts: Theorem 1 at s = 4 is (2, 2): 4
    sequences, sum_N 4!/(4-N)! = 12 + 24 + 24 = 60 datasets, and (3, 1): 3!/1! + 3! = 12; base 3
    at l = 4: 15 templates, 105 pairs; Lemma 3 on {-1, 0, 1}^2, N = 2: 8 x 6 ordered pairs."""
    from transformer_theory.papers.chen_zou2024 import _domains

    assert _domains.SC_DATASETS.member(4).size == 60 + 12
    assert _domains.BASE3_PAIRS.member(4).size == 105
    assert _domains.lemma3_points(2, 2).size == 8 * 6
    assert [_domains.bell(n) for n in range(1, 7)] == [1, 2, 5, 15, 52, 203]
