"""The typed records of the RASP studies: one program's
(:func:`~transformer_theory.rasp._study_program.study`), what ``rasp.json`` holds, field for
field, and the table beside tracr (:class:`TracrTable`, ``experiments/results/rasp_table.json``)
(:func:`transformer_theory.jsonio.write_json` writes them,
:func:`transformer_theory.jsonio.read_record` reads them back)."""

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
    "TableCertified",
    "TableEnumerated",
    "TableRow",
    "TableSizes",
    "TracrExactLength",
    "TracrSizes",
    "TracrTable",
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
        tried = sorted({c.length for c in lb.one_layer_certificates})
        impossible, layers = lb.one_layer_certified_impossible_at, lb.compiled_attention_sublayers
        lines = [
            f"checked {rec.inputs_checked} inputs ({rec.positions_compared} positions) in "
            f"{precision}: agree={rec.agree} exact={rec.exact} min margin {rec.min_margin:.4g}",
            f"lower bounds: attention depth {lb.attention_depth} (the dependency graph) beside "
            f"{layers} compiled attention layer{'' if layers == 1 else 's'}; one attention layer "
            "+ linear classifier (Chen & Zou 2024 certificates, ReLU any heads and softmax one "
            "head) "
            + (
                f"certified impossible at lengths {list(impossible)} of {tried}"
                if impossible
                else f"not certified impossible at lengths {tried}"
                if tried
                else "not tried (every length has too many inputs for a certificate)"
            ),
            f"the stated law in {precision}: "
            + ("exact at this length" if law.exact else "limited by " + "; ".join(law.limited_by)),
        ]
        lines += [f"  disagreement: {d}" for d in rec.disagreements]
        lines += [
            f"  {row.dtype}: exact up to {row.longest_exact} (law: {row.predicted_longest})"
            for row in self.precision_limits or ()
        ]
        return lines


@frozen
class TableSizes:
    """This compiler's model in a row of the table beside tracr."""

    layers: int
    residual_width: int
    parameters: int


@frozen
class TracrSizes:
    """tracr's model in a row of the table (its layers, residual labels and parameters)."""

    layers: int
    width: int
    parameters: int


@frozen
class TableEnumerated:
    """This compiler's model on every input up to ``max_seq_len`` (float32)."""

    max_seq_len: int
    inputs: int
    exact: bool
    sampled_lengths: tuple[int, ...]


@frozen
class TableCertified:
    """This compiler's certified length in float32 (:func:`~transformer_theory.rasp.
    certified_length`) and what limits the last length tried."""

    certified_length: int | None
    first_failure: int | None
    largest_tried: int | None
    limited_by: str | None


@frozen
class TracrExactLength:
    """tracr's model compiled for ``max_seq_len`` against its own interpreter on seeded inputs of
    each length: the last length before the first wrong position, and that position."""

    exact_through: int
    max_seq_len: int
    first_wrong: dict[str, Any] | None


@frozen
class TableRow:
    """One tracr program's row of the table (:mod:`transformer_theory.rasp.experiments.
    tracr_table`); a program this compiler refuses has ``compiled`` false and ``refused``."""

    program: str
    vocab: tuple[str, ...]
    causal: bool
    compiled: bool
    refused: str | None = optional()
    ours: TableSizes | None = optional()
    tracr: TracrSizes | None = optional()
    enumerated: TableEnumerated | None = optional()
    certified: TableCertified | None = optional()
    tracr_default: TracrExactLength | None = optional()
    tracr_1000: TracrExactLength | None = optional()
    seconds: float | None = optional()
    commit: str | None = optional()
    date: str | None = optional()


@frozen
class TracrTable:
    """``rasp_table.json``: the rows measured (in tracr's program order), the programs not yet
    measured, the settings every row was measured with, and what produced them."""

    programs: tuple[TableRow, ...]
    missing: tuple[str, ...]
    settings: dict[str, int]
    tracr_commit: str
    produced_by: str
    environment: str
    commits: tuple[str, ...]
