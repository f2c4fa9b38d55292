"""Representational collapse by length and precision over a grid of random causal Pre-LN models
(Barbero et al. 2024, §4): the settings of the study behind ``transformer-theory collapse`` (its
options are :class:`CollapseSettings`' fields), also ``transformer-theory experiment collapse
--size smoke``.

For every model of the grid and every precision, ``||y_n - y'_{n+1}||`` by length, the first
bit-identical length, the rates and the verdict (:func:`~.._theory_collapse.model_record`);
``collapse.json`` is rewritten after each model (valid JSON at every moment), a run with the same
settings resumes from the finished models (one with other settings is refused,
:class:`~.._records.SettingsDiffer`, unless ``fresh``), and ``collapse.png`` is drawn at the end.
This module is the settings (:class:`CollapseSettings`, :func:`get_config`); the study is
:mod:`.._study_collapse` (its ``run``).

Result (README, run A: ``--precision float64 --depth 1,2 --max-len 8192 --points 14``): without
positions and with RoPE every model collapses like ``n^-1``; ALiBi plateaus and the absolute
sinusoidal code does not collapse (the claims ``barbero2024.collapse_*``).
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.papers.barbero2024._models import POSITIONAL, check_distinct, check_grid
from transformer_theory.papers.barbero2024._tasks import PATTERNS
from transformer_theory.precision import PRECISIONS
from transformer_theory.settings import setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = ["MAX_LEN", "SIZES", "CollapseSettings", "get_config"]

#: The largest length a collapse run may ask for (memory is checked against the machine besides).
MAX_LEN = 16384
SIZES = ("smoke", "default")


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


def get_config(size: str = "default") -> CollapseSettings:
    """``"smoke"`` (one model, two lengths, float64: seconds) or ``"default"`` (the command's
    defaults: 8 models to n = 4096 in three precisions)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    if size == "smoke":
        return CollapseSettings(depths=(1,), positionals=("none",), max_len=8, points=2)
    return CollapseSettings()
