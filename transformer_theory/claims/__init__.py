"""The claims ledger: every statement of the six papers the library checks, run by one function.

A claim (:class:`transformer_theory.ledger.Row`) is registered by its paper, in
``transformer_theory/papers/<paper>/claims.py`` (a module-level list ``CLAIMS``); its status is
derived by the rule in :mod:`transformer_theory.ledger`. This package sits above the papers, like
the commands: it collects them all. Modules:

- :mod:`.judges`: the shared judges a row names (all-right-with-margin, exactly, at-most, ...).
- :mod:`.runner`: :func:`run_claims` (select, check, compare with the expected status) and the
  writers of ``claims.json`` / ``claims.md``.

From Python::

    from transformer_theory import claims
    record = claims.run("chen_zou2024.prop7")      # one claim's record, quick tier
    records = claims.run_claims(paper="sanford2023", tier="quick")

The command: ``transformer-theory claims [--paper P] [--id GLOB] [--tier quick|full] [--out DIR]``.
"""

from __future__ import annotations

from typing import Any

from transformer_theory.claims.runner import (
    ClaimRecord,
    all_claims,
    markdown,
    run_claims,
    select,
    write_records,
)

__all__ = [
    "ClaimRecord",
    "all_claims",
    "judges",
    "markdown",
    "run",
    "run_claims",
    "runner",
    "select",
    "write_records",
]


def run(claim_id: str, tier: str = "quick") -> dict[str, Any]:
    """Check the one claim ``claim_id`` at ``tier`` and return its record as a dict."""
    records = run_claims(ids=[claim_id], tier=tier)
    if not records:
        raise ValueError(f"claim_id: no claim {claim_id!r}")
    return records[0].to_dict()
