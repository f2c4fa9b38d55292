"""The studies behind ``transformer-theory collapse`` and ``transformer-theory oversquash``: a grid
of random causal Pre-LN models (Barbero et al. 2024, §2), each measured and written as it finishes.

- :class:`CollapseSettings` -> :func:`run_collapse`: for every model of the grid and every
  precision, ``||y_n - y'_{n+1}||`` by length, the first bit-identical length, the rates and the
  verdict (:func:`~.collapse.model_record`); ``collapse.json`` is rewritten after each model
  (valid JSON at every moment), a run with the same settings resumes from the finished models
  (one with other settings is refused, :class:`SettingsDiffer`, unless told to start fresh), and
  ``collapse.png`` is drawn at the end.
- :class:`OversquashSettings` -> :func:`run_oversquash`: per model, the exact sensitivities of the
  last token, the attention-path weights, the path counts and the certified bound
  (:func:`~.oversquash.oversquash_record`); ``oversquash.json`` after each model (resumed and
  refused the same way), then ``oversquash.png``.
- :func:`model_grid`, :func:`check_model_size`, :func:`check_collapse_memory`,
  :func:`check_oversquash_memory`: the grid and the memory it needs, checked before any work
  (:class:`~transformer_theory.budget.BudgetError` names the command-line options to lower).
- :func:`collapse_summary`, :func:`oversquash_summary`: one flat row per model for a table.

Float64 runs need ``jax.config.update("jax_enable_x64", True)`` first (the commands do it). A
Ctrl-C during a model raises :class:`Interrupted` (a ``KeyboardInterrupt``) after the finished
models were written; the model it arrived in is dropped, never saved half-done.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Callable, Sequence

import numpy as np

from transformer_theory import jsonio
from transformer_theory.papers.barbero2024 import collapse, oversquash
from transformer_theory.papers.barbero2024.models import (
    POSITIONAL,
    causal_pre_ln_config,
    model_bytes,
    random_model,
)
from transformer_theory.params import ModelConfig

__all__ = [
    "MAX_LEN",
    "CollapseSettings",
    "GridModel",
    "Interrupted",
    "OversquashSettings",
    "SettingsDiffer",
    "StudyResult",
    "check_collapse_memory",
    "check_model_size",
    "check_oversquash_memory",
    "check_resumable",
    "collapse_summary",
    "finished_models",
    "model_grid",
    "oversquash_summary",
    "run_collapse",
    "run_oversquash",
]

#: The largest length a collapse run may ask for (memory is checked against the machine besides).
MAX_LEN = 16384
# The options a refusal names (the commands' flags): what to lower.
MODEL_OPTIONS = "--depth/--heads/--width"
COLLAPSE_OPTIONS = "--max-len/--heads/--width"
OVERSQUASH_OPTIONS = "--length/--width/--depth/--heads"

Guard = Callable[[], contextlib.AbstractContextManager]


def _distinct(name: str, values: Sequence) -> None:
    repeated = sorted({v for v in values if list(values).count(v) > 1}, key=str)
    if repeated:
        raise ValueError(f"{name}: {', '.join(map(str, repeated))} given more than once")


def _grid_fields(settings: CollapseSettings | OversquashSettings) -> None:
    for name in ("depths", "heads", "positionals", "seeds"):
        values = getattr(settings, name)
        if not values:
            raise ValueError(f"{name}: expected at least one value")
        _distinct(name, values)  # a repeated value would measure one model twice under one name
    for name in ("depths", "heads"):
        if min(getattr(settings, name)) < 1:
            raise ValueError(f"{name}: expected integers >= 1, got {getattr(settings, name)}")
    if min(settings.seeds) < 0 or max(settings.seeds) >= 2**32:
        raise ValueError(f"seeds: expected integers in 0..2**32 - 1, got {settings.seeds}")
    for p in settings.positionals:
        if p not in POSITIONAL:
            raise ValueError(f"positionals: unknown {p!r}; choose from {', '.join(POSITIONAL)}")
    if settings.pattern not in collapse.PATTERNS:
        raise ValueError(
            f"pattern: unknown {settings.pattern!r}; choose from {', '.join(collapse.PATTERNS)}"
        )
    if settings.width < 1:
        raise ValueError(f"width: expected a positive integer, got {settings.width}")


def _text(values: Sequence[int]) -> str:
    # the record keeps a grid axis as the command line writes it ("1,2"), as it always has
    return ",".join(str(v) for v in values)


@dataclasses.dataclass(frozen=True)
class CollapseSettings:
    """One collapse run: the grid of models and how each is measured.

    Attributes:
      depths, heads, positionals, seeds: the grid (every combination is one model; distinct
        values). ``positionals`` from :data:`~.models.POSITIONAL`.
      max_len, points: the pattern lengths, :func:`~.collapse.length_grid` ``(max_len, points)``
        (``2 <= max_len <=`` :data:`MAX_LEN`, ``points <= max_len - 1``).
      precisions: from :data:`~.collapse.PRECISIONS`; the model runs entirely in each.
      pattern, separator_every: the sequence ``v`` (:func:`~.collapse.pattern_tokens`).
      width: the models' ``d'``.
    """

    depths: tuple[int, ...] = (1, 2)
    heads: tuple[int, ...] = (1,)
    positionals: tuple[str, ...] = POSITIONAL
    seeds: tuple[int, ...] = (0,)
    max_len: int = 4096
    points: int = 16
    precisions: tuple[str, ...] = collapse.PRECISIONS
    pattern: str = "ones_zero"
    separator_every: int | None = None
    width: int = 32

    def __post_init__(self) -> None:
        for name in ("depths", "heads", "positionals", "seeds", "precisions"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        _grid_fields(self)
        if not self.precisions:
            raise ValueError("precisions: expected at least one precision")
        _distinct("precisions", self.precisions)
        for p in self.precisions:
            if p not in collapse.PRECISIONS:
                raise ValueError(
                    f"precisions: unknown {p!r}; choose from {', '.join(collapse.PRECISIONS)}"
                )
        if not 2 <= self.max_len <= MAX_LEN:
            raise ValueError(f"max_len: expected 2..{MAX_LEN}, got {self.max_len}")
        if not 1 <= self.points <= self.max_len - 1:
            raise ValueError(
                f"points: expected 1..{self.max_len - 1} (distinct lengths in 2..max_len), got "
                f"{self.points}"
            )
        if self.separator_every is not None and self.separator_every < 1:
            raise ValueError(f"separator_every: expected >= 1, got {self.separator_every}")

    def lengths(self) -> list[int]:
        """The pattern lengths ``n`` measured."""
        return collapse.length_grid(self.max_len, self.points)

    def tokens(self) -> int:
        """Tokens of the longest ``v`` (separators included)."""
        longest = self.lengths()[-1]
        return len(
            collapse.pattern_tokens(self.pattern, longest, separator_every=self.separator_every)
        )

    def record(self) -> dict:
        """The ``settings`` block of ``collapse.json`` (a resumed run must match it exactly)."""
        return dict(
            depth=_text(self.depths),
            heads=_text(self.heads),
            positional=list(self.positionals),
            seeds=_text(self.seeds),
            max_len=self.max_len,
            points=self.points,
            lengths=self.lengths(),
            precisions=list(self.precisions),
            pattern=self.pattern,
            separator_every=self.separator_every,
            width=self.width,
        )


@dataclasses.dataclass(frozen=True)
class OversquashSettings:
    """One over-squashing run: the grid of float64 models and the input they read.

    Attributes:
      depths, heads, positionals, seeds, width: the grid (as :class:`CollapseSettings`).
      length: tokens of the input (at least 5: the early/late ratios compare quarters).
      pattern: the input, :func:`~.collapse.pattern_tokens` ``(pattern, length)``.
      bound: also compute the certified bound (its ``(H, n, n, D, D)`` blocks cost memory).
    """

    depths: tuple[int, ...] = (1, 2, 4)
    heads: tuple[int, ...] = (1,)
    positionals: tuple[str, ...] = ("rope",)
    seeds: tuple[int, ...] = (0,)
    length: int = 48
    pattern: str = "random"
    width: int = 24
    bound: bool = True

    def __post_init__(self) -> None:
        for name in ("depths", "heads", "positionals", "seeds"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        _grid_fields(self)
        if self.length < 5:
            raise ValueError(f"length: expected at least 5 tokens (quarters), got {self.length}")

    def tokens(self) -> np.ndarray:
        """The input's token ids."""
        return collapse.pattern_tokens(self.pattern, self.length)

    def record(self) -> dict:
        """The ``settings`` block of ``oversquash.json``."""
        return dict(
            depth=_text(self.depths),
            heads=_text(self.heads),
            positional=list(self.positionals),
            seeds=_text(self.seeds),
            length=self.length,
            pattern=self.pattern,
            width=self.width,
            bound=self.bound,
            tokens=self.tokens().tolist(),
        )


