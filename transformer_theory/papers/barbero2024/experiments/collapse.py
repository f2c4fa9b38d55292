"""Representational collapse by length and precision over a grid of random causal Pre-LN models
(Barbero et al. 2024, §4): the study behind ``transformer-theory collapse`` (its options are
:class:`CollapseSettings`' fields), also ``transformer-theory experiment collapse --size smoke``.

For every model of the grid and every precision, ``||y_n - y'_{n+1}||`` by length, the first
bit-identical length, the rates and the verdict (:func:`~.._theory_collapse.model_record`);
``collapse.json`` is rewritten after each model (valid JSON at every moment), a run with the same
settings resumes from the finished models (one with other settings is refused,
:class:`~._records.SettingsDiffer`, unless ``fresh``), and ``collapse.png`` is drawn at the end.

Result (README, run A: ``--precision float64 --depth 1,2 --max-len 8192 --points 14``): without
positions and with RoPE every model collapses like ``n^-1``; ALiBi plateaus and the absolute
sinusoidal code does not collapse (the claims ``barbero2024.collapse_*``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Callable, Sequence

from transformer_theory import _validate, budget, jsonio
from transformer_theory.papers.barbero2024 import _plots
from transformer_theory.papers.barbero2024 import _theory_collapse as collapse
from transformer_theory.papers.barbero2024._models import (
    POSITIONAL,
    GridModel,
    check_distinct,
    check_grid,
    largest_per_code,
    random_model,
)
from transformer_theory.papers.barbero2024._tasks import PATTERNS, pattern_tokens
from transformer_theory.papers.barbero2024.experiments._records import (
    CollapseModel,
    CollapseRecord,
    Interrupted,
    SettingsDiffer,
    StudyResult,
    check_resumable,
    finished_models,
    grid_of,
    measure_grid,
    settings_block,
)
from transformer_theory.precision import PRECISIONS
from transformer_theory.settings import setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = [
    "CollapseModel",
    "CollapseRecord",
    "Interrupted",
    "SettingsDiffer",
    "MAX_LEN",
    "SIZES",
    "CollapseSettings",
    "check_memory",
    "get_config",
    "run",
    "summary",
]

#: The largest length a collapse run may ask for (memory is checked against the machine besides).
MAX_LEN = 16384
#: Lengths measured when ``points`` is not given (fewer when ``max_len`` has fewer).
DEFAULT_POINTS = 16
SIZES = ("smoke", "default")
Guard = Callable[[], contextlib.AbstractContextManager]


@dataclasses.dataclass(frozen=True)
class CollapseSettings:
    """One collapse run: the grid of models and how each is measured.

    Attributes:
      depths: layers (every combination of depths, heads, positional codes and seeds is one
        model; distinct values).
      heads: heads per layer.
      positionals: positional codes, a comma list of none, sinusoidal, rope, alibi, or 'all'.
      seeds: model seeds (0..2**32 - 1).
      max_len: the longest pattern length n (2..16384).
      points: lengths measured, ending at max_len; none: 16, or every length when max_len has
        fewer (at most max_len - 1: the lengths are distinct integers from 2).
      precisions: a comma list of float64, float32, bfloat16, or 'all' (the model runs entirely
        in each).
      pattern: the sequence v: ones_zero (1...10), zeros_one, alternating, random.
      separator_every: interleave a separator token after every K tokens (Barbero et al.'s
        remedy).
      width: the models' width d'.
    """

    depths: tuple[int, ...] = setting((1, 2), flag="--depth", metavar="DEPTH")
    heads: tuple[int, ...] = (1,)
    positionals: tuple[str, ...] = setting(POSITIONAL, flag="--positional", metavar="POSITIONAL")
    seeds: tuple[int, ...] = (0,)
    max_len: int = setting(4096, positive=True)
    points: int | None = setting(None, positive=True)
    precisions: tuple[str, ...] = setting(PRECISIONS, flag="--precision", metavar="PRECISION")
    pattern: str = "ones_zero"
    separator_every: int | None = setting(None, positive=True)
    width: int = setting(32, positive=True)

    def __post_init__(self) -> None:
        for name, every in (("positionals", POSITIONAL), ("precisions", PRECISIONS)):
            values = tuple(getattr(self, name))
            object.__setattr__(self, name, every if values == ("all",) else values)
        for name in ("depths", "heads", "seeds"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        check_grid(self.depths, self.heads, self.positionals, self.seeds, self.width)
        if not self.precisions:
            raise ValueError("precisions: expected at least one precision")
        check_distinct("precisions", self.precisions)
        for p in self.precisions:
            _validate.check_choice("precisions", p, PRECISIONS)
        if self.pattern not in PATTERNS:
            raise ValueError(
                f"pattern: unknown {self.pattern!r}; choose from {', '.join(PATTERNS)}"
            )
        if not 2 <= self.max_len <= MAX_LEN:
            raise ValueError(f"max_len: expected 2..{MAX_LEN}, got {self.max_len}")
        lengths = self.max_len - 1
        if self.points is not None and not 1 <= self.points <= lengths:
            raise ValueError(
                f"points: {self.points} lengths asked for, but only {lengths} distinct lengths lie "
                f"in 2..{self.max_len} (max_len); ask for 1..{lengths}"
            )
        if self.separator_every is not None and self.separator_every < 1:
            raise ValueError(f"separator_every: expected >= 1, got {self.separator_every}")

    def point_count(self) -> int:
        """``points``, or when not given :data:`DEFAULT_POINTS` (every length if fewer)."""
        return min(DEFAULT_POINTS, self.max_len - 1) if self.points is None else self.points

    def lengths(self) -> list[int]:
        """The pattern lengths ``n`` measured."""
        return collapse.length_grid(self.max_len, self.point_count())

    def tokens(self) -> int:
        """Tokens of the longest ``v`` (separators included)."""
        v = pattern_tokens(self.pattern, self.lengths()[-1], separator_every=self.separator_every)
        return len(v)

    def record(self) -> dict:
        """The ``settings`` block of ``collapse.json`` (a resumed run must match it exactly)."""
        return settings_block(self, points=self.point_count(), lengths=self.lengths())


def get_config(size: str = "default") -> CollapseSettings:
    """``"smoke"`` (one model, two lengths, float64: seconds) or ``"default"`` (the command's
    defaults: 8 models to n = 4096 in three precisions)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    if size == "smoke":
        return CollapseSettings(depths=(1,), positionals=("none",), max_len=8, points=2)
    return CollapseSettings()


