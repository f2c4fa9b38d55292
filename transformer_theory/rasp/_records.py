"""The typed record of one program's study (:func:`~transformer_theory.rasp._outputs.study`): what
``rasp.json`` holds, field for field (:func:`transformer_theory.jsonio.write_json` writes it,
:func:`transformer_theory.jsonio.read_record` reads it back)."""

from __future__ import annotations

import dataclasses
from typing import Any

from transformer_theory.jsonio import optional

__all__ = [
    "Certificate",
    "Check",
    "Law",
    "LowerBounds",
    "PrecisionLimit",
    "PrecisionRow",
    "RaspRecord",
    "Sizes",
]

frozen = dataclasses.dataclass(frozen=True)


@frozen
class Sizes:
    """The compiled model's sizes (``CompiledProgram.sizes()``)."""

    layers: int
    attention_sublayers: int
    mlp_sublayers: int
    heads: int
    residual_width: int
    mlp_hidden: int
    parameters: int
    nonzero_parameters: int
    attention_depth: int


@frozen
class Check:
    """The compiled model against the interpreter (:func:`~transformer_theory.rasp.check`)."""

    dtype: str
    arithmetic: str
    inputs_checked: int
    positions_compared: int
    exhaustive_lengths: tuple[int, ...]
    sampled_lengths: tuple[int, ...]
    output_disagreements: int
    internal_disagreements: int
    disagreements: tuple[Any, ...]
    min_margin: float
    min_margin_at: dict[str, Any] | None
    min_output_margin: float
    agree: bool
    exact: bool


@frozen
class Law:
    """The stated law's verdict in one float format (:func:`~transformer_theory.rasp.
    predicted_exact`): exact at this length, or what limits it."""

    exact: bool
    limited_by: tuple[str, ...]


@frozen
class Certificate:
    """One length and family of the one-layer certificates."""

    length: int
    family: str
    inputs: int
    classes: int
    verdict: str
    verified_exactly: bool
    certificate_size: int | None


@frozen
class LowerBounds:
    """The compiled depth beside the attention depth and the one-layer certificates."""

    attention_depth: int
    compiled_layers: int
    compiled_attention_sublayers: int
    one_layer_certified_impossible_at: tuple[int, ...]
    one_layer_certificates: tuple[Certificate, ...]
    one_layer_families: dict[str, str]
    task: str


@frozen
class PrecisionRow:
    """One length of a precision limit."""

    length: int
    exact: bool
    agree: bool
    min_margin: float
    predicted_exact: bool
    limited_by: tuple[str, ...]


@frozen
class PrecisionLimit:
    """The longest exact length in one float format beside the law's
    (:func:`~transformer_theory.rasp.precision_limits`)."""

    dtype: str
    softmax_scale: float | None
    mlp_slope: float | None
    longest_exact: int | None
    first_failure: int | None
    predicted_longest: int | None
    predicted_first_failure: int | None
    rows: tuple[PrecisionRow, ...]


@frozen
class RaspRecord:
    """``rasp.json``: the program, its compiled sizes, the check, the constants, the law per
    float format, the lower bounds and (when lengths were asked for) the precision limits."""

    program: str
    vocab: tuple[str, ...]
    max_len: int
    causal: bool
    sizes: Sizes
    check: Check
    constants: dict[str, Any]
    predicted: dict[str, Law]
    lower_bounds: LowerBounds
    labels: tuple[str, ...]
    output_values: tuple[str, ...] | None
    unembedding: str
    precision_limits: tuple[PrecisionLimit, ...] | None = optional()

    def lines(self, precision: str) -> list[str]:
        """What the ``rasp`` command prints below the sizes, for the check in ``precision``: the
        check, the lower bounds, the stated law, each disagreement and each precision limit."""
        rec, lb, law = self.check, self.lower_bounds, self.predicted[precision]
        impossible, layers = lb.one_layer_certified_impossible_at, lb.compiled_attention_sublayers
        lines = [
            f"checked {rec.inputs_checked} inputs ({rec.positions_compared} positions) in "
            f"{precision}: agree={rec.agree} exact={rec.exact} min margin {rec.min_margin:.4g}",
            f"lower bounds: attention depth {lb.attention_depth} (the dependency graph) beside "
            f"{layers} compiled attention layer{'' if layers == 1 else 's'}; one attention layer "
            "+ linear classifier (Chen & Zou 2024 certificates, ReLU any heads and softmax one "
            "head) "
            + (
                f"certified impossible at lengths {list(impossible)}"
                if impossible
                else "not certified impossible"
            )
            + f" of {sorted({c.length for c in lb.one_layer_certificates})}",
            f"the stated law in {precision}: "
            + ("exact at this length" if law.exact else "limited by " + "; ".join(law.limited_by)),
        ]
        lines += [f"  disagreement: {d}" for d in rec.disagreements]
        lines += [
            f"  {row.dtype}: exact up to {row.longest_exact} (law: {row.predicted_longest})"
            for row in self.precision_limits or ()
        ]
        return lines
