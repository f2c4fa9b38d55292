"""The study of Conti 2024's ``efficient_attention`` experiment (§2.1): its settings
(:class:`.experiments.efficient_attention.EfficientSettings`, read by their fields: this module
imports no experiment and no option) -> the trained models' inputs read -> the budgets checked
before any measurement (naming the field to lower) -> the error of each approximation against
exact attention -> the cost of every variant against the sequence length -> the records -> the
figures; with ``jl``, Linformer's random projection as the thesis writes it (:func:`run_jl`).
:func:`run` calls each maths module once, in that order, with plain values (the command checks
the budgets and reads the runs itself first, :func:`check_budgets`, :func:`read_runs`, and prints
their notes, ``unfinished_notes``: :func:`._models_trained.unfinished_notes`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

from transformer_theory import budget, jsonio
from transformer_theory.papers.conti2024 import _models_efficient as efficient
from transformer_theory.papers.conti2024 import _plots as plots
from transformer_theory.papers.conti2024 import _theory_cost as estimates
from transformer_theory.papers.conti2024._models_efficient import Machine
from transformer_theory.papers.conti2024._models_trained import (
    LoadedRun,
    trained_inputs,
    unfinished_notes,
)
from transformer_theory.papers.conti2024._records import CostRow, ErrorAtBudget

__all__ = [
    "MIN_SLOPE_POINTS",
    "EfficientResult",
    "JLResult",
    "check_budgets",
    "read_runs",
    "run",
    "run_jl",
    "summary_rows",
    "unfinished_notes",
]

MIN_SLOPE_POINTS = 3  # a slope through two points has no check on the power law


def _sizes(settings: Any) -> dict[str, int]:
    """The size fields of ``settings`` the budgets read (:data:`.._theory_cost.SIZE_FIELDS`)."""
    return {f: getattr(settings, f) for f in estimates.SIZE_FIELDS}


def check_budgets(settings: Any) -> dict:
    """:func:`.._theory_cost.check_study_budgets` at ``settings``' sizes, before any work: memory,
    then time, refused naming the field out of its ordinary range (measured against
    ``type(settings)()``'s defaults).

    Returns:
      ``{"memory": {"cost": {variant: bytes at max_len}, "errors": {variant: bytes}}, "seconds":
      <the lower bound>}``.
    """
    s = settings
    return estimates.check_study_budgets(
        s.variants, s.approximations, _sizes(s), defaults=_sizes(type(s)())
    )


frozen = dataclasses.dataclass(frozen=True)


@frozen
class ScalingRow:
    """One input kind and length of the row bound: the rank ``k'`` needed beside the bounds."""

    kind: str
    n: int
    rank_needed: int | None
    row_bound_rank: int
    lemma_rank: int
    eq16_ratio_median: float | None


@frozen
class Scaling:
    """:func:`.._theory_linformer.scaling_study`: the rank needed against ``n``, its slope
    against ``ln n`` per input kind beside the union bound's."""

    eps: float
    delta: float
    trials: int
    rows: tuple[ScalingRow, ...]
    slopes: dict[str, float]
    bound_slope: float


@frozen
class ErrorRow:
    """The attention output's mean relative error at one rank ``k'``."""

    rank: int
    jl: float
    eq17_random: float
    pooled: float
    lemma_distortion: float


@frozen
class SpectrumRank:
    """The rank holding 90% of ``||P||_F^2`` over a trained model's heads and examples."""

    mean: float
    min: int
    max: int


@frozen
class RankNeeded:
    """The rank ``k'`` the row bound needs over a trained model's heads and examples."""

    median: float | None
    max: int | None
    not_found: int


@frozen
class TrainedJL:
    """The JL study on one trained model's attention."""

    source: str
    n: int
    heads_examples: int
    spectrum_rank_90: SpectrumRank
    rank_needed: RankNeeded
    errors: tuple[ErrorRow, ...]


@frozen
class JLResult:
    """``jl.json`` (:func:`run_jl`): :func:`.._theory_linformer.jl_study`'s record, typed; its
    ``files`` (not in ``jl.json``) the JSON and PNG written."""

    scaling: Scaling
    errors: dict[str, tuple[ErrorRow, ...]]
    error_len: int
    spectrum_rank_90: dict[str, int]
    trained: tuple[TrainedJL, ...]
    files: tuple[str, ...] | None = jsonio.optional()


MEMORY_NOTE = (
    "XLA compiled memory_analysis(): argument + output + temporary bytes - aliased bytes "
    "(the buffers XLA plans for one call; not a process RSS reading)"
)


@dataclasses.dataclass(frozen=True)
class EfficientResult:
    """What :func:`run` measured and wrote.

    Attributes:
      lengths: the lengths timed.
      cost: :func:`._models_efficient.cost_vs_length`'s records.
      slopes: :func:`._models_efficient.fit_slopes` of ``cost`` over
        ``n >= min(1024, max_len / 2)``, through at least :data:`MIN_SLOPE_POINTS` lengths (a
        variant with fewer is left out).
      errors: :func:`._models_efficient.error_vs_budget`'s records on every source (empty without an
        approximation).
      machine: :func:`.._models_efficient.machine`, where the costs were measured.
      files: the JSON and CSV files written; figures: the PNG files.
    """

    lengths: list[int]
    cost: list[CostRow]
    slopes: dict[str, dict[str, float]]
    errors: list[ErrorAtBudget]
    machine: Machine
    files: list[str]
    figures: list[str]


def _table(rows: Sequence[CostRow | ErrorAtBudget]) -> list[dict]:
    """A CSV table's rows: each record as it is written in JSON (an absent field, no column)."""
    return [jsonio.to_jsonable(r)[0] for r in rows]


def read_runs(settings: Any) -> list[LoadedRun]:
    """The trained models of ``settings.runs`` (:func:`.._models_trained.read_runs`); a
    directory that holds none is refused naming ``runs`` (``ValueError``)."""
    from transformer_theory.papers.conti2024._models_trained import read_runs as read
    from transformer_theory.sweeps import ExperimentError
    from transformer_theory.train import RunDirectoryError

    runs: list[LoadedRun] = []
    for path in settings.runs:
        if not os.path.isdir(path):
            raise ValueError(f"runs: {path} is not a directory")
        try:
            runs += read(path)
        except (ExperimentError, RunDirectoryError) as err:
            raise ValueError(f"runs: {err}") from None
    return runs


def run_jl(settings: Any, out_dir: str, runs: Sequence[LoadedRun] = ()) -> JLResult:
    """``jl``: :func:`._theory_linformer.jl_study` on random inputs and on ``runs``' trained
    attention, written to ``jl.json`` and drawn in ``jl.png`` (the result's ``files``):
    :func:`run` with ``jl`` set."""
    return run(settings.replace(jl=True), out_dir, runs=runs)


def run(
    config: Any,
    out_dir: str,
    *,
    progress: bool = True,
    runs: Sequence[LoadedRun] | None = None,
    checked: dict | None = None,
) -> EfficientResult | JLResult:
    """Both studies, their files and figures under ``out_dir`` (an existing directory): the
    trained inputs read -> budgets checked (the trained inputs' once read) -> errors measured ->
    costs measured -> records written -> figures drawn; with ``config.jl``, Linformer's random
    projection instead (:func:`run_jl`).

    Args:
      config: what to measure.
      out_dir: the output directory.
      progress: show progress bars.
      runs: the trained models of ``config.runs``, already read (None: :func:`read_runs`).
      checked: :func:`check_budgets`'s result, recorded in ``cost.json`` (None: checked here,
        refusing a run over budget).
    Returns:
      an :class:`EfficientResult` (with ``jl``, a :class:`JLResult`). Raises
      :class:`~transformer_theory.budget.BudgetError` naming ``examples`` when a trained
      model's inputs, known only once read, would not fit in memory for the error study.
    """
    s = config
    approx = s.approximations
    sizes, defaults = _sizes(s), _sizes(type(s)())
    if runs is None:
        runs = read_runs(s)
    qkv = trained_inputs(runs, s.trained_examples()) if runs and (s.jl or approx) else []
    if s.jl:
        from transformer_theory.papers.conti2024 import _theory_linformer as linformer

        found = linformer.jl_study(qkv=qkv, seed=s.seed)
        record = jsonio.as_record(JLResult, found)
        files = (
            jsonio.write_json(os.path.join(out_dir, "jl.json"), record),
            plots.jl_figure(found, os.path.join(out_dir, "jl.png")),
        )
        return dataclasses.replace(record, files=files)
    from transformer_theory.progress import tqdm

    if checked is None:
        checked = estimates.check_study_budgets(s.variants, approx, sizes, defaults=defaults)
    trained = [(f"trained {name}, n={q.shape[1]}", q, k, v) for name, q, k, v in qkv]
    for label, q, _, _ in trained:  # before any error work
        est = estimates.error_study_bytes(q.shape[1], q.shape[2], q.shape[0], approx)
        budget.check_memory(
            max(est.values()), what=f"the error study on {label}", option="examples"
        )
    ns = estimates.lengths(s.min_len, s.max_len)
    sources = efficient.random_sources(s.seed, s.error_batch, s.error_len, s.dim) if approx else []
    errors: list[ErrorAtBudget] = []
    for label, q, k, v in tqdm(sources + trained, desc="errors", disable=not progress or None):
        errors += efficient.error_vs_budget(q, k, v, variants=approx, seed=s.seed, label=label)
    bar = tqdm(total=len(ns) * len(s.variants), desc="cost", disable=not progress or None)

    def tick(rec: CostRow) -> None:
        bar.update(1)
        bar.set_postfix(variant=rec.variant, n=rec.n)

    cost = efficient.cost_vs_length(
        ns, variants=s.variants, dim=s.dim, repeats=s.repeats, on_record=tick
    )
    bar.close()
    fit_from = min(1024, ns[-1] // 2 or 1)
    slopes = efficient.fit_slopes(cost, min_n=fit_from, min_points=MIN_SLOPE_POINTS)
    where = efficient.machine()
    record = dict(
        machine=where,
        memory=MEMORY_NOTE,
        memory_estimates=checked["memory"],
        seconds_lower_bound=checked["seconds"],
        slopes=slopes,
        slopes_note=f"fitted over n >= min(1024, max_len / 2), only through >= "
        f"{MIN_SLOPE_POINTS} lengths; variants without enough lengths are left out",
        records=cost,
    )
    files = [
        jsonio.write_json(os.path.join(out_dir, "cost.json"), record),
        jsonio.write_csv(os.path.join(out_dir, "cost.csv"), _table(cost)),
    ]
    if approx:
        files.append(jsonio.write_json(os.path.join(out_dir, "errors.json"), errors))
        files.append(jsonio.write_csv(os.path.join(out_dir, "errors.csv"), _table(errors)))
    figures = [
        plots.cost_vs_length(cost, slopes, os.path.join(out_dir, "cost.png"), fit_from=fit_from)
    ]
    if approx:
        figures.append(plots.error_vs_budget(errors, os.path.join(out_dir, "errors.png")))
    return EfficientResult(ns, cost, slopes, errors, where, files, figures)


def summary_rows(result: EfficientResult) -> list[dict]:
    """One row per variant at the longest length: milliseconds per call (median), XLA's MiB and
    the fitted slopes of time and memory (``"n/a"`` where a variant has none)."""

    def slope(variant: str, key: str) -> str:
        value = result.slopes.get(variant, {}).get(key)
        return "n/a" if value is None else f"{value:.2f}"

    return [
        {
            "variant": r.variant,
            "budget": r.budget,
            "ms per call": r.seconds * 1e3,
            "XLA MiB": (r.xla_bytes or 0) / 2**20,
            "slope time": slope(r.variant, "seconds"),
            "slope memory": slope(r.variant, "xla_bytes"),
        }
        for r in result.cost
        if r.n == result.lengths[-1]
    ]
