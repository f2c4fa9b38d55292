"""Efficient attention against exact attention (Conti 2024, §2.1): the cost of every variant
against the sequence length, and the output error of each approximation against its budget.

Commands (the first is the one README quotes; ``--size smoke`` is a run of seconds)::

    transformer-theory efficient-attention --max-len 16384 --out results/efficient_attention
    transformer-theory experiment efficient_attention --size smoke

:class:`EfficientSettings` are the command's options; :func:`run` reads as the study: the budgets
checked before any work (:func:`check_budgets`, from :mod:`.._theory_cost`'s estimates, naming
the option to lower), the error of each approximation against exact attention on random inputs
and on trained models' activations (:func:`.._models_efficient.error_vs_budget`), the cost of
every variant against the sequence length (:func:`.._models_efficient.cost_vs_length`), the
records (``cost.json``, ``cost.csv`` and, when an approximation is selected, ``errors.json``,
``errors.csv``) and the figures (``cost.png``, ``errors.png``). With ``jl``, :func:`run_jl`:
Linformer's random projection as the thesis writes it (:mod:`.._theory_linformer`)::

    settings = EfficientSettings(variants=("sliding_window", "dense"), max_len=1024)
    result = run(settings, "results/efficient_attention")
    summary_rows(result)  # one row per variant at the longest length
"""

from __future__ import annotations

import dataclasses
import os
import platform
from collections.abc import Callable, Sequence

import numpy as np

from transformer_theory import _validate, budget, jsonio
from transformer_theory.papers.conti2024 import _models_efficient as efficient
from transformer_theory.papers.conti2024 import _plots as plots
from transformer_theory.papers.conti2024 import _theory_cost as estimates
from transformer_theory.papers.conti2024._models_trained import LoadedRun
from transformer_theory.settings import OptionError, flag_of, setting

__all__ = [
    "DEFAULTS",
    "SIZES",
    "MIN_SLOPE_POINTS",
    "EfficientResult",
    "EfficientSettings",
    "JLResult",
    "Machine",
    "check_budgets",
    "check_memory",
    "check_seconds",
    "error_sources",
    "lengths",
    "machine",
    "get_config",
    "read_runs",
    "run",
    "run_jl",
    "summary_rows",
    "trained_inputs",
]

#: ``jl``'s references (Linformer's projection, exact attention) are float64: the entry point
#: (``experiment``, the command) turns 64-bit mode on.
X64 = True
DEFAULT_EXAMPLES = 32
MIN_SLOPE_POINTS = 3  # a slope through two points has no check on the power law

# Inputs of the error study: (label, q_BxNxE, k_BxNxE, v_BxNxD).
Source = tuple[str, np.ndarray, np.ndarray, np.ndarray]


# The cost and error study's fields, which --jl does not read.
_STUDY_FIELDS = ("max_len", "min_len", "dim", "repeats", "variants", "error_len", "error_batch")


