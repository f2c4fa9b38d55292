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
    assert c.arithmetic == "enclosed" and not c.unenclosed and c.coverage == "samples"
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


def test_a_failed_library_finding_is_open_not_finding():
    from transformer_theory.ledger import Checked, Verdict, derive_status

    row = next(r for r in vc_rows() if r.printed is None)
    c = Checked("exact", "all", "one case", {})
    assert derive_status(row, c, Verdict(False, "no"))[0] == "open"


def vc_rows():
    from transformer_theory.papers.chen_zou2024 import _claims_verifier

    return _claims_verifier.CLAIMS