@dataclasses.dataclass(frozen=True)
class GridModel:
    """One model of a grid: ``name`` (``L{depth}_H{heads}_{positional}_seed{seed}``), its
    ``labels`` (``depth``, ``heads``, ``positional``, ``seed``) and its ``config``."""

    name: str
    labels: dict
    config: ModelConfig


@dataclasses.dataclass(frozen=True)
class StudyResult:
    """What a finished run returns: the ``record`` written to ``json_path`` and the figure's
    ``figure_path``."""

    record: dict
    json_path: str
    figure_path: str


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run, after ``finished`` of ``total`` models were written to ``path``."""

    def __init__(self, finished: int, total: int, path: str) -> None:
        super().__init__(f"{finished} of {total} model(s) finished and saved in {path}")
        self.finished, self.total, self.path = finished, total, path


class SettingsDiffer(ValueError):
    """``path`` holds a run with other settings than the one asked: ``setting`` (a key of the
    settings block, e.g. ``max_len``) is the first that differs, ``recorded`` its value there and
    ``asked`` the new one (both None when the file cannot be read as a run)."""

    def __init__(self, path: str, setting: str | None, recorded: object, asked: object) -> None:
        if setting is None:
            text = f"{path} exists but is not a run's record (unreadable or without settings)"
        else:
            text = (
                f"{path} holds a run with other settings ({setting}: {recorded} there, {asked} "
                "asked)"
            )
        super().__init__(text)
        self.path, self.setting, self.recorded, self.asked = path, setting, recorded, asked


def check_model_size(depth: int, heads: int, width: int) -> float:
    """Refuse (BudgetError naming ``--depth/--heads/--width``) a grid whose largest model cannot be
    held, from its sizes alone (:func:`~.models.model_bytes`): BEFORE any config is built, since
    the config of ``depth = 10^12`` is itself a tuple of ``10^12`` head counts. Returns the
    estimate in bytes."""
    from transformer_theory import budget

    estimate = model_bytes(depth, heads, width=width)
    return budget.check_memory(
        float(estimate) if estimate < 2**1000 else float("inf"),  # float(10^400) overflows
        what=f"the float64 model of {depth} layer(s) x {heads} head(s) at width {width}",
        option=MODEL_OPTIONS,
    )


def model_grid(settings: CollapseSettings | OversquashSettings) -> list[GridModel]:
    """Every model of the grid (depth, then heads, positional code, seed), its size checked first
    (:func:`check_model_size`); a ValueError from a config names the field (``width`` too
    small for a code, ...)."""
    check_model_size(max(settings.depths), max(settings.heads), settings.width)
    grid = []
    for depth in settings.depths:
        for heads in settings.heads:
            for pos in settings.positionals:
                cfg = causal_pre_ln_config(depth, heads, pos, width=settings.width)
                for seed in settings.seeds:
                    labels = dict(depth=depth, heads=heads, positional=pos, seed=seed)
                    grid.append(GridModel(f"L{depth}_H{heads}_{pos}_seed{seed}", labels, cfg))
    return grid


def _largest_per_code(grid: Sequence[GridModel]) -> list[ModelConfig]:
    """The config of the largest (depth, heads) per positional code: one compile each."""
    biggest: dict[str, ModelConfig] = {}
    for model in grid:
        key, cfg = model.labels["positional"], model.config
        if key not in biggest or (cfg.depth, max(cfg.heads)) > (
            biggest[key].depth,
            max(biggest[key].heads),
        ):
            biggest[key] = cfg
    return list(biggest.values())


def check_collapse_memory(settings: CollapseSettings, grid: Sequence[GridModel]) -> float:
    """Refuse (BudgetError naming ``--max-len/--heads/--width``) a run whose longest measurement
    would not fit in memory: a floor without compiling first (refuses the hopeless at once), then
    XLA's account of one compile per positional code, at the grid's largest depth and heads, the
    longest input and the widest precision. Returns the estimate in bytes."""
    from transformer_theory import budget

    widest = max(settings.precisions, key=lambda p: collapse.check_precision(p).itemsize)
    tokens = settings.tokens()
    configs = _largest_per_code(grid)
    what = f"the longest measurement ({tokens} tokens, {widest})"
    for compiled in (False, True):
        estimate = max(
            collapse.measurement_bytes(c, tokens, widest, compiled=compiled) for c in configs
        )
        budget.check_memory(estimate, what=what, option=COLLAPSE_OPTIONS)
    return estimate


def check_oversquash_memory(settings: OversquashSettings, grid: Sequence[GridModel]) -> float:
    """Refuse (BudgetError naming ``--length/--width/--depth/--heads``, and ``--no-bound`` with
    the bound) a run whose largest program would not fit: the floor is ``sum(heads) n^2`` (and
    ``max(heads) n^2 D^2`` for the bound), then XLA's account. Returns the estimate in bytes."""
    from transformer_theory import budget

    option = OVERSQUASH_OPTIONS + (" (or --no-bound)" if settings.bound else "")
    configs = _largest_per_code(grid)
    for compiled in (False, True):
        estimate = max(
            oversquash.record_bytes(c, settings.length, bound=settings.bound, compiled=compiled)
            for c in configs
        )
        budget.check_memory(
            estimate,
            what=f"the largest program (Jacobians, path products) at n = {settings.length}",
            option=option,
        )
    return estimate


