"""The study of ``transformer-theory ngram`` (Svete & Cotterell 2024, Theorems 3.1-3.3 and this
library's variants at every float format): refuse what does not fit (:func:`check_budget`), then
build, check and record every construction and precision (:func:`._theory_ngram.model_record`),
the softmax study (:func:`._theory_ngram.soft_study`) and the figures, in that order. Its settings
are :class:`.experiments.ngram.NGramSettings`, read by their fields (this module imports no
experiment and no option: an error names a field); its record is typed (:mod:`._records`).
:func:`table_rows` and :func:`soft_table_rows` are the command's tables.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
from typing import Any

from transformer_theory.jsonio import ABSENT, to_jsonable, write_json
from transformer_theory.papers.svete_cotterell2024 import _theory_cost as cost
from transformer_theory.papers.svete_cotterell2024._records import ModelRecord, NGramResult
from transformer_theory.precision import dtype_of, require_x64

__all__ = ["OUTPUTS", "check_budget", "estimate", "run", "soft_table_rows", "table_rows"]

#: The files :func:`run` writes into its output directory.
OUTPUTS: tuple[str, ...] = ("ngram.json", "ngram_precision.png", "ngram_soft.png")


def estimate(settings: Any) -> tuple[float, float]:
    """:func:`._theory_cost.estimate` of ``settings``' fields: ``(bytes, seconds)``."""
    softmax = settings.attention == "softmax"
    models = len(settings.constructions) * (1 if softmax else len(settings.precisions))
    return cost.estimate(
        settings.alphabet,
        settings.order,
        settings.max_len,
        models=models,
        scan_limit=None if softmax else settings.scan_limit,
        soft_lengths=settings.soft_lengths if softmax else None,
    )


def _blame(settings: Any, fields: list[str], fits) -> str:
    """The fields to name for a run over budget, ``/``-joined: those of ``fields`` above their
    default (out of their ordinary range) whose default alone makes ``fits(settings)`` true; else
    all those above their default; else all of ``fields`` (the defaults themselves do not fit)."""
    default = {f.name: f.default for f in dataclasses.fields(settings)}
    above = [f for f in fields if getattr(settings, f) > default[f]]
    alone = [f for f in above if fits(dataclasses.replace(settings, **{f: default[f]}))]
    return "/".join(alone or above or fields)


def check_budget(settings: Any) -> tuple[float, float]:
    """Refuse (``BudgetError``) settings whose :func:`estimate` exceeds the memory or time budget,
    naming the fields out of their ordinary range (``/``-joined, in the message and as
    ``option``); returns the estimate ``(bytes, seconds)``. Called before any work."""
    from transformer_theory import budget

    memory, seconds = estimate(settings)

    def fits(s, which):
        est = estimate(s)[which]
        limit = 0.8 * budget.available_memory() if which == 0 else budget.time_budget()
        return math.isfinite(est) and est <= limit

    if not fits(settings, 0):
        field = _blame(settings, ["order", "alphabet", "max_len"], lambda s: fits(s, 0))
        S, n = settings.alphabet, settings.order
        table = cost.table_bytes(S, n)
        if not math.isfinite(table):  # beyond float range: say how far, in powers of two
            log2_table = n * math.log2(S) + math.log2(8 * (S + 1) / (S - 1))
            raise budget.BudgetError(
                f"{field}: the n-gram table alone has sum_(k<n) |Sigma|^k ~ {S}^{n - 1} "
                f"histories, about 2^{log2_table:,.0f} bytes of memory, more than this machine "
                f"can give ({budget.format_bytes(budget.available_memory())} available); "
                f"lower {field}",
                option=field,
                estimate=memory,
                available=budget.available_memory(),
            )
        what = (
            f"the n-gram table ({budget.format_bytes(table)} alone), the models' D x D weights "
            "and a batch"
        )
        budget.check_memory(memory, what=what, option=field)
    if not fits(settings, 1):
        fields = ["max_len", "scan_limit", "order", "alphabet"]
        budget.check_seconds(
            seconds,
            what="checking every string and scanning every length",
            option=_blame(settings, fields, lambda s: fits(s, 1)),
        )
    return memory, seconds


def _save(path: str | None, settings: dict, records, soft, complete: bool) -> NGramResult:
    result = NGramResult(complete=complete, settings=settings, records=tuple(records), soft=soft)
    if path:
        write_json(path, result)
    return result


