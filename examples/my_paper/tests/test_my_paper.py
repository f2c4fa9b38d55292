"""my_paper's rows asserted from its own test suite, and a mutant that breaks the construction."""

import pytest
from my_paper import claims

from transformer_theory.claims import assert_status, run_claims
from transformer_theory.claims.testing import check_row


@pytest.mark.parametrize("row", claims.CLAIMS, ids=[r.id for r in claims.CLAIMS])
def test_each_row_reaches_its_expected_status(row):
    assert_status(row)


def test_the_rows_are_registered_through_the_entry_point():
    ids = {r.id for r in run_claims(paper="my_paper")}
    assert ids == {r.id for r in claims.CLAIMS}


def test_a_flipped_classifier_breaks_the_construction(monkeypatch):
    # the classifier's sign flipped: every string is misclassified, so the row is no longer proved
    real = claims.formal_languages.majority

    def flipped(**kwargs):
        params = real(**kwargs)
        return params.replace(w_o=-params.w_o)

    monkeypatch.setattr(claims.formal_languages, "majority", flipped)
    record = check_row(claims.CLAIMS[0])
    assert record.status == "failed" and "construction" in record.reason


def test_skipping_strings_is_seen(monkeypatch):
    from transformer_theory.ledger import Tally

    real = Tally.record

    def odd_only(self, element):
        if len(element) % 2:
            real(self, element)

    monkeypatch.setattr(Tally, "record", odd_only)
    record = check_row(claims.CLAIMS[0])
    assert record.status == "failed" and "incomplete" in record.reason
