"""Chen & Zou 2024's claims about what depth can do: Lemmas 1-4, the constructions of Theorems 1, 3,
5 and 6, and the trained depth experiments (Figures 2-7) as measured results.

Each entry of :data:`CLAIMS` is one statement of the paper and the check that decides it at the
``quick`` tier (small sizes, seconds) or the ``full`` tier (the sizes README quotes).
"""

from __future__ import annotations

from transformer_theory.ledger import Claim

__all__ = ["CLAIMS"]

PAPER = "Chen & Zou 2024"

CLAIMS: list[Claim] = []
