"""The checks of the Dyck-(k, D) rows of the claims ledger (:mod:`.claims`): the recognizer of
:mod:`._constructions_dyck_k` against the stack in float64 (hard and softmax) and in float32.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import numpy as np

from transformer_theory import precision
from transformer_theory.ledger import Checked, Tally
from transformer_theory.papers.formal_languages import _study_dyck_k, _tasks_dyck_k, _theory_dyck_k
from transformer_theory.papers.formal_languages._domains import DYCK_K_STRINGS, Languages
from transformer_theory.papers.formal_languages._records import DyckKEntry

#: The hard Dyck-(2, 4) recognizer's inputs (the float32 row).
DYCK_2_4_STRINGS = Languages(
    "every string over 2 bracket pairs, read against depth 4, at every length"
)


def dyck_k_margins(
    attention: str,
    exhaustive: Mapping[int, int] | None = None,
    depths: Sequence[int] = (2,),
    sampled: Sequence[int] = (),
    samples: int = 0,
) -> Checked:
    """:func:`._study_dyck_k.check_record` of the ``attention`` recognizer in float64 for each
    ``k`` of ``exhaustive`` (every string of length ``<= exhaustive[k]``) and each depth ``D``, with
    ``samples`` drawn strings per length of ``sampled``: every string classified as the stack
    says, the margins the derived ones within :func:`._theory_dyck_k.tolerance` and (hard)
    leftmost-hard attention giving the same margins. Covered: every (k, D, string) of lengths
    ``0..exhaustive[k]``, a sub-domain of :data:`._domains.DYCK_K_STRINGS`, counted from each
    length's record (the drawn longer strings are beyond it). Values: ``pairs`` (string, D)
    checked, ``failures``, ``smallest_margin_times_n``, ``first_failure``."""
    precision.require_x64("dyck_k_margins")
    exhaustive = {2: 6} if exhaustive is None else {int(k): int(v) for k, v in exhaustive.items()}
    labels = {(k, d): f"k = {k}, D = {d}" for k in exhaustive for d in depths}
    tally = Tally(
        DYCK_K_STRINGS.upto(
            {labels[k, d]: range(2 * k) for k, d in labels},
            {labels[k, d]: exhaustive[k] for k, d in labels},
        )
    )
    failures, first, pairs, low = 0, None, 0, math.inf
    for k, e in exhaustive.items():
        for depth in depths:
            r = _study_dyck_k.check_record(
                k,
                depth,
                attention=attention,
                exhaustive_up_to=e,
                sampled_lengths=sampled,
                samples=max(samples, 1),
                leftmost=True,
            )
            pairs += r.strings_checked
            tally.record_count(_prefixes_evaluated(k, e, r.by_length))
            low = min(low, r.min_margin_times_n)
            bad = [dataclasses.asdict(e) for e in r.by_length if e.accuracy < 1.0 or not e.derived]
            diff = r.leftmost_max_difference
            longest = max(x.length for x in r.by_length) + 1
            if diff is not None and diff > _theory_dyck_k.tolerance(longest, "float64"):
                bad.append({"leftmost_max_difference": diff})
            failures += len(bad)
            if bad and first is None:
                first = {"k": k, "depth": depth, "entry": str(bad[0])}
    return Checked(
        "float",
        tally,
        {
            "drawn_per_length": {"lengths": list(sampled), "samples": samples},
            "pairs": pairs,
            "failures": failures,
            "smallest_margin_times_n": low,
            "first_failure": first,
        },
        tolerance="16 n u (u = 2^-53): averages of n terms of size <= 1, three summed",
    )


def _prefixes_evaluated(k: int, e: int, by_length: Sequence[DyckKEntry]) -> int:
    """The strings of lengths ``0..e`` the record evaluated: per length, the record's own entry
    (a length the record has no exhaustive entry for was not evaluated), at most the distinct
    prefixes of that length among the strings :func:`._study_dyck_k.check_record` enumerates
    (``all_strings(e, k)``, each prefix read at its own position)."""
    strings = np.asarray(_tasks_dyck_k.all_strings(e, k))
    if len(strings) == 0:
        return 0
    counted = {x.length: int(x.strings) for x in by_length if x.exhaustive}
    total = 0
    for n in range(e + 1):
        distinct = 1 if n == 0 else len(np.unique(strings[:, :n], axis=0))
        total += min(counted.get(n, 0), distinct)
    return total


def dyck_k_float32(lengths: Sequence[int] = (16,), samples: int = 16) -> Checked:
    """:func:`._study_dyck_k.margin_records` of the hard Dyck-(2, 4) recognizer in float32,
    ``samples`` strings per even length: the members' margin error against
    :func:`._theory_dyck_k.tolerance` (``within``) and the first ``n`` with a misclassified
    string."""
    precision.require_x64("dyck_k_float32")
    records = _study_dyck_k.margin_records(2, 4, lengths, dtypes=("float32",), samples=samples)
    asked = sorted(set(lengths))
    where = ", ".join(str(n + 1) for n in asked)
    tally = Tally(
        DYCK_2_4_STRINGS.sample(
            len(asked) * samples,
            0,
            lambda seed, i: ("drawn", i),
            what=f"of strings ({samples} per n = {where}, drawn by dyck_k_sample)",
        )
    )
    # one batch per length: counted, not told apart
    tally.record_count(sum(r.strings for r in records))
    first_wrong = next((r.n for r in records if r.accuracy < 1.0), None)
    worst = max(r.member_margin_error / r.tolerance for r in records)
    return Checked(
        "float",
        tally,
        {
            "members_error_over_tolerance": worst,
            "first_misclassified_n": first_wrong,
            "smallest_margin_times_n": min(r.min_margin_times_n for r in records),
        },
        tolerance="16 n u (u = 2^-24)",
    )
