"""Assert a ledger row's status from a researcher's own test suite (pytest or any runner).

::

    from transformer_theory.claims.testing import assert_status

    def test_my_construction_is_proved():
        assert_status("my_paper.construction", "proved")       # a registered row's id
        assert_status(my_paper.claims.CLAIMS[0])                 # or the row; its expected status

The row is checked at ``tier`` (``"quick"`` by default; ``sizes`` override that tier's sizes)
through the same runner as ``transformer-theory claims``; a different status fails with the
record's figure and the rule's reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from transformer_theory.claims.runner import ClaimRecord, all_claims, run_claims
from transformer_theory.ledger import Row

__all__ = ["assert_status", "check_row"]


def _row_of(row: Row | str, modules: Sequence[str]) -> Row:
    if isinstance(row, Row):
        return row
    if not isinstance(row, str):
        raise ValueError(f"row: expected a Row or a claim id, got {type(row).__name__}")
    found = [c for c in all_claims(modules) if c.id == row]
    if not found:
        raise ValueError(f"row: no registered claim {row!r}")
    return found[0]


def check_row(
    row: Row | str, tier: str = "quick", *, modules: Sequence[str] = (), **sizes: Any
) -> ClaimRecord:
    """The record of ``row`` (a :class:`~transformer_theory.ledger.Row` or a registered id)
    checked at ``tier``, with ``sizes`` overriding the tier's sizes."""
    r = _row_of(row, modules)
    if sizes:
        merged = {**r.tier_sizes(tier), **sizes}
        r = dataclasses.replace(r, sizes={**r.sizes, tier: merged})
    return run_claims(claims=[r], tier=tier)[0]


def assert_status(
    row: Row | str,
    status: str | None = None,
    tier: str = "quick",
    *,
    modules: Sequence[str] = (),
    **sizes: Any,
) -> ClaimRecord:
    """Check ``row`` and assert its derived status is ``status`` (default: the row's
    ``expected``); returns the record. Raises ``AssertionError`` naming the status, the figure
    and the rule's reason otherwise."""
    r = _row_of(row, modules)
    want = r.expected if status is None else status
    record = check_row(r, tier, **sizes)
    if record.status != want:
        raise AssertionError(
            f"{r.id}: status {record.status!r}, expected {want!r} ({tier} tier): "
            f"{record.figure} [{record.reason or 'the check raised'}]"
        )
    return record
