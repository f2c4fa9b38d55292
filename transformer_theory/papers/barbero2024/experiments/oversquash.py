"""Over-squashing over a grid of random causal Pre-LN models in float64 (Barbero et al. 2024, §5):
the settings of the study behind ``transformer-theory oversquash`` (its options are
:class:`OversquashSettings`' fields), also ``transformer-theory experiment oversquash --size
smoke``.

Per model, the exact sensitivities of the last token, the attention-path weights, the path counts
and the certified bound (:func:`~.._theory_oversquash.oversquash_record`); ``oversquash.json``
after each model (resumed, and refused to other settings, as ``collapse.json`` is), then
``oversquash.png``. This module is the settings (:class:`OversquashSettings`,
:func:`get_config`); the study is :mod:`.._study_oversquash` (its ``run``).

Result (README: the defaults, RoPE, n = 48, 2 min): the sensitivity weighs early tokens more, the
more so the deeper the model, and the bound holds on every model (the claims
``barbero2024.oversquash_*`` and ``early_tokens_sensitivity``).
"""

from __future__ import annotations

import dataclasses

from transformer_theory.papers.barbero2024._models import POSITIONAL, check_grid
from transformer_theory.papers.barbero2024._tasks import PATTERNS
from transformer_theory.settings import setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = ["SIZES", "OversquashSettings", "get_config"]

SIZES = ("smoke", "default")


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


def get_config(size: str = "default") -> OversquashSettings:
    """``"smoke"`` (one model, 6 tokens: seconds) or ``"default"`` (the command's defaults)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    return OversquashSettings(depths=(1,), length=6) if size == "smoke" else OversquashSettings()
