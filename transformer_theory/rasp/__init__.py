"""RASP (Weiss et al. 2021) compiled into the one parameter format and checked on every input.

Private modules behind this curated namespace: ``_language`` (the language and its
interpreter, which defines the semantics), ``_compiler`` (program -> graph -> value sets ->
residual layout -> heads and MLPs -> :class:`~transformer_theory.params.ModelParams`),
``_check`` (compiled model against the interpreter on every input, margins, precision laws) and
``_library`` (the programs).
"""

from transformer_theory.rasp._compiler import CompiledProgram, attention_depth
from transformer_theory.rasp._compiler import compile_program as compile
from transformer_theory.rasp._language import (
    Aggregate,
    Comparison,
    Map,
    Select,
    SelectAnd,
    SelectNot,
    SelectOr,
    SelectorWidth,
    SequenceMap,
    evaluate,
    indices,
    tokens,
)

__all__ = [
    "Aggregate",
    "CompiledProgram",
    "Comparison",
    "Map",
    "Select",
    "SelectAnd",
    "SelectNot",
    "SelectOr",
    "SelectorWidth",
    "SequenceMap",
    "attention_depth",
    "compile",
    "evaluate",
    "indices",
    "tokens",
]
