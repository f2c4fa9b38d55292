"""The study of ``transformer-theory ngram`` (Svete & Cotterell 2024, Theorems 3.1-3.3 and this
library's variants at every float format): refuse what does not fit (:func:`check_budget`), then
build, check and record every construction and precision (:func:`run`: the n-gram's answers, the
model's, the checks on both, the record), the softmax study (:func:`._theory_soft.soft_study`)
and the figures, in that order. Its settings
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


def _estimate_args(settings: Any) -> tuple[tuple, dict]:
    # the arguments of _theory_cost.estimate that settings' fields give
    softmax = settings.attention == "softmax"
    models = len(settings.constructions) * (1 if softmax else len(settings.precisions))
    return (settings.alphabet, settings.order, settings.max_len), {
        "models": models,
        "scan_limit": None if softmax else settings.scan_limit,
        "soft_lengths": settings.soft_lengths if softmax else None,
    }


def estimate(settings: Any) -> tuple[float, float]:
    """:func:`._theory_cost.estimate` of ``settings``' fields: ``(bytes, seconds)``."""
    args, kwargs = _estimate_args(settings)
    return cost.estimate(*args, **kwargs)


#: The random strings per length the paper's 3.3 is scanned on, besides the all-0 one
#: (:func:`._theory_precision.paper33_scan`'s default).
_SCAN_SAMPLES = 32

#: The fields named for a run over the memory budget, then over the time budget, in this order.
_MEMORY_FIELDS = ("order", "alphabet", "max_len")
_TIME_FIELDS = ("max_len", "scan_limit", "order", "alphabet")


def check_budget(settings: Any) -> tuple[float, float]:
    """Refuse (``BudgetError``) settings whose :func:`estimate` exceeds the memory or time budget,
    naming the fields out of their ordinary range (``/``-joined, in the message and as
    ``option``); returns the estimate ``(bytes, seconds)``. Called before any work.

    The fields named: those above their default whose default alone would fit the budget; else
    all those above their default; else all of them (the defaults themselves do not fit). The
    settings with one field set back to its default are read first, then every estimate is made
    (:mod:`._theory_cost`), then the budget decides."""
    from transformer_theory import budget

    default = {f.name: f.default for f in dataclasses.fields(settings)}
    fields = dict.fromkeys((*_MEMORY_FIELDS, *_TIME_FIELDS))
    above = [f for f in fields if getattr(settings, f) > default[f]]
    calls = {None: _estimate_args(settings)}
    calls |= {f: _estimate_args(dataclasses.replace(settings, **{f: default[f]})) for f in above}
    S, n = settings.alphabet, settings.order
    estimates = {f: cost.estimate(*args, **kwargs) for f, (args, kwargs) in calls.items()}
    table = cost.table_bytes(S, n)
    memory, seconds = estimates[None]
    limits = (0.8 * budget.available_memory(), budget.time_budget())
    fits = {
        f: [math.isfinite(est[which]) and est[which] <= limits[which] for which in (0, 1)]
        for f, est in estimates.items()
    }
    blame = [
        "/".join(
            [f for f in named if f in above and fits[f][which]]
            or [f for f in named if f in above]
            or list(named)
        )
        for which, named in enumerate((_MEMORY_FIELDS, _TIME_FIELDS))
    ]
    if not fits[None][0]:
        field = blame[0]
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
    if not fits[None][1]:
        budget.check_seconds(
            seconds, what="checking every string and scanning every length", option=blame[1]
        )
    return memory, seconds


