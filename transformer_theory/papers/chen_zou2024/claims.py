"""Chen & Zou 2024's claims, all of them: what one layer cannot do (the verifier's rows) and what
depth can do (the constructions' rows)."""

from __future__ import annotations

from transformer_theory.papers.chen_zou2024._claims_construction import CLAIMS as _CONSTRUCTIONS
from transformer_theory.papers.chen_zou2024._claims_verifier import CLAIMS as _VERIFIER

__all__ = ["CLAIMS"]

CLAIMS = [*_VERIFIER, *_CONSTRUCTIONS]
