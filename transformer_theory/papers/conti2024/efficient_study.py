"""The study behind ``transformer-theory efficient-attention``: settings in, records and files out.

:class:`EfficientSettings` holds what the command parses; :func:`check_budgets` refuses, before
any work, a run that would not fit in memory or in the time budget (:mod:`.estimates`), naming
the option to lower; :func:`run_study` measures the output error of each approximation against
exact attention on random inputs and on trained models' activations
(:func:`.efficient.error_vs_budget`), and the cost of every variant against the sequence length
(:func:`.efficient.cost_vs_length`), and writes ``cost.json``, ``cost.csv``, ``cost.png`` and
(when an approximation is selected) ``errors.json``, ``errors.csv``, ``errors.png``::

    settings = EfficientSettings(variants=("sliding_window", "dense"), max_len=1024)
    checked = check_budgets(settings)
    result = run_study(settings, "results/efficient_attention", checked=checked)
    summary_rows(result)  # one row per variant at the longest length
"""

from __future__ import annotations

import dataclasses
import os
import platform
from collections.abc import Callable, Sequence

import numpy as np

from transformer_theory import _validate, budget, jsonio
from transformer_theory.papers.conti2024 import efficient, estimates, plots
from transformer_theory.papers.conti2024.loading import LoadedRun

__all__ = [
    "DEFAULTS",
    "MIN_SLOPE_POINTS",
    "EfficientResult",
    "EfficientSettings",
    "check_budgets",
    "check_memory",
    "check_seconds",
    "error_sources",
    "lengths",
    "machine",
    "run_study",
    "summary_rows",
    "trained_inputs",
]

MIN_SLOPE_POINTS = 3  # a slope through two points has no check on the power law

# Inputs of the error study: (label, q_BxNxE, k_BxNxE, v_BxNxD).
Source = tuple[str, np.ndarray, np.ndarray, np.ndarray]


@dataclasses.dataclass(frozen=True)
class EfficientSettings:
    """What one ``efficient-attention`` run measures (the command's options, converted once).

    Attributes:
      variants: names from :data:`.efficient.VARIANTS`; the approximations among them
        (:data:`.efficient.APPROXIMATIONS`) enter the error study, all enter the cost study.
      min_len, max_len: the cost study times ``min_len, 2 min_len, ..., max_len``
        (:func:`check_budgets` and :func:`run_study` refuse ``max_len < min_len``; the settings
        themselves allow it, so that the refusals can weigh one option at its default).
      dim: query/key/value width (even: the ``local`` inputs use a sinusoidal code).
      repeats: timed calls per point.
      error_len: sequence length of the random inputs of the error study.
      error_batch: random input draws per kind (``iid``, ``local``).
      examples: held-out inputs per trained model.
      seed: of the random inputs and the random variants.
    """

    variants: tuple[str, ...] = tuple(efficient.VARIANTS)
    min_len: int = 256
    max_len: int = 16384
    dim: int = 64
    repeats: int = 3
    error_len: int = 512
    error_batch: int = 8
    examples: int = 32
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "variants", tuple(self.variants))
        if not self.variants:
            raise ValueError("variants: expected at least one variant, got none")
        for name in self.variants:
            _validate.check_choice("variants", name, tuple(efficient.VARIANTS))
        for name in (
            "min_len",
            "max_len",
            "dim",
            "repeats",
            "error_len",
            "error_batch",
            "examples",
        ):
            _validate.check_int_arg(name, getattr(self, name))
        _validate.check_int_arg("seed", self.seed, minimum=0)
        if self.dim % 2:
            raise ValueError(
                f"dim: the 'local' inputs use a sinusoidal code; expected even, got {self.dim}"
            )

    @property
    def approximations(self) -> list[str]:
        """The selected variants that approximate attention (the error study's)."""
        return [v for v in self.variants if v in efficient.APPROXIMATIONS]

    def replace(self, **changes: object) -> EfficientSettings:
        """A copy with ``changes`` (validated again)."""
        return dataclasses.replace(self, **changes)


