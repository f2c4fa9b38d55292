"""``status_of`` for rows with a Domain: :func:`tests.mutants.status_of` re-creates the row with
``dataclasses.replace``, which hands ``Row`` the quantifier it read from the domain and is refused
("read from the domain, never declared beside it"); this one clears it first."""

from __future__ import annotations

import dataclasses
from typing import Any


def status_of(claim_id: str, tier: str = "quick", **sizes: Any) -> str:
    """The status the runner derives for ``claim_id`` at ``tier`` (``sizes`` override the tier's
    sizes). ``"error"`` when the check raises."""
    from transformer_theory.claims import runner

    (row,) = [c for c in runner.all_claims() if c.id == claim_id]
    if sizes:
        merged = {**row.tier_sizes(tier), **sizes}
        quantifier = row.quantifier if row.legacy else None
        row = dataclasses.replace(row, sizes={**row.sizes, tier: merged}, quantifier=quantifier)
    return runner._check(row, tier).status
