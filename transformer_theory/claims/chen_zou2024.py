"""Chen & Zou 2024's claims, all of them: :mod:`.chen_zou2024_verifier` (what one layer cannot
do) and :mod:`.chen_zou2024_constructions` (what depth can do)."""

from __future__ import annotations

from transformer_theory.claims.chen_zou2024_constructions import CLAIMS as _CONSTRUCTIONS
from transformer_theory.claims.chen_zou2024_verifier import CLAIMS as _VERIFIER
from transformer_theory.ledger import Claim

__all__ = ["CLAIMS"]

CLAIMS: list[Claim] = [*_VERIFIER, *_CONSTRUCTIONS]