def check_resumable(path: str, settings: dict) -> None:
    """Nothing when there is no ``path`` or it records a run with these ``settings`` (its
    ``record()``): a run there resumes. Else :class:`SettingsDiffer` naming the first setting
    that differs, so that finished work is never overwritten by a run that did not ask to."""
    if not os.path.exists(path):
        return
    try:
        recorded = jsonio.read_json(path).get("settings")
    except (OSError, ValueError, AttributeError):
        recorded = None
    if not isinstance(recorded, dict):
        raise SettingsDiffer(path, None, None, None)
    for key in dict.fromkeys([*settings, *recorded]):
        if recorded.get(key) != settings.get(key):
            raise SettingsDiffer(path, key, recorded.get(key), settings.get(key))


#: The fields every finished model record holds, by study (a model missing one is measured
#: again on resume, not read back to fail later with a ``KeyError``).
MODEL_FIELDS = {
    "collapse": ("name", "lengths", "precisions", "rate", "asymptotic", "verdict",
                 "predicted_limit", "seconds"),
    "oversquash": ("name", "depth", "length", "sensitivity", "sensitivity_final", "path_weight",
                   "path_weight_residual", "path_count", "early_late_ratio"),
}  # fmt: skip


def finished_models(path: str, settings: dict, study: str = "collapse") -> dict[str, dict]:
    """The models an earlier run with the same ``settings`` (its ``record()``) finished, by name;
    none when there is no such file, it cannot be read, or its settings differ. A model record
    that lacks one of ``MODEL_FIELDS[study]`` (or, for collapse, a precision of ``settings``) is
    not finished: it is left out, to be measured again."""
    if not os.path.exists(path):
        return {}
    try:
        record = jsonio.read_json(path)
    except (OSError, ValueError):
        return {}
    if not isinstance(record, dict) or record.get("settings") != settings:
        return {}
    precisions = settings.get("precisions", []) if study == "collapse" else []

    def finished(m: object) -> bool:
        if not isinstance(m, dict) or not all(k in m for k in MODEL_FIELDS[study]):
            return False
        return not precisions or (
            isinstance(m["precisions"], dict) and all(p in m["precisions"] for p in precisions)
        )

    models = record.get("models")
    return {m["name"]: m for m in (models if isinstance(models, list) else []) if finished(m)}