def run(config: Any, out_dir: str | None = None, *, progress: bool = False) -> NGramResult:
    """Build -> check -> record -> plot, every stage once per construction and precision of
    ``config``, in that order: the n-gram LM and its answers on the strings checked
    (:mod:`._tasks`); the model (:mod:`._constructions`; with softmax attention also the KL's own,
    :func:`._constructions.softmax_model`) and its answers on the same strings
    (:mod:`._constructions_run`);
    the weak-equivalence check (:mod:`._theory_equivalence`), the precision scan and the derived
    exact length (:mod:`._theory_precision`, hard/sparse) or the KL (:mod:`._theory_soft`,
    softmax); the record. Then, with softmax attention, :func:`._theory_soft.soft_study`, and the
    figures (:mod:`._plots`). Needs JAX's 64-bit mode (float64 is one of the formats compared
    and the reference).

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
    import jax.numpy as jnp

    from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
    from transformer_theory.papers.svete_cotterell2024 import _constructions_run as models
    from transformer_theory.papers.svete_cotterell2024 import _plots as plots
    from transformer_theory.papers.svete_cotterell2024 import _tasks as tasks
    from transformer_theory.papers.svete_cotterell2024 import _theory_equivalence as equivalence
    from transformer_theory.papers.svete_cotterell2024 import _theory_precision as precision_scan
    from transformer_theory.papers.svete_cotterell2024 import _theory_soft as soft
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
    if path:
        write_json(path, NGramResult(complete=False, settings=settings, records=(), soft=None))
    softmax = config.attention == "softmax"
    jobs = [(c, p) for c in config.constructions for p in config.precisions]
    # the n-gram LM and its answers: every string checked for equivalence (sampled with the
    # seed where a length has too many), every string up to the KL's lengths (softmax), the
    # histories of the strings the paper's 3.3 decodes (the scan)
    lm = tasks.NGramLM.random(
        config.seed, config.alphabet, config.order, zero_fraction=config.zero_fraction
    )
    ref = tasks.reference(lm, config.max_len, seed=config.seed)
    kl_ref = None
    if softmax:
        longest = max([*config.soft_lengths, config.max_len]) + 1
        kl_ref = tasks.reference(lm, longest, exhaustive_limit=None)
    scan_strings, scan_want = (), []
    if "3.3" in config.constructions:
        scan_strings = tasks.sampled_strings(
            config.alphabet, config.scan_limit, samples=_SCAN_SAMPLES
        )
        scan_want = [lm.string_history_ids(s) for s in scan_strings]
    for construction, precision in tqdm(
        jobs, desc="ngram", unit="model", disable=not progress or None
    ):
        dtype = dtype_of(precision)
        # the model, laid out for max_len in dtype
        offsets = decoded = kl_params = kl_log_q = None
        if construction == "3.3":  # the paper's 3.3: hard attention only
            params = cn.build_paper33(lm, dtype=dtype)
            heads, width, mlp_hidden = (1,), None, None
        else:
            offsets = cn.head_offsets(construction, lm.order)  # the keys its heads attend to
            params = cn.build(
                lm,
                construction,
                attention=config.attention,
                beta=config.beta,
                max_len=config.max_len,
                dtype=dtype,
            )
            heads = tuple(params.config.heads)
            width, mlp_hidden = params.config.width, params.config.mlp_hidden
        if softmax:  # the KL reads max_len + 1 symbols: its own model, float64, laid out for them
            kl_params = cn.softmax_model(lm, construction, beta=config.beta, max_len=config.max_len)
        # its answers on the same strings
        log_q = [models.transformer_log_probs(params, s) for s in ref.strings]
        if construction == "3.3":  # the scan reads these in order, up to the first failing length
            decoded = (models.paper33_decoded(params, jnp.asarray(s)) for s in scan_strings)
        if softmax:  # the KL model's answers on every string the KL reads
            kl_log_q = models.log_probs_by_length(kl_params, kl_ref.strings, config.max_len)
        # the checks
        checked = equivalence.equivalence_of(lm, ref, log_q, models.param_dtype(params))
        extra: dict[str, Any] = {}
        if construction == "3.3":
            extra["scan"] = precision_scan.decoding_scan(
                decoded, scan_want, order=lm.order, samples=_SCAN_SAMPLES
            )
            extra["predicted_exact_length"] = None  # no derived bound (see the README)
        elif not softmax:
            extra["scan"] = precision_scan.attention_scan(
                params, offsets, max_length=config.scan_limit
            )
            extra["predicted_exact_length"] = precision_scan.predicted_exact_length(
                construction,
                lm.order,
                dtype,
                attention=config.attention,
                max_len=config.max_len,
            )
        else:
            soft.check_soft_table(lm)
            extra["kl"] = soft.kl_of(kl_ref.log_probs, kl_log_q, config.max_len)
        # the record
        records.append(
            ModelRecord(
                construction=construction,
                attention=config.attention,
                precision=precision,
                order=lm.order,
                alphabet=lm.alphabet_size,
                max_len=config.max_len,
                beta=config.beta if softmax else None,
                heads=heads,
                width=width,
                mlp_hidden=mlp_hidden,
                **checked,
                **extra,
            )
        )
        if path:
            write_json(
                path,
                NGramResult(complete=False, settings=settings, records=tuple(records), soft=None),
            )
    soft_rows = None
    if softmax:
        answers = {
            c: functools.partial(models.softmax_log_probs, lm, c, kl_ref.strings)
            for c in config.constructions
        }
        soft_rows = soft.soft_study(
            lm,
            kl_ref,
            answers,
            config.max_len,
            config.soft_lengths,
            config.target_kl,
            progress=progress,
        )
    if out_dir is not None:
        plots.precision_figure(records, os.path.join(out_dir, "ngram_precision.png"))
        if soft_rows:
            plots.soft_figure(soft_rows, os.path.join(out_dir, "ngram_soft.png"))
    result = NGramResult(complete=True, settings=settings, records=tuple(records), soft=soft_rows)
    if path:
        write_json(path, result)
    return result


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
