"""Over-squashing over a grid of random causal Pre-LN models in float64 (Barbero et al. 2024, §5):
the study behind ``transformer-theory oversquash`` (its options are :class:`OversquashSettings`'
fields), also ``transformer-theory experiment oversquash --size smoke``.

Per model, the exact sensitivities of the last token, the attention-path weights, the path counts
and the certified bound (:func:`~.._theory_oversquash.oversquash_record`); ``oversquash.json``
after each model (resumed, and refused to other settings, as ``collapse.json`` is), then
``oversquash.png``.

Result (README: the defaults, RoPE, n = 48, 2 min): the sensitivity weighs early tokens more, the
more so the deeper the model, and the bound holds on every model (the claims
``barbero2024.oversquash_*`` and ``early_tokens_sensitivity``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Sequence

import numpy as np

from transformer_theory import budget, jsonio
from transformer_theory.core.positional import embed_long
from transformer_theory.papers.barbero2024 import _plots
from transformer_theory.papers.barbero2024 import _theory_oversquash as oversquash
from transformer_theory.papers.barbero2024._models import (
    POSITIONAL,
    GridModel,
    check_grid,
    largest_per_code,
    random_model,
)
from transformer_theory.papers.barbero2024._tasks import PATTERNS, pattern_tokens
from transformer_theory.papers.barbero2024.experiments._records import (
    Interrupted,
    OversquashModel,
    OversquashRecord,
    SettingsDiffer,
    StudyResult,
    check_resumable,
    finished_models,
    grid_of,
    measure_grid,
    settings_block,
)
from transformer_theory.settings import setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = [
    "OversquashModel",
    "OversquashRecord",
    "Interrupted",
    "SettingsDiffer",
    "SIZES",
    "OversquashSettings",
    "check_memory",
    "get_config",
    "run",
    "summary",
]

SIZES = ("smoke", "default")
Guard = Callable[[], contextlib.AbstractContextManager]


@dataclasses.dataclass(frozen=True)
class OversquashSettings:
    """One over-squashing run: the grid of float64 models and the input they read.

    Attributes:
      depths: layers (every combination of depths, heads, positional codes and seeds is one
        model; distinct values).
      heads: heads per layer.
      positionals: positional codes, a comma list of none, sinusoidal, rope, alibi, or 'all'.
      seeds: model seeds (0..2**32 - 1).
      length: input length n (at least 5: the early/late ratios compare quarters).
      pattern: the input: random (bits), ones_zero, zeros_one, alternating.
      width: the models' width d'.
      bound: also compute the certified bound (its (H, n, n, D, D) blocks cost memory).
    """

    depths: tuple[int, ...] = setting((1, 2, 4), flag="--depth", metavar="DEPTH")
    heads: tuple[int, ...] = (1,)
    positionals: tuple[str, ...] = setting(("rope",), flag="--positional", metavar="POSITIONAL")
    seeds: tuple[int, ...] = (0,)
    length: int = setting(48, positive=True)
    pattern: str = "random"
    width: int = setting(24, positive=True)
    bound: bool = True

    def __post_init__(self) -> None:
        positionals = tuple(self.positionals)
        object.__setattr__(
            self, "positionals", POSITIONAL if positionals == ("all",) else positionals
        )
        for name in ("depths", "heads", "seeds"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        check_grid(self.depths, self.heads, self.positionals, self.seeds, self.width)
        if self.pattern not in PATTERNS:
            raise ValueError(
                f"pattern: unknown {self.pattern!r}; choose from {', '.join(PATTERNS)}"
            )
        if self.length < 5:
            raise ValueError(f"length: expected at least 5 tokens (quarters), got {self.length}")

    def tokens(self) -> np.ndarray:
        """The input's token ids."""
        return pattern_tokens(self.pattern, self.length)

    def record(self) -> dict:
        """The ``settings`` block of ``oversquash.json``."""
        return settings_block(self, tokens=self.tokens().tolist())


