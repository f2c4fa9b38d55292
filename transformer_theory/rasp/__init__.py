"""RASP (Weiss et al. 2021) compiled into the one parameter format and checked on every input.

The pipeline, as tracr's (Lindner et al. 2023) but onto this library's
:class:`~transformer_theory.params.ModelParams` and run by its own forward pass: program ->
graph -> value sets -> residual layout -> heads and MLPs -> parameters. Private modules behind
this curated namespace: ``_language`` (the language and its interpreter, which defines the
semantics), ``_compiler`` (the compiler and its stated laws for the constants), ``_check``
(compiled model against the interpreter on every input, margins, precision laws),
``_certificate`` (certificates by length: exact on every input up to ``N`` in a float format,
proved from the value sets without enumerating inputs), ``_library``
(the programs), ``_lower_bounds`` (the library's one-layer impossibility certificates for a
program's task), ``_outputs`` (one program end to end, as the ``rasp`` command runs it) and
``_tracr`` (differential testing against tracr, imported only where tracr is installed);
:mod:`.claims` registers compiled programs as rows of the claims ledger (certified in arb balls
on every input up to a size).

Example::

    from transformer_theory import rasp
    compiled = rasp.compile(rasp.PROGRAMS["reverse"].make("abc"), "abc", max_seq_len=6)
    rasp.check(compiled)["agree"]  # True: every input up to length 6, every position
"""

from transformer_theory.rasp._certificate import certified_length, certify
from transformer_theory.rasp._check import check, precision_limits, predicted_exact, run
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
from transformer_theory.rasp._library import PROGRAMS, get_program
from transformer_theory.rasp._lower_bounds import one_layer_certificates
from transformer_theory.rasp._outputs import (
    check_cost,
    load_program,
    lower_bounds,
    study,
    write_outputs,
)

__all__ = [
    "PROGRAMS",
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
    "certified_length",
    "certify",
    "check",
    "check_cost",
    "compile",
    "evaluate",
    "get_program",
    "indices",
    "load_program",
    "lower_bounds",
    "one_layer_certificates",
    "precision_limits",
    "predicted_exact",
    "run",
    "study",
    "tokens",
    "write_outputs",
]