@dataclasses.dataclass(frozen=True)
class EfficientSettings:
    """What one ``efficient-attention`` run measures (the command's options are its fields).

    Attributes:
      variants: comma list of variants, or all: sliding_window, dilated_window, longformer,
        bigbird, linformer, performer, linear_elu, taylor, dense, window_dense_mask; the
        approximations among them enter the error study, all enter the cost study.
      min_len: shortest sequence timed.
      max_len: longest sequence timed (the cost study times min_len, 2 min_len, ..., max_len).
      dim: query/key/value width (even: the 'local' inputs use a sinusoidal code).
      repeats: timed calls per point.
      error_len: sequence length of the random inputs of the error study.
      error_batch: random input draws per kind in the error study.
      runs: also measure the error on a trained model's activations (a run or experiment
        directory of `transformer-theory train` or of the encoder-decoder experiment); repeat
        for several.
      examples: held-out inputs per trained model, at most the run's held-out set (none: 32, or
        16 with --jl); only with --run.
      seed: PRNG seed of the random inputs and the random variants.
      jl: instead: Linformer's random (Johnson-Lindenstrauss) projection as Conti 2024 writes it
        -- the rank needed against n (64..1024), the output error against the rank, and with
        --run the same on trained attention (jl.json, jl.png); reads --run, --examples, --seed,
        --out only.
    """

    variants: tuple[str, ...] = setting(tuple(efficient.VARIANTS))
    min_len: int = setting(256, positive=True)
    max_len: int = setting(16384, positive=True)
    dim: int = setting(64, positive=True)
    repeats: int = setting(3, positive=True)
    error_len: int = setting(512, positive=True)
    error_batch: int = setting(8, positive=True)
    runs: tuple[str, ...] = setting((), flag="--run", words=True)
    examples: int | None = setting(None, positive=True)
    seed: int = 0
    jl: bool = False

    def __post_init__(self) -> None:
        every = tuple(self.variants) == ("all",)  # the command line's word for every variant
        object.__setattr__(self, "variants", tuple(efficient.VARIANTS if every else self.variants))
        object.__setattr__(self, "runs", tuple(self.runs))
        if not self.variants:
            raise ValueError("variants: expected at least one variant, got none")
        for name in self.variants:
            _validate.check_choice("variants", name, tuple(efficient.VARIANTS))
        for name in ("min_len", "max_len", "dim", "repeats", "error_len", "error_batch"):
            _validate.check_int_arg(name, getattr(self, name))
        if self.examples is not None:
            _validate.check_int_arg("examples", self.examples)
        _validate.check_seed("seed", self.seed)
        if self.max_len < self.min_len:
            raise ValueError(
                f"max_len: must be at least --min-len = {self.min_len}, got {self.max_len}"
            )
        if self.dim % 2:
            raise ValueError(
                f"dim: the 'local' inputs use a sinusoidal code; expected even, got {self.dim}"
            )
        if self.examples is not None and not self.runs:
            raise ValueError(
                "examples: applies to trained models given with --run only, and no --run was "
                "given (it would be ignored)"
            )
        if self.jl:
            for f in dataclasses.fields(self):
                if f.name in _STUDY_FIELDS and getattr(self, f.name) != f.default:
                    raise ValueError(
                        f"{f.name}: not used with --jl (it would be ignored); drop it or run "
                        "without --jl"
                    )

    @property
    def approximations(self) -> list[str]:
        """The selected variants that approximate attention (the error study's)."""
        return [v for v in self.variants if v in efficient.APPROXIMATIONS]

    def trained_examples(self) -> int:
        """Held-out inputs per trained model: ``examples``, else 16 with ``jl``, else 32."""
        return self.examples or (16 if self.jl else DEFAULT_EXAMPLES)

    def replace(self, **changes: object) -> EfficientSettings:
        """A copy with ``changes`` (validated again)."""
        return dataclasses.replace(self, **changes)


# The defaults of the size options: the "usual value" an over-budget option is measured against.
DEFAULTS = EfficientSettings()

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> EfficientSettings:
    """The study at ``size``: ``"default"`` (the command's defaults) or ``"smoke"`` (lengths 256
    and 512, short random inputs, one timed call per point: seconds).

    Raises:
      ValueError: naming ``size`` when it is not one of :data:`SIZES`.
    """
    if size not in SIZES:
        raise ValueError(f"size: expected one of {', '.join(SIZES)}, got {size!r}")
    if size == "smoke":
        return EfficientSettings(max_len=512, repeats=1, error_len=64, error_batch=2)
    return EfficientSettings()


def lengths(min_len: int, max_len: int) -> list[int]:
    """``min_len, 2 min_len, 4 min_len, ...`` below ``max_len``, then ``max_len``."""
    _validate.check_int_arg("min_len", min_len)
    _validate.check_int_arg("max_len", max_len)
    out, n = [], min_len
    while n < max_len:
        out.append(n)
        n *= 2
    return out + [max_len]


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

    def fits_at_default(f: str) -> bool:
        try:
            return fits(s.replace(**{f: getattr(DEFAULTS, f)}))
        except ValueError:  # the default is out of order with another option (max_len < min_len)
            return False

    alone = [f for f in above if fits_at_default(f)]
    return "/".join(flag_of(EfficientSettings, f) for f in (alone or above or fields))


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


def check_budgets(settings: EfficientSettings) -> dict:
    """:func:`check_memory`, then :func:`check_seconds`, before any work.

    Returns:
      ``{"memory": <check_memory's estimates>, "seconds": <the lower bound>}``.
    """
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
    ``local``; :func:`._models_efficient.random_inputs`), then every trained run's activations
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
        for name, q, k, v in trained_inputs(runs, s.trained_examples())
    ]
    for label, q, _, _ in trained:  # before any error work
        est = estimates.error_study_bytes(q.shape[1], q.shape[2], q.shape[0], approx)
        budget.check_memory(
            max(est.values()), what=f"the error study on {label}", option="--examples"
        )
    return sources + trained


@dataclasses.dataclass(frozen=True)
class Machine:
    """Where the costs were measured (``cost.json``'s ``machine``)."""

    backend: str
    devices: tuple[str, ...]
    cpu_count: int | None
    platform: str


