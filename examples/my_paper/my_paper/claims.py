"""The claims of "my paper", as rows of transformer_theory's ledger.

Each row names the domain its statement quantifies over (a ``Domain`` object), a check that
records every element it evaluated in a ``Tally`` and says in what arithmetic, and a shared judge.
The status (``proved``, ``bounded``, ``finding``, ``refuted``, ...) is derived by the ledger's
rule, never written here: ``expected`` is what the rule should give, and a different status is a
regression.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from transformer_theory import exact
from transformer_theory.claims import judges
from transformer_theory.ledger import (
    Checked,
    Continuum,
    Enumerated,
    Family,
    Row,
    Strings,
    Tally,
)
from transformer_theory.papers import formal_languages

PAPER = "My Paper 2026"

# ------------------------------------------------------------------------------- the domains
#: Every binary string of length 1-6: a finite domain the construction is checked on whole.
SHORT_STRINGS = Strings((0, 1), range(1, 7), what="binary string")
#: For every n >= 1: the causal mask of length n (one element per size).
MASKS = Family(
    "n",
    lambda n: Enumerated(f"the causal mask of length {n}", [n], what="mask"),
    start=1,
    what="causal masks",
)
#: Every row of real attention scores (a continuum: only samples, grids or enclosures cover it).
SCORE_ROWS = Continuum("every real score row of length 2, 8 or 64")
#: For every n >= 1: the binary strings of length at most n, counted.
COUNTS = Family(
    "n",
    lambda n: Enumerated(f"the count at n = {n}", [n], what="count"),
    start=1,
    what="counts of binary strings",
)


# ---------------------------------------------------------------------------------- the checks
def check_majority(max_len: int = 6, confidence: float = 1.0) -> Checked:
    """The library's one-layer average-hard MAJORITY recognizer, in rationals, on every string
    of :data:`SHORT_STRINGS`: the sign of its margin against membership."""
    params = formal_languages.majority(confidence=confidence)
    tally = Tally(SHORT_STRINGS)
    wrong, smallest = 0, None
    for s in tally:
        o = exact.evaluate(params, np.array([2, *s]), arithmetic="exact").logits[-1]
        margin = Fraction(int((o[1] - o[0]).p), int((o[1] - o[0]).q))
        member = sum(s) * 2 > len(s)
        signed = margin if member else -margin
        wrong += signed <= 0
        smallest = signed if smallest is None else min(smallest, signed)
        tally.record(s)
    return Checked("exact", tally, {"wrong": wrong, "smallest_margin": str(smallest)})


def check_causal_pairs(max_n: int) -> Checked:
    """The library's causal mask at every length n = 1..max_n: its allowed pairs, counted
    exactly, against n(n + 1) / 2."""
    from transformer_theory.core import masks

    tally = Tally(MASKS.upto(max_n))
    off = 0
    for n in tally:
        allowed = int(np.asarray(masks.causal_mask(n)).astype(bool).sum())
        off += allowed != n * (n + 1) // 2
        tally.record(n)
    return Checked("exact", tally, {"off": off, "max_n": max_n})


def check_softmax_sums(samples: int, seed: int) -> Checked:
    """float32 softmax weights (the library's ``softmax_weights``) of seeded random score rows:
    the largest |sum - 1| against ``n u`` (u = 2^-24, n the row's length)."""
    import jax.numpy as jnp

    from transformer_theory.core import attention

    rng = np.random.default_rng(seed)
    tally = Tally(SCORE_ROWS.sample(samples, seed, lambda s, i: i, what="score rows"))
    worst = 0.0
    lengths = (2, 8, 64)  # one compiled call per length, every sample of that length at once
    for k, n in enumerate(lengths):
        ids = range(k, samples, len(lengths))
        if not ids:
            continue
        rows = jnp.asarray(rng.normal(0, 4, (len(ids), n)), jnp.float32)
        w = np.asarray(attention.softmax_weights(rows), np.float64)
        worst = max(worst, float(np.max(np.abs(w.sum(axis=-1) - 1))) / (n * 2.0**-24))
        tally.record_all(ids)
    return Checked(
        "float",
        tally,
        {"worst_in_units_of_nu": worst},
        tolerance="n u with u = 2^-24 (float32), n the row's length: one rounding per term",
    )


def check_printed_count(max_n: int) -> Checked:
    """The printed formula 2^n against the count of binary strings of length 0..n (every one
    enumerated), exactly, at n = 1..max_n: the paper's printed object."""
    tally = Tally(COUNTS.upto(max_n))
    first_wrong = None
    for n in tally:
        count = Strings((0, 1), range(0, n + 1)).size
        if count != 2**n and first_wrong is None:
            first_wrong = {"n": n, "count": count, "printed": 2**n}
        tally.record(n)
    return Checked(
        "exact",
        tally,
        {"printed_holds": first_wrong is None, "first_wrong": first_wrong},
        subject="printed",
    )


# ------------------------------------------------------------------------------------ the rows
CLAIMS: list[Row] = [
    Row(
        id="my_paper.majority_construction",
        paper=PAPER,
        place="Theorem 1",
        printed="A one-layer average-hard transformer decides MAJORITY on every binary string "
        "of length at most 6.",
        statement="formal_languages.majority() in rationals: right with a positive margin on "
        "every string",
        domain=SHORT_STRINGS,
        check=check_majority,
        judge=judges.exactly("wrong", 0, figure="{wrong} wrong; smallest margin {smallest_margin}"),
        sizes={"quick": {}},
        expected="proved",
    ),
    Row(
        id="my_paper.causal_mask_pairs",
        paper=PAPER,
        place="Lemma 2",
        printed="For every n, the causal mask of length n allows n(n+1)/2 query-key pairs.",
        statement="core.masks.causal_mask(n) counted exactly at every n up to max_n",
        domain=MASKS,
        check=check_causal_pairs,
        judge=judges.exactly("off", 0, figure="{off} lengths off n(n+1)/2, n <= {max_n}"),
        sizes={"quick": {"max_n": 12}, "full": {"max_n": 128}},
        expected="bounded",
    ),
    Row(
        id="my_paper.softmax_sums_float32",
        paper=PAPER,
        place="Remark 3 (the library's own measurement)",
        statement="float32 softmax weights sum to 1 within n u on seeded random score rows",
        domain=SCORE_ROWS,
        check=check_softmax_sums,
        judge=judges.at_most(
            "worst_in_units_of_nu", 1, figure="worst |sum - 1| = {worst_in_units_of_nu} n u"
        ),
        sizes={"quick": {"samples": 64, "seed": 0}, "full": {"samples": 4096, "seed": 0}},
        expected="finding",
    ),
    Row(
        id="my_paper.binary_strings_count",
        paper=PAPER,
        place="eq. (4)",
        printed="There are 2^n binary strings of length at most n.",
        statement="the printed formula against the enumerated count, n = 1..max_n",
        domain=COUNTS,
        check=check_printed_count,
        judge=judges.true("printed_holds", figure="first counterexample {first_wrong}"),
        sizes={"quick": {"max_n": 8}},
        expected="refuted",
        note="The count is 2^(n+1) - 1 (the empty string included).",
    ),
]
