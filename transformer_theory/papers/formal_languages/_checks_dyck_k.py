"""The checks of the Dyck-(k, D) rows of the claims ledger (:mod:`.claims`): the recognizer of
:mod:`._constructions_dyck_k` against the stack in float64 (hard and softmax) and in float32.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from transformer_theory import precision
from transformer_theory.ledger import Checked
from transformer_theory.papers.formal_languages import _theory_dyck_k


def dyck_k_margins(
    attention: str,
    exhaustive: Mapping[int, int] | None = None,
    depths: Sequence[int] = (2,),
    sampled: Sequence[int] = (),
    samples: int = 0,
) -> Checked:
    """:func:`._theory_dyck_k.check_record` of the ``attention`` recognizer in float64 for each
    ``k`` of ``exhaustive`` (every string of length ``<= exhaustive[k]``) and each depth ``D``, with
    ``samples`` drawn strings per length of ``sampled``: every string classified as the stack
    says, the margins the derived ones within :func:`._theory_dyck_k.tolerance` and (hard)
    leftmost-hard attention giving the same margins. Values: ``pairs`` (string, D) checked,
    ``failures``, ``smallest_margin_times_n``, ``first_failure``."""
    precision.require_x64("dyck_k_margins")
    exhaustive = {2: 6} if exhaustive is None else {int(k): int(v) for k, v in exhaustive.items()}
    failures, first, pairs, low = 0, None, 0, math.inf
    for k, e in exhaustive.items():
        for depth in depths:
            r = _theory_dyck_k.check_record(
                k,
                depth,
                attention=attention,
                exhaustive_up_to=e,
                sampled_lengths=sampled,
                samples=max(samples, 1),
                leftmost=True,
            )
            pairs += r["strings_checked"]
            low = min(low, r["min_margin_times_n"])
            bad = [e for e in r["by_length"] if e["accuracy"] < 1.0 or not e["derived"]]
            diff = r["leftmost_max_difference"]
            longest = max(x["length"] for x in r["by_length"]) + 1
            if diff is not None and diff > _theory_dyck_k.tolerance(longest, "float64"):
                bad.append({"leftmost_max_difference": diff})
            failures += len(bad)
            if bad and first is None:
                first = {"k": k, "depth": depth, "entry": str(bad[0])}
    what = ", ".join(f"k = {k}: every string of length <= {e}" for k, e in exhaustive.items())
    if sampled and samples:
        what += f"; {samples} drawn per length {', '.join(map(str, sampled))}"
    return Checked(
        "float",
        "upto",
        f"D = {', '.join(map(str, depths))}; {what} ({pairs:,} (string, D) pairs)",
        {
            "pairs": pairs,
            "failures": failures,
            "smallest_margin_times_n": low,
            "first_failure": first,
        },
        tolerance="16 n u (u = 2^-53): averages of n terms of size <= 1, three summed",
    )


def dyck_k_float32(lengths: Sequence[int] = (16,), samples: int = 16) -> Checked:
    """:func:`._theory_dyck_k.margin_records` of the hard Dyck-(2, 4) recognizer in float32,
    ``samples`` strings per even length: the members' margin error against
    :func:`._theory_dyck_k.tolerance` (``within``) and the first ``n`` with a misclassified
    string."""
    precision.require_x64("dyck_k_float32")
    records = _theory_dyck_k.margin_records(2, 4, lengths, dtypes=("float32",), samples=samples)
    first_wrong = next((r["n"] for r in records if r["accuracy"] < 1.0), None)
    worst = max(r["member_margin_error"] / r["tolerance"] for r in records)
    return Checked(
        "float",
        "samples",
        f"{samples} drawn strings per n = {', '.join(str(r['n']) for r in records)}",
        {
            "members_error_over_tolerance": worst,
            "first_misclassified_n": first_wrong,
            "smallest_margin_times_n": min(r["min_margin_times_n"] for r in records),
        },
        tolerance="16 n u (u = 2^-24)",
    )
