"""Softmax attention against the n-gram LM (Svete & Cotterell 2024's constructions are exact with
hard or sparse attention; with a softmax of ``beta`` times the scores they are exact only as
``beta -> inf``).

- :func:`kl_first_outcomes`: ``KL(p || q)`` over the first ``L + 1`` outcomes, by enumeration
  (:func:`kl_of` on the n-gram's and the model's log-probabilities of every string).
- :func:`soft_kl`: that KL for a construction built with softmax attention at scale ``beta``.
- :func:`beta_for_kl`: the smallest ``beta`` reaching a target KL at a length.
- :func:`soft_study`: the ``ngram`` study's softmax rows (the KL against ``beta`` and the ``beta``
  each length needs), from the n-gram's answers and each construction's ``log q`` at a ``beta``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from transformer_theory import _validate
from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
from transformer_theory.papers.svete_cotterell2024._constructions_run import transformer_log_probs
from transformer_theory.papers.svete_cotterell2024._records import BetaNeeded, KLPoint, SoftRow
from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM, Reference
from transformer_theory.params import ModelParams

__all__ = [
    "SOFT_BETAS",
    "beta_for_kl",
    "beta_reaching",
    "check_soft_table",
    "kl_first_outcomes",
    "kl_of",
    "soft_kl",
    "soft_study",
]

#: The betas of the softmax KL curve (the study's ``kl_by_beta``).
SOFT_BETAS: tuple[float, ...] = tuple(10.0**k for k in range(0, 7))


def kl_first_outcomes(lm: NGramLM, params: ModelParams, max_len: int) -> float:
    """``KL(p || q)`` of the laws of the first ``max_len + 1`` outcomes of the n-gram LM ``p`` and
    the transformer LM ``params``, by enumeration (float64 sums).

    The outcomes partition ``Sigma*``: every string ``y`` with ``|y| <= max_len`` (probability
    ``p(y)``, EOS included), and every prefix ``x`` of length ``max_len + 1`` (probability ``p(x)
    = prod_t p(x_t | x_<t)``, whatever follows). Unlike ``sum_{|y| <= L} p(y) log(p(y)/q(y))``
    alone, which is negative when ``q`` ends strings earlier than ``p``, this is a KL divergence
    (``>= 0``, 0 iff the next-symbol distributions agree on the first ``max_len + 1`` steps), and
    it grows with ``max_len`` to ``KL(p || q)`` over ``Sigma*``.
    """
    _validate.check_positive("max_len", max_len, allow_zero=True)
    ref, got = [], []
    for length in range(max_len + 2):
        strings = lm.strings_of_length(length)
        ref.append(lm.log_probs(strings))
        got.append(transformer_log_probs(params, strings))
    return kl_of(ref, got, max_len)


def kl_of(
    ref_by_length: Sequence[np.ndarray], log_q_by_length: Sequence[np.ndarray], max_len: int
) -> float:
    """:func:`kl_first_outcomes` from the log-probabilities per symbol (``(B, L + 1)``, EOS last)
    of every string of each length ``0..max_len + 1`` under the n-gram (``ref_by_length``,
    :meth:`._tasks.NGramLM.log_probs` of :meth:`._tasks.NGramLM.strings_of_length`) and the
    transformer (``log_q_by_length``, the same strings); longer entries are not read."""
    total = 0.0
    for length in range(max_len + 2):
        ref, got = ref_by_length[length], np.asarray(log_q_by_length[length])
        if length == max_len + 1:  # prefixes: leave out the EOS term
            ref, got = ref[:, :-1], got[:, :-1]
        ref, got = ref.sum(axis=1), got.sum(axis=1)
        live = np.isfinite(ref)
        total += float(np.sum(np.exp(ref[live]) * (ref[live] - got[live])))
    return total


def check_soft_table(lm: NGramLM) -> None:
    """Refuse (ValueError naming ``lm``) a table with exact zeros: the soft study needs none."""
    if np.isneginf(lm.log_probs_AxC).any():
        raise ValueError(
            "lm: the soft study needs a table without exact zeros (a softmax spreads weight, "
            "and a -inf entry of W_O read by a partly active unit makes q(y) = 0 where p(y) > 0)"
        )


def soft_kl(lm: NGramLM, construction: str, beta: float, max_len: int) -> float:
    """:func:`kl_first_outcomes` of the construction with softmax attention at score scale
    ``beta`` (float64, laid out for the ``max_len + 1`` symbols read:
    :func:`._constructions.softmax_model`)."""
    check_soft_table(lm)
    params = cn.softmax_model(lm, construction, beta=beta, max_len=max_len)
    return kl_first_outcomes(lm, params, max_len)


def beta_for_kl(
    lm: NGramLM, construction: str, target: float, max_len: int, *, hi: float = 2.0**20
) -> float | None:
    """The smallest ``beta`` (to 1%, bisection on ``log beta``) with :func:`soft_kl` ``<=
    target``; None if even ``hi`` does not reach it."""
    check_soft_table(lm)
    return beta_reaching(
        lm,
        functools.partial(cn.softmax_model, lm, construction),
        target,
        max_len,
        hi=hi,
    )


def beta_reaching(
    lm: NGramLM,
    build: Callable[..., ModelParams],
    target: float,
    max_len: int,
    *,
    hi: float = 2.0**20,
) -> float | None:
    """:func:`beta_for_kl` of a construction already looked up: ``build(beta=, max_len=)`` gives
    it with softmax attention at a score scale, laid out for the KL at ``max_len``
    (:func:`._constructions.softmax_model`; the table already checked,
    :func:`check_soft_table`)."""

    def kl(beta: float) -> float:
        return kl_first_outcomes(lm, build(beta=beta, max_len=max_len), max_len)

    return _bisect_beta(kl, target, hi)


def _bisect_beta(kl: Callable[[float], float], target: float, hi: float) -> float | None:
    # the smallest beta (to 1%, bisection on log beta) with kl(beta) <= target; None past hi
    if kl(hi) > target:
        return None
    lo = 1e-3
    while hi / lo > 1.01:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if kl(mid) <= target else (mid, hi)
    return hi


def soft_study(
    lm: NGramLM,
    ref: Reference,
    log_q: Mapping[str, Callable[..., Sequence[np.ndarray]]],
    max_len: int,
    soft_lengths: Sequence[int],
    target_kl: float,
    *,
    progress: bool = False,
) -> tuple[SoftRow, ...]:
    """Softmax attention against the n-gram, per construction of ``log_q`` (name ->
    ``log_q(beta=, max_len=)``: the per-symbol ``log q`` of ``ref.strings`` of lengths ``0..max_len
    + 1`` under the construction with softmax attention at that score scale, laid out for
    ``max_len + 1`` symbols, e.g. :func:`._constructions_run.softmax_log_probs`): ``kl_by_beta``
    (the KL over the first ``max_len + 1`` outcomes at ``beta`` in :data:`SOFT_BETAS`) and
    ``beta_needed`` (the smallest ``beta`` with KL ``<= target_kl`` at each of ``soft_lengths``,
    bisected as :func:`beta_reaching` does; None where even ``2^20`` does not reach it).

    ``ref``: every string of each length up to the largest of ``max_len`` and ``soft_lengths``,
    plus one, with the n-gram's log-probabilities (:func:`._tasks.reference`, enumerated).
    ``lm``'s table is checked first (:func:`check_soft_table`)."""
    from transformer_theory.progress import tqdm

    rows = []
    for construction, answers in tqdm(
        log_q.items(), desc="softmax beta", unit="construction", disable=not progress or None
    ):
        check_soft_table(lm)
        curve = tuple(
            KLPoint(beta=b, kl=kl_of(ref.log_probs, answers(beta=b, max_len=max_len), max_len))
            for b in SOFT_BETAS
        )
        needed = []
        for L in soft_lengths:

            def kl(beta: float, L: int = L, answers=answers) -> float:
                return kl_of(ref.log_probs, answers(beta=beta, max_len=L), L)

            needed.append(BetaNeeded(length=L, beta=_bisect_beta(kl, target_kl, 2.0**20)))
        rows.append(SoftRow(construction, max_len, curve, target_kl, tuple(needed)))
    return tuple(rows)