# The defaults of the size options: the "usual value" an over-budget option is measured against.
DEFAULTS = EfficientSettings()


def lengths(min_len: int, max_len: int) -> list[int]:
    """``min_len, 2 min_len, 4 min_len, ...`` below ``max_len``, then ``max_len``."""
    _validate.check_int_arg("min_len", min_len)
    _validate.check_int_arg("max_len", max_len)
    out, n = [], min_len
    while n < max_len:
        out.append(n)
        n *= 2
    return out + [max_len]


def _option(field: str) -> str:
    return "--" + field.replace("_", "-")


def _cost_bytes(s: EfficientSettings) -> tuple[str, float]:
    """The variant of the cost study with the largest peak and its bytes at ``max_len``."""
    cost = {v: estimates.estimate_bytes(v, s.max_len, s.dim) for v in s.variants}
    worst = max(cost, key=cost.get)
    return worst, cost[worst] + 12 * s.max_len * s.dim  # + the timed inputs


def _error_bytes(s: EfficientSettings) -> dict[str, float]:
    return estimates.error_study_bytes(s.error_len, s.dim, s.error_batch, s.approximations)


def _seconds(s: EfficientSettings) -> float:
    """A lower bound on the seconds of both studies on random inputs (trained inputs add more)."""
    total = estimates.cost_study_seconds(
        lengths(s.min_len, s.max_len), s.variants, s.dim, s.repeats
    )
    if s.approximations:  # two kinds of random inputs
        total += 2 * estimates.error_study_seconds(
            s.error_len, s.dim, s.error_batch, s.approximations
        )
    return total


def _fits(check: Callable[[], object]) -> bool:
    try:
        check()
    except budget.BudgetError:
        return False
    return True


def _blame(
    s: EfficientSettings, fields: Sequence[str], fits: Callable[[EfficientSettings], bool]
) -> str:
    """The options among ``fields`` to name for a run over budget, ``/``-joined: those above
    their default (out of their ordinary range) whose default alone makes ``fits(settings)``
    true; else all those above their default; else all of ``fields`` (the defaults themselves do
    not fit)."""
    above = [f for f in fields if getattr(s, f) > getattr(DEFAULTS, f)]
    alone = [f for f in above if fits(s.replace(**{f: getattr(DEFAULTS, f)}))]
    return "/".join(_option(f) for f in (alone or above or fields))


def check_memory(settings: EfficientSettings) -> dict[str, dict[str, float]]:
    """Refuse (:class:`~transformer_theory.budget.BudgetError`) when either study on random inputs
    would not fit in memory, naming the option out of its ordinary range.

    Returns:
      the estimates for the record: ``{"cost": {variant: bytes at max_len}, "errors":
      {variant: bytes}}`` (``errors`` empty without an approximation).
    """
    s = settings
    cost = {v: estimates.estimate_bytes(v, s.max_len, s.dim) for v in s.variants}
    worst, peak = _cost_bytes(s)

    def cost_fits(a: EfficientSettings) -> bool:
        return _fits(lambda: budget.check_memory(_cost_bytes(a)[1], what="", option=""))

    if not cost_fits(s):
        budget.check_memory(
            peak,
            what=f"timing {worst} at n = {s.max_len}, width {s.dim}",
            option=_blame(s, ["max_len", "dim"], cost_fits),
        )
    errors: dict[str, float] = {}
    if s.approximations:
        errors = _error_bytes(s)

        def error_fits(a: EfficientSettings) -> bool:
            return _fits(
                lambda: budget.check_memory(max(_error_bytes(a).values()), what="", option="")
            )

        if not error_fits(s):
            worst_e = max(errors, key=errors.get)
            budget.check_memory(
                errors[worst_e],
                what=f"the error study ({worst_e} at its largest budget, n = {s.error_len}, "
                f"width {s.dim}, {s.error_batch} inputs at once)",
                option=_blame(s, ["error_len", "error_batch", "dim"], error_fits),
            )
    return dict(cost=cost, errors=errors)


