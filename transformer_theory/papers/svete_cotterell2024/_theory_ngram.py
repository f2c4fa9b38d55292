"""One model of the ``ngram`` study, built, checked and recorded (:func:`model_record`), the
softmax study of ``beta`` against the KL (:func:`soft_study`) and the verdict
(:func:`float64_failures`). Plain arguments only (the study passes its settings' fields); the
records are typed (:mod:`._records`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from transformer_theory.papers.svete_cotterell2024 import _theory_equivalence as equivalence
from transformer_theory.papers.svete_cotterell2024 import _theory_precision as precision_scan
from transformer_theory.papers.svete_cotterell2024 import _theory_soft as soft
from transformer_theory.papers.svete_cotterell2024._records import (
    BetaNeeded,
    KLPoint,
    ModelRecord,
    SoftRow,
)
from transformer_theory.precision import dtype_of

__all__ = ["float64_failures", "model_record", "soft_study"]


def model_record(
    lm: Any,
    construction: str,
    precision: str,
    params: Any,
    *,
    attention: str,
    beta: float | None,
    max_len: int,
    scan_limit: int,
    seed: int,
    kl_params: Any = None,
) -> ModelRecord:
    """Check ``params``, ``construction`` built for ``lm`` in ``precision`` (a
    :class:`~transformer_theory.params.ModelParams`, or :class:`._constructions.Paper33` for the
    paper's 3.3): a JSON-ready record.

    The equivalence check is :func:`._theory_equivalence.equivalence_record` on every string up
    to ``max_len`` (sampled with ``seed``); then -- hard/sparse ``attention`` -- ``scan``
    (:func:`._theory_precision.selection_scan` or :func:`._theory_precision.paper33_scan` up to
    ``scan_limit``) with ``predicted_exact_length``
    (:func:`._theory_precision.predicted_exact_length`; None for the paper's 3.3, which has no
    derived bound), or -- softmax -- ``kl`` (:func:`._theory_soft.kl_first_outcomes` of
    ``kl_params``, the construction at ``beta`` laid out for ``max_len + 1`` symbols,
    :func:`._theory_soft.softmax_model`).
    """
    softmax = attention == "softmax"
    if construction == "3.3":
        heads, width, mlp_hidden = (1,), None, None
    else:
        cfg = params.config
        heads, width, mlp_hidden = tuple(cfg.heads), cfg.width, cfg.mlp_hidden
    checked = equivalence.equivalence_record(lm, params, max_len, seed=seed)
    extra: dict[str, Any] = {}
    if construction == "3.3":
        extra["scan"] = precision_scan.paper33_scan(params, max_length=scan_limit)
        extra["predicted_exact_length"] = None  # no derived bound (see the README)
    elif not softmax:
        extra["scan"] = precision_scan.selection_scan(params, construction, max_length=scan_limit)
        extra["predicted_exact_length"] = precision_scan.predicted_exact_length(
            construction, lm.order, dtype_of(precision), attention=attention, max_len=max_len
        )
    else:
        soft.check_soft_table(lm)
        extra["kl"] = soft.kl_first_outcomes(lm, kl_params, max_len)
    return ModelRecord(
        construction=construction,
        attention=attention,
        precision=precision,
        order=lm.order,
        alphabet=lm.alphabet_size,
        max_len=max_len,
        beta=beta if softmax else None,
        heads=heads,
        width=width,
        mlp_hidden=mlp_hidden,
        **checked,
        **extra,
    )


def soft_study(
    lm: Any,
    builds: Mapping[str, Callable[..., Any]],
    max_len: int,
    soft_lengths: Sequence[int],
    target_kl: float,
    *,
    progress: bool = False,
) -> tuple[SoftRow, ...]:
    """Softmax attention against the n-gram, per construction of ``builds`` (name ->
    ``build(beta=, max_len=)``: :func:`._constructions.build` with softmax attention, looked up
    once): ``kl_by_beta`` (the KL over the first ``max_len + 1`` outcomes at ``beta = 10^0 ..
    10^6``) and ``beta_needed`` (the smallest ``beta`` with KL ``<= target_kl`` at each of
    ``soft_lengths``, :func:`._theory_soft.beta_reaching`; None where even ``2^20`` does not
    reach it). ``lm``'s table is checked first (:func:`._theory_soft.check_soft_table`)."""
    from transformer_theory.progress import tqdm

    rows = []
    for construction, build in tqdm(
        builds.items(), desc="softmax beta", unit="construction", disable=not progress or None
    ):
        soft.check_soft_table(lm)
        curve = tuple(
            KLPoint(
                beta=b, kl=soft.kl_first_outcomes(lm, build(beta=b, max_len=max_len + 1), max_len)
            )
            for b in soft.SOFT_BETAS
        )
        needed = tuple(
            BetaNeeded(length=L, beta=soft.beta_reaching(lm, build, target_kl, L))
            for L in soft_lengths
        )
        rows.append(SoftRow(construction, max_len, curve, target_kl, needed))
    return tuple(rows)


def float64_failures(records: Sequence[ModelRecord]) -> list[ModelRecord]:
    """The hard or sparse records in float64 that are not weakly equivalent: where Theorems
    3.1-3.3 claim exactness and the check found none (a lower precision that breaks is a
    measurement, not a failure; softmax is exact only as ``beta -> inf``)."""
    return [
        r
        for r in records
        if r.precision == "float64" and r.attention != "softmax" and not r.equivalent
    ]