def run(config: Any, out_dir: str | None = None, *, progress: bool = False) -> NGramResult:
    """Build -> check -> record -> plot for every construction and precision of ``config``
    (:func:`._theory_ngram.model_record`), then :func:`._theory_ngram.soft_study` with softmax
    attention. Needs JAX's 64-bit mode (float64 is one of the formats compared and the
    reference).

    With ``out_dir``: an earlier run's :data:`OUTPUTS` there are removed first, ``ngram.json`` is
    written at the start and after every record with ``complete: false`` (so an interrupted run
    leaves the records done so far, never an earlier run's file), then the figures and
    ``ngram.json`` with ``complete: true``.

    Returns:
      the :class:`~._records.NGramResult` written last (``complete`` True; ``soft`` None without
      softmax).

    Raises:
      BudgetError: before any work, when :func:`check_budget`'s estimate exceeds the memory or
        time budget (so ``experiment ngram`` and Python callers are refused as the ``ngram``
        command is).
    """
    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024 import _plots as plots
    from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM
    from transformer_theory.papers.svete_cotterell2024._theory_ngram import (
        model_record,
        soft_study,
    )
    from transformer_theory.progress import tqdm

    require_x64("config")
    check_budget(config)
    path = None
    if out_dir is not None:
        for name in OUTPUTS:
            if os.path.exists(os.path.join(out_dir, name)):
                os.remove(os.path.join(out_dir, name))
        path = os.path.join(out_dir, "ngram.json")
    records: list[ModelRecord] = []
    settings = to_jsonable(dataclasses.asdict(config))[0]  # as the file holds them
    _save(path, settings, records, None, complete=False)
    lm = NGramLM.random(
        config.seed, config.alphabet, config.order, zero_fraction=config.zero_fraction
    )
    softmax = config.attention == "softmax"
    jobs = [(c, p) for c in config.constructions for p in config.precisions]
    for construction, precision in tqdm(
        jobs, desc="ngram", unit="model", disable=not progress or None
    ):
        dtype = dtype_of(precision)
        if construction == "3.3":  # the paper's 3.3: hard attention only
            params = cn.build_paper33(lm, dtype=dtype)
        else:
            params = cn.build(
                lm,
                construction,
                attention=config.attention,
                beta=config.beta,
                max_len=config.max_len,
                dtype=dtype,
            )
        kl_params = None
        if softmax:  # the KL reads max_len + 1 symbols, in float64
            kl_params = cn.build(
                lm, construction, attention="softmax", beta=config.beta, max_len=config.max_len + 1
            )
        record = model_record(
            lm,
            construction,
            precision,
            params,
            attention=config.attention,
            beta=config.beta,
            max_len=config.max_len,
            scan_limit=config.scan_limit,
            seed=config.seed,
            kl_params=kl_params,
        )
        records.append(record)
        _save(path, settings, records, None, complete=False)
    soft_rows = None
    if softmax:
        builds = {
            c: functools.partial(cn.build, lm, c, attention="softmax") for c in config.constructions
        }
        soft_rows = soft_study(
            lm,
            builds,
            config.max_len,
            config.soft_lengths,
            config.target_kl,
            progress=progress,
        )
    if out_dir is not None:
        plots.precision_figure(records, os.path.join(out_dir, "ngram_precision.png"))
        if soft_rows:
            plots.soft_figure(soft_rows, os.path.join(out_dir, "ngram_soft.png"))
    return _save(path, settings, records, soft_rows, complete=True)


def table_rows(result: NGramResult) -> list[dict]:
    """The records of :func:`run` as the rows of the command's table, one per model
    (``exact_to``: the scan's longest exact length, ``>=L`` when no length up to the scan's
    limit ``L`` failed, -1 when even the empty string fails; ``derived``: the derived guarantee,
    None where there is none)."""
    rows = []
    for r in result.records:
        row = {
            "construction": r.construction,
            "attention": r.attention,
            "precision": r.precision,
            "equivalent": r.equivalent,
            "strings": r.strings,
            "max_abs_logprob_diff": r.max_abs_logprob_diff,
        }
        if r.scan is not ABSENT:
            longest = r.scan["longest_exact_length"]
            row["exact_to"] = f">={r.scan['checked_up_to']}" if longest is None else longest
            row["derived"] = r.predicted_exact_length
        if r.kl is not ABSENT:
            row["kl"] = r.kl
        rows.append(row)
    return rows


def soft_table_rows(result: NGramResult) -> list[dict]:
    """The soft study of :func:`run` as table rows: one per construction and soft length, with
    the ``beta`` the target KL needs (None where ``2^20`` does not reach it)."""
    return [
        {
            "construction": s.construction,
            "length": need.length,
            "target_kl": s.target_kl,
            "beta_needed": need.beta,
        }
        for s in result.soft or ()
        for need in s.beta_needed
    ]