def machine() -> Machine:
    """Where the costs were measured: JAX's backend and devices, CPU count, platform."""
    import jax

    return Machine(
        backend=jax.default_backend(),
        devices=tuple(str(d) for d in jax.devices()),
        cpu_count=os.cpu_count(),
        platform=platform.platform(),
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
    """What :func:`run_study` measured and wrote.

    Attributes:
      lengths: the lengths timed.
      cost: :func:`._models_efficient.cost_vs_length`'s records.
      slopes: :func:`._models_efficient.fit_slopes` of ``cost`` over
        ``n >= min(1024, max_len / 2)``, through at least :data:`MIN_SLOPE_POINTS` lengths (a
        variant with fewer is left out).
      errors: :func:`._models_efficient.error_vs_budget`'s records on every source (empty without an
        approximation).
      machine: :func:`machine`, where the costs were measured.
      files: the JSON and CSV files written; figures: the PNG files.
    """

    lengths: list[int]
    cost: list[dict]
    slopes: dict[str, dict[str, float]]
    errors: list[dict]
    machine: Machine
    files: list[str]
    figures: list[str]


def read_runs(settings: EfficientSettings) -> list[LoadedRun]:
    """The trained models of ``settings.runs`` (:func:`.._models_trained.read_runs`); a
    directory that holds none is refused naming ``--run`` (``settings.OptionError``)."""
    from transformer_theory.papers.conti2024._models_trained import read_runs as read
    from transformer_theory.sweeps import ExperimentError
    from transformer_theory.train import RunDirectoryError

    runs: list[LoadedRun] = []
    for path in settings.runs:
        if not os.path.isdir(path):
            raise OptionError("--run", f"{path} is not a directory")
        try:
            runs += read(path)
        except (ExperimentError, RunDirectoryError) as err:
            raise OptionError("--run", str(err)) from None
    return runs


def run_jl(settings: EfficientSettings, out_dir: str, runs: Sequence[LoadedRun] = ()) -> JLResult:
    """``--jl``: :func:`._theory_linformer.jl_study` on random inputs and on ``runs``' trained
    attention, written to ``jl.json`` and drawn in ``jl.png`` (the result's ``files``)."""
    from transformer_theory.papers.conti2024 import _theory_linformer as linformer

    qkv = trained_inputs(runs, settings.trained_examples()) if runs else []
    found = linformer.jl_study(qkv=qkv, seed=settings.seed)
    record = jsonio.as_record(JLResult, found)
    files = (
        jsonio.write_json(os.path.join(out_dir, "jl.json"), record),
        plots.jl_figure(found, os.path.join(out_dir, "jl.png")),
    )
    return dataclasses.replace(record, files=files)


def run(
    config: EfficientSettings,
    out_dir: str,
    *,
    progress: bool = True,
    runs: Sequence[LoadedRun] | None = None,
    checked: dict | None = None,
) -> EfficientResult | JLResult:
    """Both studies, their files and figures under ``out_dir`` (an existing directory): budgets
    checked -> errors measured -> costs measured -> records written -> figures drawn; with
    ``config.jl``, :func:`run_jl` instead.

    Args:
      config: what to measure.
      out_dir: the output directory.
      progress: show progress bars.
      runs: the trained models of ``config.runs``, already read (None: :func:`read_runs`).
      checked: :func:`check_budgets`'s result, recorded in ``cost.json`` (None: checked here,
        refusing a run over budget).
    Returns:
      an :class:`EfficientResult` (with ``jl``, :func:`run_jl`'s :class:`JLResult`).
    """
    if config.jl:
        return run_jl(config, out_dir, read_runs(config) if runs is None else runs)
    from transformer_theory.progress import tqdm

    s = config
    if checked is None:
        checked = check_budgets(s)
    if runs is None:
        runs = read_runs(s)
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
        jsonio.write_json(os.path.join(out_dir, "cost.json"), record),
        jsonio.write_csv(os.path.join(out_dir, "cost.csv"), cost),
    ]
    figures = [
        plots.cost_vs_length(cost, slopes, os.path.join(out_dir, "cost.png"), fit_from=fit_from)
    ]
    if approx:
        files.append(jsonio.write_json(os.path.join(out_dir, "errors.json"), errors))
        files.append(jsonio.write_csv(os.path.join(out_dir, "errors.csv"), errors))
        figures.append(plots.error_vs_budget(errors, os.path.join(out_dir, "errors.png")))
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