def get_config(size: str = "default") -> OversquashSettings:
    """``"smoke"`` (one model, 6 tokens: seconds) or ``"default"`` (the command's defaults)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    return OversquashSettings(depths=(1,), length=6) if size == "smoke" else OversquashSettings()


def check_memory(settings: OversquashSettings, grid: Sequence[GridModel]) -> float:
    """Refuse (BudgetError naming ``length/width/depths/heads``, and ``no_bound`` with the
    bound) a run whose largest program would not fit: the floor is ``sum(heads) n^2`` (and
    ``max(heads) n^2 D^2`` for the bound), then XLA's account. Returns the estimate in bytes."""
    option = "length/width/depths/heads" + (" (or no_bound)" if settings.bound else "")
    configs = largest_per_code(grid)
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


def run(
    config: OversquashSettings,
    out_dir: str,
    *,
    progress: bool = True,
    grid: Sequence[GridModel] | None = None,
    guard: Guard = contextlib.nullcontext,
    on_model: Callable[[OversquashModel], None] | None = None,
    log: Callable[[str], None] | None = None,
    fresh: bool = False,
) -> StudyResult:
    """Measure every model of the grid in float64; write ``oversquash.json`` after each model and
    ``oversquash.png`` at the end.

    Args:
      config: the run's settings.
      out_dir: an existing directory; an ``oversquash.json`` there with the same settings is
        resumed, one with other settings refused (:class:`~._records.SettingsDiffer`) unless
        ``fresh``.
      progress: unused (each model is one program; ``on_model`` reports it); the experiments'
        common signature.
      grid: :func:`~._records.grid_of` ``(config)`` when already built (and checked).
      guard: a context manager factory entered around each model's computation.
      on_model: called with each newly measured model's record once it is written (a
        :class:`~._records.OversquashModel`).
      log: called with a line when a run is resumed.
      fresh: start over, measuring every model and overwriting any ``oversquash.json`` there.
    Returns:
      :class:`~._records.StudyResult`; its record (a :class:`~._records.OversquashRecord`) holds
      ``settings`` (:meth:`OversquashSettings.record`), ``complete``, ``seconds`` and ``models``
      (labels, ``name`` and :func:`~.._theory_oversquash.oversquash_record`).
    Raises:
      Interrupted: on Ctrl-C, the finished models written.
      SettingsDiffer: ``oversquash.json`` records other settings (and not ``fresh``).
      BudgetError: the grid's largest model or program would not fit in memory.
    """
    grid = grid_of(config) if grid is None else list(grid)
    check_memory(config, grid)  # first: the settings' block holds the input's tokens
    block, path = config.record(), os.path.join(out_dir, "oversquash.json")
    if not fresh:
        check_resumable(path, block)
    done = {} if fresh else finished_models(path, block, "oversquash")
    if done and log is not None:
        log(f"resuming: {len(done)} finished model(s) read from {path}")
    tokens = config.tokens()

    def measure(model: GridModel) -> dict:
        with guard():
            params = random_model(model.config, model.labels["seed"])
            emb = embed_long(model.config, tokens, dtype=params.w_o.dtype)
            rec = oversquash.oversquash_record(params, emb, bound=config.bound)
        return dict(model.labels, name=model.name, **rec)

    typed = None if on_model is None else lambda m: on_model(jsonio.as_record(OversquashModel, m))
    record = measure_grid(grid, measure, path, block, done=done, on_model=typed)
    figure = _plots.plot_oversquash(record, os.path.join(out_dir, "oversquash.png"))
    return StudyResult(jsonio.as_record(OversquashRecord, record), path, figure)


def summary(model: OversquashModel) -> dict:
    """One row per model: the first/last-quarter ratios of ``||dy_n/dv_i||``, of the path weights
    and of the residual path weights, and (with the bound) whether it holds and the largest
    sensitivity/bound ratio."""
    row = dict(
        name=model.name,
        sensitivity_ratio=model.early_late_ratio,
        path_ratio=model.path_early_late_ratio,
        residual_path_ratio=model.residual_path_early_late_ratio,
    )
    if model.bound_holds is not None:
        row.update(bound_holds=model.bound_holds, bound_ratio_max=model.bound_ratio_max)
    return row