def check_memory(settings: CollapseSettings, grid: Sequence[GridModel]) -> float:
    """Refuse (BudgetError naming ``max_len/heads/width``) a run whose longest measurement
    would not fit in memory: a floor without compiling first (refuses the hopeless at once), then
    XLA's account of one compile per positional code, at the grid's largest depth and heads, the
    longest input and the widest precision. Returns the estimate in bytes."""
    widest = max(settings.precisions, key=lambda p: collapse.check_precision(p).itemsize)
    tokens = settings.tokens()
    configs = largest_per_code(grid)
    what = f"the longest measurement ({tokens} tokens, {widest})"
    option = "max_len/heads/width"
    for compiled in (False, True):
        estimate = max(
            collapse.measurement_bytes(c, tokens, widest, compiled=compiled) for c in configs
        )
        budget.check_memory(estimate, what=what, option=option)
    return estimate


def run(
    config: CollapseSettings,
    out_dir: str,
    *,
    progress: bool = True,
    grid: Sequence[GridModel] | None = None,
    guard: Guard = contextlib.nullcontext,
    on_model: Callable[[CollapseModel], None] | None = None,
    log: Callable[[str], None] | None = None,
    fresh: bool = False,
) -> StudyResult:
    """Measure every model of the grid; write ``collapse.json`` after each and ``collapse.png``.

    Args:
      config: the run's settings.
      out_dir: an existing directory; a ``collapse.json`` there with the same settings is resumed
        (its finished models are kept, not measured again); one with other settings is refused
        (:class:`~._records.SettingsDiffer`) unless ``fresh``.
      progress: a progress bar per model (to a terminal only).
      grid: :func:`~._records.grid_of` ``(config)`` when already built (and checked).
      guard: a context manager factory entered around each JAX call (the command passes one
        that holds Ctrl-C until the call returns).
      on_model: called with each newly measured model's record once it is written (a
        :class:`~._records.CollapseModel`).
      log: called with a line when a run is resumed.
      fresh: start over, measuring every model and overwriting any ``collapse.json`` there.
    Returns:
      :class:`~._records.StudyResult`; its record (a :class:`~._records.CollapseRecord`) holds
      ``settings`` (:meth:`CollapseSettings.record`), ``complete``, ``seconds`` and ``models``
      (labels, :func:`~.._theory_collapse.model_record`, ``seconds``).
    Raises:
      Interrupted: on Ctrl-C, the finished models written.
      SettingsDiffer: ``collapse.json`` records other settings (and not ``fresh``).
      BudgetError: the grid's largest model or longest measurement would not fit in memory.
    """
    grid = grid_of(config) if grid is None else list(grid)
    block, path = config.record(), os.path.join(out_dir, "collapse.json")
    if not fresh:
        check_resumable(path, block)  # before the memory check: it compiles
    check_memory(config, grid)
    done = {} if fresh else finished_models(path, block)
    if done and log is not None:
        log(f"resuming: {len(done)} finished model(s) read from {path}")

    def measure(model: GridModel) -> dict:
        t1 = time.perf_counter()
        with guard():
            params = random_model(model.config, model.labels["seed"])
        rec = collapse.model_record(
            params,
            model.name,
            block["lengths"],
            config.precisions,
            pattern=config.pattern,
            separator_every=config.separator_every,
            progress=progress,
            guard=guard,
        )
        return dict(model.labels, **rec, seconds=round(time.perf_counter() - t1, 1))

    typed = None if on_model is None else lambda m: on_model(jsonio.as_record(CollapseModel, m))
    record = measure_grid(grid, measure, path, block, done=done, on_model=typed)
    figure = _plots.plot_collapse(record, os.path.join(out_dir, "collapse.png"))
    return StudyResult(jsonio.as_record(CollapseRecord, record), path, figure)


def summary(model: CollapseModel) -> dict:
    """One row per model: ``name``, ``verdict``, the tail it is read from, the derived and the
    measured ``K = lim n ||y_n - y'_{n+1}||`` (None where there is none), and per precision the
    first bit-identical length (``<precision> identical``)."""
    asym = model.asymptotic
    row = dict(
        name=model.name,
        verdict=model.verdict,
        tail=None if asym.slope is None else f"{asym.tail_from}..{asym.tail_to}",
        K_derived=model.predicted_limit,
        K_measured=model.rate.constant if model.predicted_limit is not None else None,
    )
    for prec, rec in model.precisions.items():
        row[f"{prec} identical"] = rec.first_identical
    return row