def check_seconds(settings: EfficientSettings) -> float:
    """Refuse (:class:`~transformer_theory.budget.BudgetError`) when both studies would take
    longer than the time budget by a lower-bound estimate; returns the estimate (seconds)."""
    s = settings
    seconds = _seconds(s)

    def time_fits(a: EfficientSettings) -> bool:
        return _fits(lambda: budget.check_seconds(_seconds(a), what="", option=""))

    if not time_fits(s):
        budget.check_seconds(
            seconds,
            what=f"timing {len(s.variants)} variants at {len(lengths(s.min_len, s.max_len))} "
            f"lengths, {s.repeats} calls each, and the error study (at least)",
            option=_blame(s, ["repeats", "max_len", "dim", "error_len", "error_batch"], time_fits),
        )
    return seconds


def _check_order(s: EfficientSettings) -> None:
    if s.max_len < s.min_len:
        raise ValueError(f"max_len: must be at least min_len = {s.min_len}, got {s.max_len}")


def check_budgets(settings: EfficientSettings) -> dict:
    """:func:`check_memory`, then :func:`check_seconds`, before any work.

    Returns:
      ``{"memory": <check_memory's estimates>, "seconds": <the lower bound>}``.
    """
    _check_order(settings)
    return dict(memory=check_memory(settings), seconds=check_seconds(settings))


def trained_inputs(runs: Sequence[LoadedRun], examples: int) -> list[Source]:
    """``[(name, q, k, v)]``, one per run: every bidirectional head of the run on ``examples``
    held-out inputs, heads and layers stacked along the first axis (``q`` of shape
    ``(examples x heads, N, E)``)."""
    out = []
    for loaded in runs:
        qs, ks, vs = [], [], []
        for _attention, _layer, q, k, v in loaded.qkv(examples):
            qs.append(q.reshape((-1,) + q.shape[2:]))
            ks.append(k.reshape((-1,) + k.shape[2:]))
            vs.append(v.reshape((-1,) + v.shape[2:]))
        out.append((loaded.name, np.concatenate(qs), np.concatenate(ks), np.concatenate(vs)))
    return out


def error_sources(settings: EfficientSettings, runs: Sequence[LoadedRun] = ()) -> list[Source]:
    """The inputs of the error study: ``error_batch`` random draws of each kind (``iid``,
    ``local``; :func:`.efficient.random_inputs`), then every trained run's activations
    (:func:`trained_inputs`); none without an approximation among the variants.

    Raises :class:`~transformer_theory.budget.BudgetError` naming ``--examples`` when a trained
    model's inputs, known only once read, would not fit in memory.
    """
    import jax

    s = settings
    approx = s.approximations
    if not approx:
        return []
    key = jax.random.key(s.seed)
    sources: list[Source] = []
    for kind in ("iid", "local"):
        q, k, v = efficient.random_inputs(
            jax.random.fold_in(key, len(sources)), s.error_batch, s.error_len, s.dim, kind
        )
        sources.append((f"random {kind}, n={s.error_len}", q, k, v))
    trained = [
        (f"trained {name}, n={q.shape[1]}", q, k, v)
        for name, q, k, v in trained_inputs(runs, s.examples)
    ]
    for label, q, _, _ in trained:  # before any error work
        est = estimates.error_study_bytes(q.shape[1], q.shape[2], q.shape[0], approx)
        budget.check_memory(
            max(est.values()), what=f"the error study on {label}", option="--examples"
        )
    return sources + trained


def machine() -> dict:
    """Where the costs were measured: JAX's backend and devices, CPU count, platform."""
    import jax

    return dict(
        backend=jax.default_backend(),
        devices=[str(d) for d in jax.devices()],
        cpu_count=os.cpu_count(),
        platform=platform.platform(),
    )


MEMORY_NOTE = (
    "XLA compiled memory_analysis(): argument + output + temporary bytes - aliased bytes "
    "(the buffers XLA plans for one call; not a process RSS reading)"
)