def _measure_grid(
    grid: Sequence[GridModel],
    measure: Callable[[GridModel], dict],
    path: str,
    settings: dict,
    *,
    done: dict[str, dict],
    on_model: Callable[[dict], None] | None,
) -> dict:
    """``measure`` every model of ``grid`` not in ``done`` (finished models, by name, kept as
    they are), rewriting ``path`` after each; ``seconds`` counts the finished models' own. A
    Ctrl-C raises :class:`Interrupted` with the models written so far."""
    t0 = time.perf_counter()
    earlier = sum(m.get("seconds", 0.0) for m in done.values())
    models: list[dict] = []

    def save(complete: bool) -> dict:
        elapsed = round(earlier + time.perf_counter() - t0, 1)
        record = dict(settings=settings, complete=complete, seconds=elapsed, models=models)
        jsonio.write_json(path, record)
        return record

    try:
        for model in grid:
            if model.name in done:
                models.append(done[model.name])
                continue
            models.append(measure(model))
            save(complete=False)
            if on_model is not None:
                on_model(models[-1])
        return save(complete=True)
    except KeyboardInterrupt:
        raise Interrupted(len(models), len(grid), path) from None


def run_collapse(
    settings: CollapseSettings,
    out_dir: str,
    *,
    grid: Sequence[GridModel] | None = None,
    progress: bool = False,
    guard: Guard = contextlib.nullcontext,
    on_model: Callable[[dict], None] | None = None,
    fresh: bool = False,
) -> StudyResult:
    """Measure every model of the grid; write ``collapse.json`` after each and ``collapse.png``.

    Args:
      settings: the run.
      out_dir: an existing directory; a ``collapse.json`` there with the same settings is resumed
        (its finished models are kept, not measured again); one with other settings is refused
        (:class:`SettingsDiffer`) unless ``fresh``.
      grid: :func:`model_grid` ``(settings)`` when already built (and checked).
      progress: a progress bar per model (to a terminal only).
      guard: a context manager factory entered around each JAX call (the command passes one
        that holds Ctrl-C until the call returns).
      on_model: called with each newly measured model's record once it is written.
      fresh: start over, measuring every model and overwriting any ``collapse.json`` there.
    Returns:
      :class:`StudyResult`; the record holds ``settings`` (:meth:`CollapseSettings.record`),
      ``complete``, ``seconds`` and ``models`` (labels, :func:`~.collapse.model_record`,
      ``seconds``).
    Raises:
      Interrupted: on Ctrl-C, the finished models written.
      SettingsDiffer: ``collapse.json`` records other settings (and not ``fresh``).
    """
    grid = model_grid(settings) if grid is None else list(grid)
    block = settings.record()
    path = os.path.join(out_dir, "collapse.json")
    lengths = settings.lengths()

    def measure(model: GridModel) -> dict:
        t1 = time.perf_counter()
        with guard():
            params = random_model(model.config, model.labels["seed"])
        rec = collapse.model_record(
            params,
            model.name,
            lengths,
            settings.precisions,
            pattern=settings.pattern,
            separator_every=settings.separator_every,
            progress=progress,
            guard=guard,
        )
        return dict(model.labels, **rec, seconds=round(time.perf_counter() - t1, 1))

    if not fresh:
        check_resumable(path, block)
    done = {} if fresh else finished_models(path, block)
    record = _measure_grid(grid, measure, path, block, done=done, on_model=on_model)
    from transformer_theory.papers.barbero2024.plots import plot_collapse

    figure = plot_collapse(record, os.path.join(out_dir, "collapse.png"))
    return StudyResult(record, path, figure)


