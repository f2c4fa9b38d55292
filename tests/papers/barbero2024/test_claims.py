"""Barbero et al. 2024's rows are well formed: every one is Barbero's, the open ones say why, and
the checks run README's models (the mutants in ``test_mutants.py`` break each row;
tests/test_claims.py checks the statuses on the library as it is)."""

from __future__ import annotations

from transformer_theory.papers.barbero2024 import _checks as checks
from transformer_theory.papers.barbero2024 import _models as models
from transformer_theory.papers.barbero2024 import claims


def test_every_claim_is_barbero_and_the_open_ones_say_why():
    assert all(c.id.startswith("barbero2024.") for c in claims.CLAIMS)
    for c in claims.CLAIMS:
        if c.expected == "open":
            _, verdict, status, _ = c.run("quick")
            assert status == "open" and "not" in verdict.figure


def test_no_row_quotes_text_the_sources_do_not_hold():
    # shared/seeds/000 holds the paper's §2 only: no theorem of §4/§5 can be quoted
    assert all(c.printed is None for c in claims.CLAIMS)


def test_the_models_are_readmes():
    p = checks.model(1, "none")
    assert p.config == models.causal_pre_ln_config(1, 1, "none", width=32)
