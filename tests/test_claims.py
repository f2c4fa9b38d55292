"""The claims ledger: the registry is well formed, every claim reaches its expected status at the
quick tier, and the committed CLAIMS.md (the full tier) agrees with it.

One test per claim, so the quick tier spreads over the suite's workers.
"""

import pathlib
import re

import pytest

from transformer_theory import claims
from transformer_theory.cli import main
from transformer_theory.ledger import STATUSES, Claim, Evidence, Row

ROOT = pathlib.Path(__file__).resolve().parents[1]
ALL = claims.all_claims()
CLAIMS_MD = ROOT / "CLAIMS.md"


def _committed_statuses() -> dict[str, str]:
    """``id -> status`` from the committed CLAIMS.md table rows."""
    if not CLAIMS_MD.exists():
        return {}
    out = {}
    for line in CLAIMS_MD.read_text().splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)]  # pipes in text are escaped
        if len(cells) < 5 or not cells[1].startswith("`"):
            continue
        claim_id = cells[1][1:].split("`", 1)[0]
        status = cells[3].strip("*").split("*")[0].split()[0].strip() if cells[3] else ""
        if status in STATUSES:
            out[claim_id] = status
    return out


COMMITTED = _committed_statuses()


def test_the_registry_is_well_formed():
    ids = [c.id for c in ALL]
    assert len(ids) == len(set(ids))
    papers = {c.paper_key for c in ALL}
    assert "chen_zou2024" in papers
    for c in ALL:
        if isinstance(c, Row):
            assert c.statement and c.place, c.id
            if c.expected in ("corrected", "refuted"):
                assert c.printed, f"{c.id}: {c.expected} without the paper's printed words"
            continue
        assert c.printed and c.checked and c.place, c.id
        if c.expected == "corrected":
            assert c.correction, c.id


@pytest.mark.parametrize("claim", ALL, ids=[c.id for c in ALL])
def test_each_claim_reaches_its_expected_status_at_the_quick_tier(claim):
    record = claims.run_claims(ids=[claim.id], tier="quick")[0]
    assert record.status == claim.expected, f"{claim.id}: {record.status}: {record.figure}"
    if claim.id in COMMITTED:
        assert COMMITTED[claim.id] == record.status, (
            f"{claim.id}: CLAIMS.md says {COMMITTED[claim.id]}, the quick tier {record.status}"
        )


def test_claims_md_lists_every_claim():
    assert COMMITTED, f"{CLAIMS_MD} is missing or has no claim rows: generate it with --tier full"
    missing = sorted({c.id for c in ALL} - set(COMMITTED))
    assert not missing, f"CLAIMS.md lacks {missing}: regenerate it with --tier full"


def test_a_claim_whose_check_fails_is_a_regression_with_exit_1(monkeypatch, tmp_path, capsys):
    def boom(tier):
        raise RuntimeError("broken check")

    fake = [
        Claim("test.ok", "T", "§1", "p", "c", "verified", lambda t: Evidence("verified", "fine")),
        Claim("test.bad", "T", "§2", "p", "c", "proved", boom),
    ]
    monkeypatch.setattr("transformer_theory.claims.runner.all_claims", lambda: fake)
    monkeypatch.setattr("transformer_theory.claims.all_claims", lambda: fake)
    assert main(["claims", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "test.bad" in out and "expected proved" in out and "error" in out
    md = (tmp_path / "claims.md").read_text()
    assert "**error** (expected proved)" in md
    assert main(["claims", "--id", "test.ok", "--out", str(tmp_path)]) == 0
    assert main(["claims", "--paper", "nope", "--out", str(tmp_path)]) == 2


def test_evidence_and_claims_refuse_unknown_statuses():
    with pytest.raises(ValueError, match="status"):
        Evidence("plausible", "x")
    with pytest.raises(ValueError, match="expected"):
        Claim("a.b", "T", "§", "p", "c", "likely", lambda t: Evidence("open", "x"))
    with pytest.raises(ValueError, match="correct"):
        Claim("a.b", "T", "§", "p", "c", "corrected", lambda t: Evidence("open", "x"))