def run_oversquash(
    settings: OversquashSettings,
    out_dir: str,
    *,
    grid: Sequence[GridModel] | None = None,
    guard: Guard = contextlib.nullcontext,
    on_model: Callable[[dict], None] | None = None,
    fresh: bool = False,
) -> StudyResult:
    """Measure every model of the grid in float64; write ``oversquash.json`` after each model and
    ``oversquash.png`` at the end.

    Args:
      settings: the run.
      out_dir: an existing directory; an ``oversquash.json`` there with the same settings is
        resumed, one with other settings refused (:class:`SettingsDiffer`) unless ``fresh``.
      grid: :func:`model_grid` ``(settings)`` when already built (and checked).
      guard: a context manager factory entered around each model's computation.
      on_model: called with each newly measured model's record once it is written.
      fresh: start over, measuring every model and overwriting any ``oversquash.json`` there.
    Returns:
      :class:`StudyResult`; the record holds ``settings`` (:meth:`OversquashSettings.record`),
      ``complete``, ``seconds`` and ``models`` (labels, ``name`` and
      :func:`~.oversquash.oversquash_record`).
    Raises:
      Interrupted: on Ctrl-C, the finished models written.
      SettingsDiffer: ``oversquash.json`` records other settings (and not ``fresh``).
    """
    from transformer_theory.core.positional import embed_long

    grid = model_grid(settings) if grid is None else list(grid)
    tokens = settings.tokens()

    def measure(model: GridModel) -> dict:
        with guard():
            params = random_model(model.config, model.labels["seed"])
            emb = embed_long(model.config, tokens, dtype=params.w_o.dtype)
            rec = oversquash.oversquash_record(params, emb, bound=settings.bound)
        return dict(model.labels, name=model.name, **rec)

    path = os.path.join(out_dir, "oversquash.json")
    block = settings.record()
    if not fresh:
        check_resumable(path, block)
    done = {} if fresh else finished_models(path, block, "oversquash")
    record = _measure_grid(grid, measure, path, block, done=done, on_model=on_model)
    from transformer_theory.papers.barbero2024.plots import plot_oversquash

    figure = plot_oversquash(record, os.path.join(out_dir, "oversquash.png"))
    return StudyResult(record, path, figure)