@dataclasses.dataclass(frozen=True)
class EfficientResult:
    """What :func:`run_study` measured and wrote.

    Attributes:
      lengths: the lengths timed.
      cost: :func:`.efficient.cost_vs_length`'s records.
      slopes: :func:`.efficient.fit_slopes` of ``cost`` over ``n >= min(1024, max_len / 2)``,
        through at least :data:`MIN_SLOPE_POINTS` lengths (a variant with fewer is left out).
      errors: :func:`.efficient.error_vs_budget`'s records on every source (empty without an
        approximation).
      machine: :func:`machine`.
      files: the JSON and CSV files written; figures: the PNG files.
    """

    lengths: list[int]
    cost: list[dict]
    slopes: dict[str, dict[str, float]]
    errors: list[dict]
    machine: dict
    files: list[str]
    figures: list[str]


def run_study(
    settings: EfficientSettings,
    out: str,
    runs: Sequence[LoadedRun] = (),
    *,
    checked: dict | None = None,
    progress: bool = False,
) -> EfficientResult:
    """Both studies, their files and figures under ``out`` (an existing directory).

    Args:
      settings: what to measure.
      out: the output directory.
      runs: trained models whose activations the error study also reads.
      checked: :func:`check_budgets`'s result, recorded in ``cost.json`` (None: checked here,
        refusing a run over budget).
      progress: show progress bars.
    Returns:
      an :class:`EfficientResult`.
    """
    from transformer_theory.progress import tqdm

    s = settings
    _check_order(s)
    if checked is None:
        checked = check_budgets(s)
    sizes = lengths(s.min_len, s.max_len)
    approx = s.approximations
    errors: list[dict] = []
    for label, q, k, v in tqdm(error_sources(s, runs), desc="errors", disable=not progress or None):
        errors += efficient.error_vs_budget(q, k, v, variants=approx, seed=s.seed, label=label)
    bar = tqdm(total=len(sizes) * len(s.variants), desc="cost", disable=not progress or None)

    def tick(rec: dict) -> None:
        bar.update(1)
        bar.set_postfix(variant=rec["variant"], n=rec["n"])

    cost = efficient.cost_vs_length(
        sizes, variants=s.variants, dim=s.dim, repeats=s.repeats, on_record=tick
    )
    bar.close()
    fit_from = min(1024, sizes[-1] // 2 or 1)
    slopes = efficient.fit_slopes(cost, min_n=fit_from, min_points=MIN_SLOPE_POINTS)
    where = machine()
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
        jsonio.write_json(os.path.join(out, "cost.json"), record),
        jsonio.write_csv(os.path.join(out, "cost.csv"), cost),
    ]
    figures = [plots.cost_vs_length(cost, slopes, os.path.join(out, "cost.png"), fit_from=fit_from)]
    if approx:
        files.append(jsonio.write_json(os.path.join(out, "errors.json"), errors))
        files.append(jsonio.write_csv(os.path.join(out, "errors.csv"), errors))
        figures.append(plots.error_vs_budget(errors, os.path.join(out, "errors.png")))
    return EfficientResult(sizes, cost, slopes, errors, where, files, figures)


def summary_rows(result: EfficientResult) -> list[dict]:
    """One row per variant at the longest length: milliseconds per call (median), XLA's MiB and
    the fitted slopes of time and memory (``"n/a"`` where a variant has none)."""

    def slope(variant: str, key: str) -> str:
        value = result.slopes.get(variant, {}).get(key)
        return "n/a" if value is None else f"{value:.2f}"

    return [
        {
            "variant": r["variant"],
            "budget": r["budget"],
            "ms per call": r["seconds"] * 1e3,
            "XLA MiB": r.get("xla_bytes", 0) / 2**20,
            "slope time": slope(r["variant"], "seconds"),
            "slope memory": slope(r["variant"], "xla_bytes"),
        }
        for r in result.cost
        if r["n"] == result.lengths[-1]
    ]
