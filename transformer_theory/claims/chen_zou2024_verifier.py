"""Chen & Zou 2024's claims about what one layer cannot do: Definitions 2-3, Propositions 7-10, the
impossibility theorems 2 and 4 as certificates, the §16 open question.

Each entry of :data:`CLAIMS` is one statement of the paper and the check that decides it at the
``quick`` tier (small sizes, seconds) or the ``full`` tier (the sizes README quotes).
"""

from __future__ import annotations

import numpy as np

from transformer_theory.ledger import Claim, Evidence

__all__ = ["CLAIMS"]

PAPER = "Chen & Zou 2024"


def _theorem2_toy(tier: str) -> Evidence:
    """Theorem 2 on the paper's dependent set: no one-layer model classifies (a,b,r), (b,a,r) as
    one class and (a,a,r), (b,b,r) as the other; a Farkas certificate re-verified in rationals."""
    from transformer_theory.theory import certificates, dependence

    s = dependence.paper_example()
    labels = np.array([0, 0, 1, 1])
    found = {}
    for family in ("relu_any_heads", "softmax_one_head"):
        record = certificates.certify_dataset(s.tokens_BxN, labels, 3, 2, family=family)
        found[family] = (record.verdict, bool(record.verified_exactly))
    ok = all(v == ("impossible", True) for v in found.values())
    return Evidence(
        "proved" if ok else "refuted",
        "certificate of impossibility re-verified in exact arithmetic for both families"
        if ok
        else f"no exact certificate: {found}",
        {"families": {k: {"verdict": v[0], "exact": v[1]} for k, v in found.items()}},
    )


CLAIMS: list[Claim] = [
    Claim(
        id="chen_zou2024.theorem2_toy",
        paper=PAPER,
        place="§5, Theorem 2 (the dependent set of §11)",
        printed="A one-layer transformer cannot perform the reasoning task in general.",
        checked=(
            "On the four sequences (a,b,r), (b,a,r), (a,a,r), (b,b,r) labelled 0,0,1,1 no "
            "one-layer ReLU model (any heads) and no one-layer single-head softmax model is right "
            "on all four: a Farkas certificate of the linear relaxation, re-verified in rationals."
        ),
        expected="proved",
        check=_theorem2_toy,
        command="transformer-theory certify (see README, From Python, 2.)",
    ),
]
