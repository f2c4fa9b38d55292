"""Chen & Zou 2024's verifier rows (``papers/chen_zou2024/_claims_verifier.py``): what their
checks compute. The mutants (``test_verifier_mutants.py``) break each row; these check the
numbers and declarations of the unbroken ones."""

import pytest

from transformer_theory.papers.chen_zou2024 import _checks_verifier as vc
from transformer_theory.papers.chen_zou2024._claims_verifier import CLAIMS

ROWS = {r.id.split(".", 1)[1]: r for r in CLAIMS}


@pytest.fixture(autouse=True)
def _fresh_caches():
    for f in (vc._enclosures, vc._suite_datasets, vc._verdicts):
        f.cache_clear()
    yield
    for f in (vc._enclosures, vc._suite_datasets, vc._verdicts):
        f.cache_clear()


def test_prop10_residuals_enclosed_by_the_engine_agree_with_the_library():
    c = vc.proposition("10", datasets="toy", models=1, families="softmax-1h")
    assert c.arithmetic == "enclosed" and not c.unenclosed
    assert c.coverage_against(ROWS["prop10"].domain) == "samples" and c.covered.complete
    # 1 model of 1 family on 1 dataset: one draw, recorded
    assert c.covered.size == 1 and c.covered.seen == 1
    (w,) = c.witnesses
    assert w.side == "inside" and w.holds() is True
    assert c.values["supported"] is True
    assert c.values["midpoint_gap_to_library_float64"] <= 1e-12
    assert 0 < c.values["max_residual_upper_bound"] <= vc.CERTIFY_BOUND
    assert c.values["refuted_by"] is None


def test_the_multihead_row_is_a_finding_not_a_refutation():
    row = ROWS["section16_multihead"]
    assert row.printed is None and row.expected == "finding"
    assert "future study" in row.note


def test_refuted_or_corrected_rows_quote_the_paper():
    for row in CLAIMS:
        if row.expected in ("refuted", "corrected", "proved", "certified", "bounded", "verified"):
            assert row.printed and row.place, row.id


def test_a_failed_library_finding_is_unreproduced_not_finding():
    from transformer_theory.ledger import Verdict, derive_status

    row = ROWS["theorem2_accuracy"]
    c = vc.theorem2_accuracy()
    assert derive_status(row, c, Verdict(True, "yes"))[0] == "finding"
    assert derive_status(row, c, Verdict(False, "no"))[0] == "unreproduced"


def test_definition3_groups_hold_every_sequence_with_their_last_token():
    """V = 2, n = 3, last token 1: the 4 sequences (a, b, 1); the basis has 4 - rank rows, the rank
    of the position counts being 1 + 1 + 1 + 0 = 3 (positions 0, 1 free, position 2 fixed), so one
    dependence: (0,0,1) + (1,1,1) - (0,1,1) - (1,0,1)."""
    c = vc.definition3(5)
    assert c.covered.complete and c.values["groups"]["V=2 n=3 last=1"] == [4, 3, 1]
    assert c.values["counterexample"] is None and c.subject == "library"


def test_theorem4_pairs_are_every_pair_of_templates_that_fit_the_alphabet():
    # A + l = 5: (3, 2) has (aa, ab); (2, 3) has aaa, aab, aba, abb (abc needs 3 symbols): 6 pairs
    pairs = vc.template_pairs(5)
    assert len(pairs) == 1 + 1 + 6
    assert (2, 3, (0, 0, 0), (0, 1, 1)) in pairs and all(max(t + u) < a for a, _, t, u in pairs)
