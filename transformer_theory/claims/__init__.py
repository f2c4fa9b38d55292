"""The claims ledger: every statement the library checks, run by one function, open to any
researcher's package.

A claim (:class:`transformer_theory.ledger.Row`) is registered by its paper, in
``transformer_theory/papers/<paper>/claims.py`` (a module-level list ``CLAIMS``), by the exact
engine (:mod:`.engine`), by an installed package through the entry-point group
``transformer_theory.claims`` (:data:`ENTRY_POINT_GROUP`), or named at run time
(``--module PKG.claims``); its status is derived by the rule in :mod:`transformer_theory.ledger`
from the Domain objects (:mod:`transformer_theory.domains`) and what the check covered. This
package sits above the papers, like the commands: it collects them all. Modules:

- :mod:`.judges`: the shared judges a row names (all-right-with-margin, exactly, at-most, ...).
- :mod:`.runner`: :func:`run_claims` (select, check, compare with the expected status), the
  writers of ``claims.json`` / ``claims.md``, and :func:`committed` (the committed full-tier
  records, from a checkout or an installed wheel).
- :mod:`.testing`: :func:`assert_status` for a researcher's own test suite.
- :mod:`.engine`: the exact engine's enclosures as rows of their own.

From Python::

    from transformer_theory import claims
    record = claims.run("chen_zou2024.prop7")      # one claim's record, quick tier
    records = claims.run_claims(paper="sanford2023", tier="quick")
    claims.committed("chen_zou2024.prop8")["status"]  # the committed full-tier record

The command: ``transformer-theory claims [--paper P] [--id GLOB] [--module PKG.claims]
[--tier quick|full] [--out DIR]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from transformer_theory.claims.runner import (
    ENTRY_POINT_GROUP,
    ClaimRecord,
    all_claims,
    committed,
    markdown,
    module_claims,
    run_claims,
    select,
    write_records,
)
from transformer_theory.claims.testing import assert_status

__all__ = [
    "ENTRY_POINT_GROUP",
    "ClaimRecord",
    "all_claims",
    "assert_status",
    "committed",
    "judges",
    "markdown",
    "module_claims",
    "run",
    "run_claims",
    "runner",
    "select",
    "write_records",
]


def run(claim_id: str, tier: str = "quick", *, modules: Sequence[str] = ()) -> dict[str, Any]:
    """Check the one claim ``claim_id`` at ``tier`` and return its record as a dict."""
    records = run_claims(ids=[claim_id], tier=tier, modules=modules)
    if not records:
        raise ValueError(f"claim_id: no claim {claim_id!r}")
    return records[0].to_dict()