def collapse_summary(model: dict) -> dict:
    """One row per collapse model: ``name``, ``verdict``, the tail it is read from, the derived
    and the measured ``K = lim n ||y_n - y'_{n+1}||`` (None where there is none), and per
    precision the first bit-identical length (``<precision> identical``)."""
    asym, rate = model["asymptotic"], model["rate"]
    row = dict(
        name=model["name"],
        verdict=model["verdict"],
        tail=None if asym["slope"] is None else f"{asym['tail_from']}..{asym['tail_to']}",
        K_derived=model["predicted_limit"],
        K_measured=rate["constant"] if model["predicted_limit"] is not None else None,
    )
    for prec, rec in model["precisions"].items():
        row[f"{prec} identical"] = rec["first_identical"]
    return row


def oversquash_summary(model: dict) -> dict:
    """One row per over-squashing model: the first/last-quarter ratios of ``||dy_n/dv_i||``, of
    the path weights and of the residual path weights, and (with the bound) whether it holds and
    the largest sensitivity/bound ratio."""
    row = dict(
        name=model["name"],
        sensitivity_ratio=model["early_late_ratio"],
        path_ratio=model["path_early_late_ratio"],
        residual_path_ratio=model["residual_path_early_late_ratio"],
    )
    if "bound_holds" in model:
        row.update(bound_holds=model["bound_holds"], bound_ratio_max=model["bound_ratio_max"])
    return row
