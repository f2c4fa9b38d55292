"""Weak equivalence of an n-gram construction (Svete & Cotterell 2024, Theorems 3.1-3.3): ``log
q(y)`` of the constructed transformer against ``log p(y)`` of the n-gram LM on EVERY string up to
a length (or sampled strings when there are too many), EOS included, and the probability mass both
give to those strings.

- :func:`equivalence_of`: the check on arrays: the n-gram's answers (:func:`._tasks.reference`)
  beside the construction's ``log q`` per symbol at each length, as a JSON-ready record.
- :func:`equivalence_record`: the same from the LM and the model (both computed here).
- :func:`logprob_tolerance`: how far rounding alone may move ``log q(y)``.
- :func:`transformer_log_probs` / :func:`transformer_log_prob`: a construction's ``log q``, per
  symbol and per string, in float64 (run by :mod:`._constructions_run`; named here too).

Shapes use the letters of :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
from transformer_theory.papers.svete_cotterell2024._constructions_run import (
    param_dtype,
    transformer_log_prob,
    transformer_log_probs,
)
from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM, Reference, reference
from transformer_theory.params import ModelParams
from transformer_theory.precision import significand_bits

__all__ = [
    "equivalence_of",
    "equivalence_record",
    "logprob_tolerance",
    "param_dtype",
    "transformer_log_prob",
    "transformer_log_probs",
]


def logprob_tolerance(lm: NGramLM, length: int, dtype: Any) -> float:
    """How far ``log q(y)`` of an exact construction may be from ``log p(y)`` by rounding alone.

    Each of the ``L + 1`` terms is ``log_softmax`` of a row that equals the n-gram's log table
    rounded to the dtype (the AND unit gives exactly 1, ``W_O`` holds the table): the entry's own
    rounding ``u |log p|`` plus the normalizer's few ulps. ``4 u (max |log p| + 2)`` per term is
    that with a factor of 2 to spare (``u = 2^-p``); a wrong attention changes a term by a
    difference between two rows of the table instead.
    """
    table = lm.log_probs_AxC[np.isfinite(lm.log_probs_AxC)]
    u = 2.0 ** -significand_bits(dtype)
    return float((length + 1) * 4 * u * (np.abs(table).max() + 2.0))


def equivalence_of(
    lm: NGramLM, ref: Reference, log_q_by_length: Sequence[np.ndarray], dtype: Any
) -> dict:
    """Compare ``log q(y)`` with ``log p(y)`` on the strings of ``ref`` (one entry per length
    ``0..max_len``, :func:`._tasks.reference`), ``log_q_by_length`` the construction's per-symbol
    ``log q`` of the same strings (:func:`transformer_log_probs`) in a model of ``dtype``.

    ``equivalent`` means: the same strings have probability 0 (``-inf``) under both, no NaN, and
    every other difference is within :func:`logprob_tolerance` (of ``lm``'s table).
    ``mass_transformer`` (only when every length was enumerated) is ``sum_{|y| <= max_len} q(y)``,
    to set beside ``mass_ngram`` = ``ref.mass``, the n-gram's own mass up to ``max_len`` (a
    forward recursion, not an enumeration).
    """
    worst, worst_ratio, strings, mismatches, nans = 0.0, 0.0, 0, 0, 0
    exhaustive, mass_q = True, 0.0
    for length, (enumerated, ref_lp, got_lp) in enumerate(
        zip(ref.enumerated, ref.log_probs, log_q_by_length, strict=True)
    ):
        exhaustive &= enumerated
        want, got = ref_lp.sum(axis=1), np.asarray(got_lp).sum(axis=1)
        nans += int(np.isnan(got).sum())
        mismatches += int((np.isfinite(want) != np.isfinite(got)).sum())
        both = np.isfinite(want) & np.isfinite(got)
        if both.any():
            diff = float(np.abs(got[both] - want[both]).max())
            worst = max(worst, diff)
            worst_ratio = max(worst_ratio, diff / logprob_tolerance(lm, length, dtype))
        if enumerated:
            mass_q += float(np.exp(got[np.isfinite(got)]).sum())
        strings += len(want)
    return {
        "strings": strings,
        "exhaustive": bool(exhaustive),
        "max_abs_logprob_diff": worst,
        "tolerance_used": worst_ratio,
        "support_mismatches": mismatches,
        "nan": nans,
        "equivalent": bool(mismatches == 0 and nans == 0 and worst_ratio <= 1.0),
        "mass_transformer": mass_q if exhaustive else None,
        "mass_ngram": ref.mass,
    }


def equivalence_record(
    lm: NGramLM,
    params: ModelParams | cn.Paper33,
    max_len: int,
    *,
    exhaustive_limit: int = 50_000,
    samples: int = 2_000,
    seed: int = 0,
) -> dict:
    """:func:`equivalence_of` on the strings of every length ``0..max_len``
    (:func:`._tasks.reference`: lengths with at most ``exhaustive_limit`` strings enumerated,
    longer ones ``samples`` uniformly random strings from ``seed``) and ``params``' ``log q`` of
    them."""
    ref = reference(lm, max_len, exhaustive_limit=exhaustive_limit, samples=samples, seed=seed)
    log_q = [transformer_log_probs(params, batch) for batch in ref.strings]
    return equivalence_of(lm, ref, log_q, param_dtype(params))
