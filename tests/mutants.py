"""Mutant tests for the claims ledger: break the thing a claim is about, and the claim must no
longer reach its status.

Every row whose expected status is stronger than ``measured``
(:data:`transformer_theory.ledger.TESTED_BY_MUTANT`) needs at least one test decorated with
:func:`mutant`; ``tests/test_claims.py`` finds the decorators by reading the test files and fails
for a strong row without one. A mutant test monkeypatches a weight, a constant or a comparison in
the maths the row's check calls, then asserts with :func:`status_of` that the derived status is
no longer the expected one (usually ``refuted``, or an ``error`` the runner records).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def mutant(*claim_ids: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a test as a mutant of ``claim_ids`` (read by the ledger's coverage test)."""
    if not claim_ids:
        raise ValueError("claim_ids: name at least one claim")

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        return pytest.mark.mutant(*claim_ids)(fn)

    return mark


def status_of(claim_id: str, tier: str = "quick", **sizes: Any) -> str:
    """The status the runner derives for ``claim_id`` at ``tier`` (``sizes`` override the tier's
    sizes: a mutant may run smaller than the quick tier). ``"error"`` when the check raises."""
    import dataclasses

    from transformer_theory.claims import runner

    (row,) = [c for c in runner.all_claims() if c.id == claim_id]
    if sizes:
        merged = {**row.tier_sizes(tier), **sizes}
        # a row with a Domain reads its quantifier from it: replace() must not pass it back
        keep = {} if row.legacy else {"quantifier": None}
        row = dataclasses.replace(row, sizes={**row.sizes, tier: merged}, **keep)
    return runner._check(row, tier).status
