"""RASP (Weiss et al. 2021) compiled into the one parameter format and checked on every input.

The pipeline, as tracr's (Lindner et al. 2023) but onto this library's
:class:`~transformer_theory.params.ModelParams` and run by its own forward pass: program ->
graph -> value sets -> residual layout -> heads and MLPs -> parameters. Private modules behind
this curated namespace: ``_language`` (the language and its interpreter, which defines the
semantics), ``_compiler`` (the compiler and its stated laws for the constants), ``_check``
(compiled model against the interpreter on every input, margins, precision laws),
``_certificate`` (certificates by length: exact on every input up to ``N`` in a float format,
proved from the value sets without enumerating inputs), ``_library``
(the programs), ``_loader`` (a program by name or from a ``.py`` file), ``_lower_bounds`` (the
library's one-layer impossibility certificates for a program's task), ``_study_program`` (one
program end to end, as the ``rasp`` command runs it: ``study``), ``_outputs`` (what it writes)
and ``_tracr`` (differential testing against tracr, imported only where tracr is installed); the
experiments beside tracr are :mod:`.experiments` (settings as data, their studies
``_study_tracr_table`` and ``_study_tracr_differential``);
:mod:`.claims` registers compiled programs as rows of the claims ledger (certified in arb balls
on every input up to a size).

The face (16 names: what a RASP program is written with and called through): the language
(``tokens``, ``indices``, ``Map``, ``SequenceMap``, ``Select`` -- combined with ``&``, ``|``,
``~`` --, ``Comparison``, ``Aggregate``, ``SelectorWidth``, ``evaluate``), ``compile``, the
model run and checked (``run``, ``check``, ``precision_limits``, ``certified_length``), the
library (``PROGRAMS``: ``PROGRAMS[name].make(PROGRAMS[name].vocab)``) and one program end to end
as the ``rasp`` command runs it (``study``, whose record holds the laws' predictions and the
lower bounds). The compiled model's type is :class:`._compiler.CompiledProgram`.
tracr's whole language under tracr's names (``Full``, ``ConstantSOp``, ``LinearSequenceMap``,
numerical encodings, ``.named()``) is :mod:`transformer_theory.rasp.tracr`.

Example::

    from transformer_theory import rasp
    spec = rasp.PROGRAMS["reverse"]
    compiled = rasp.compile(spec.make("abc"), "abc", max_seq_len=6)
    rasp.check(compiled)["agree"]  # True: every input up to length 6, every position
"""

from transformer_theory.rasp._certificate import certified_length
from transformer_theory.rasp._check import check, precision_limits, run
from transformer_theory.rasp._compiler import compile
from transformer_theory.rasp._language import (
    Aggregate,
    Comparison,
    Map,
    Select,
    SelectorWidth,
    SequenceMap,
    evaluate,
    indices,
    tokens,
)
from transformer_theory.rasp._library import PROGRAMS
from transformer_theory.rasp._study_program import study

__all__ = [
    "PROGRAMS",
    "Aggregate",
    "Comparison",
    "Map",
    "Select",
    "SelectorWidth",
    "SequenceMap",
    "certified_length",
    "check",
    "compile",
    "evaluate",
    "indices",
    "precision_limits",
    "run",
    "study",
    "tokens",
]
