"""Efficient attention against exact attention (Conti 2024, §2.1): the cost of every variant
against the sequence length, and the output error of each approximation against its budget.

Commands (the first is the one README quotes; ``--size smoke`` is a run of seconds)::

    transformer-theory efficient-attention --max-len 16384 --out results/efficient_attention
    transformer-theory experiment efficient_attention --size smoke

:class:`EfficientSettings` are the command's options; the study,
:func:`.._study_efficient_attention.run`, checks the budgets before any work (from
:mod:`.._theory_cost`'s estimates, naming the field to lower), measures the error of each
approximation against exact attention on random inputs and on trained models' activations
(:func:`.._models_efficient.error_vs_budget`) and the cost of every variant against the sequence
length (:func:`.._models_efficient.cost_vs_length`), writes the records (``cost.json``,
``cost.csv`` and, when an approximation is selected, ``errors.json``, ``errors.csv``) and draws
the figures (``cost.png``, ``errors.png``). With ``jl``: Linformer's random projection as the
thesis writes it (:mod:`.._theory_linformer`)::

    settings = EfficientSettings(variants=("sliding_window", "dense"), max_len=1024)
    result = run(settings, "results/efficient_attention")
    summary_rows(result)  # (from the study) one row per variant at the longest length
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.papers.conti2024._models_efficient import APPROXIMATIONS, VARIANTS
from transformer_theory.settings import setting

__all__ = ["SIZES", "EfficientSettings", "get_config"]

#: ``jl``'s references (Linformer's projection, exact attention) are float64: the entry point
#: (``experiment``, the command) turns 64-bit mode on.
X64 = True
DEFAULT_EXAMPLES = 32


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

    variants: tuple[str, ...] = setting(tuple(VARIANTS))
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
        object.__setattr__(self, "variants", tuple(VARIANTS if every else self.variants))
        object.__setattr__(self, "runs", tuple(self.runs))
        if not self.variants:
            raise ValueError("variants: expected at least one variant, got none")
        for name in self.variants:
            _validate.check_choice("variants", name, tuple(VARIANTS))
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
        return [v for v in self.variants if v in APPROXIMATIONS]

    def trained_examples(self) -> int:
        """Held-out inputs per trained model: ``examples``, else 16 with ``jl``, else 32."""
        return self.examples or (16 if self.jl else DEFAULT_EXAMPLES)

    def replace(self, **changes: object) -> EfficientSettings:
        """A copy with ``changes`` (validated again)."""
        return dataclasses.replace(self, **changes)


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
