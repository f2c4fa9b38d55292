"""The study of :mod:`transformer_theory.rasp.experiments.program` (the ``rasp`` command), its
stages in order, each a call into the module that owns it: the program loaded
(:func:`~transformer_theory.rasp._loader.load_program`) and its check's sizes refused before any
work (:func:`check_sizes`, by :func:`~transformer_theory.rasp._check.check_cost`), then
:func:`study`: compiled (:func:`~transformer_theory.rasp._compiler.compile`, once for
``max_len`` and once for each other precision length), checked
(:func:`~transformer_theory.rasp._check.check`, the law's predictions and the precision
measurement of each model), its lower bounds
(:func:`~transformer_theory.rasp._lower_bounds.lower_bounds`) and the record (a ``.py``
program's own code guarded so its failure names the file); then written
(:func:`~transformer_theory.rasp._outputs.write_outputs`: ``model.npz``, ``rasp.json``,
``rasp.png``)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any

from transformer_theory import _validate, budget, jsonio
from transformer_theory.rasp import _check, _compiler, _library, _loader, _lower_bounds, _outputs
from transformer_theory.rasp._language import SOp
from transformer_theory.rasp._records import RaspRecord

__all__ = ["FILE_MAX_LEN", "Loaded", "ProgramRun", "check_sizes", "run", "study"]

FILE_MAX_LEN = 6  # a .py program's default max_len (the library's reverse's)


@dataclasses.dataclass(frozen=True)
class Loaded:
    """The program a run compiles: its RASP expression, vocabulary, name and longest input."""

    program: SOp
    vocab: tuple[Hashable, ...]
    name: str
    max_len: int


@dataclasses.dataclass(frozen=True)
class ProgramRun:
    """One program end to end: what was compiled, its typed record (``rasp.json``), the files
    written (``model``, ``record``, ``figure``) and the float format it was checked in."""

    loaded: Loaded
    compiled: _compiler.CompiledProgram
    record: RaspRecord
    paths: dict[str, str]
    precision: str

    def lines(self) -> list[str]:
        """What the ``rasp`` command prints: the compiled sizes, the check and the bounds, the
        files."""
        return [
            f"{self.loaded.name}: {self.compiled.summary()}",
            *self.record.lines(self.precision),
            "wrote " + ", ".join(self.paths.values()),
        ]


def check_sizes(config: Any) -> Loaded:
    """The program of ``config`` (:class:`~transformer_theory.rasp.experiments.program.
    RaspSettings`) loaded, and its check refused before any work where it is too large
    (:class:`~transformer_theory.budget.BudgetError` naming ``max_len``, ``max_inputs``,
    ``samples``, ``vocab`` or ``precision_lengths``) or compares no input (``ValueError``
    naming ``max_inputs`` / ``samples``); ``ValueError`` naming ``program`` or ``vocab`` for a
    program that cannot be read."""
    program, vocab, name = _loader.load_program(config.program, config.vocab)
    spec = _library.PROGRAMS.get(name)
    max_len = config.max_len or (spec.max_len if spec else FILE_MAX_LEN)
    _check.check_cost(
        len(vocab),
        max_len,
        list(config.precision_lengths),
        max_inputs=config.max_inputs,
        samples=config.samples,
    )
    _check.count_inputs(len(vocab), range(1, max_len + 1), config.max_inputs, config.samples)
    return Loaded(program, tuple(vocab), name, max_len)


def run(config: Any, out_dir: str, *, loaded: Loaded | None = None) -> ProgramRun:
    """Compile and check ``config``'s program (:func:`check_sizes` first, unless the caller
    passes what it returned as ``loaded``), write its files under ``out_dir``; returns the
    :class:`ProgramRun`. A ``.py`` program's own code that fails while it is compiled and
    checked is a ``ValueError`` naming the file."""
    loaded = loaded or check_sizes(config)
    user = config.program if config.program.endswith(".py") else None
    guard = _loader.user_code(user, "compile and check") if user else contextlib.nullcontext()
    with guard:
        compiled, record = study(
            loaded.program,
            list(loaded.vocab),
            loaded.max_len,
            causal=config.causal,
            precision=config.precision,
            max_inputs=config.max_inputs,
            samples=config.samples,
            precision_lengths=list(config.precision_lengths),
        )
    paths = _outputs.write_outputs(compiled, record, out_dir)
    return ProgramRun(loaded, compiled, record, paths, config.precision)


def study(
    program: SOp,
    vocab: Sequence[Hashable],
    max_len: int,
    *,
    causal: bool = False,
    precision: str = "float64",
    max_inputs: int = 100_000,
    samples: int = 64,
    precision_lengths: Sequence[int] = (),
    certificate_inputs: int = 2048,
) -> tuple[_compiler.CompiledProgram, RaspRecord]:
    """Compile, check in ``precision``, put the lower bounds beside the compiled size and
    measure the precision limits over ``precision_lengths`` (float64, float32 and bfloat16
    beside the law); returns ``(compiled, record)``, the record typed (:class:`RaspRecord`: the
    fields of ``rasp.json``).

    The stages, in order: compile (the model for ``max_len``, then one for each other length of
    ``precision_lengths``, constants by the law), check (the model for ``max_len`` on every input
    as :func:`~transformer_theory.rasp._check.check` draws them, the law's prediction per float
    format, and each precision length's model measured by
    :func:`~transformer_theory.rasp._check.precision_rows` on 16 seeded inputs of each of its
    lengths ``1, n/4, n/2, n - 1, n``, as :func:`~transformer_theory.rasp.precision_limits`
    does), lower bounds, record.

    The record's ``lower_bounds`` (:func:`~transformer_theory.rasp._lower_bounds.lower_bounds`):
    the attention depth of the dependency graph (Weiss et al. 2021) beside the compiled layers
    and attention sublayers, and per length ``2..max_len`` with at most ``certificate_inputs``
    inputs the one-layer certificates of
    :func:`~transformer_theory.rasp._lower_bounds.one_layer_certificates` (Chen & Zou 2024's
    families)."""
    # refused naming this function's arguments (check's are max_inputs / samples_per_length)
    _validate.check_int_arg("max_inputs", max_inputs, 0)
    _validate.check_int_arg("samples", samples, 0)
    _validate.check_int_arg("certificate_inputs", certificate_inputs)
    _validate.check_choice("precision", precision, sorted(_check.DTYPES))
    if precision_lengths:
        if any(n < 1 for n in _check._lengths("precision_lengths", precision_lengths)):
            raise ValueError(f"precision_lengths: expected lengths >= 1, got {precision_lengths}")
    lengths = sorted(int(n) for n in precision_lengths)
    # compile: the model for max_len, then each precision length's (max_len's is reused)
    models: dict[int, _compiler.CompiledProgram] = {}
    for n in [max_len, *lengths]:
        if n in models:
            continue
        try:
            models[n] = _compiler.compile(program, vocab, n, causal)
        except budget.BudgetError as err:
            if n == max_len:
                raise
            raise ValueError(f"precision_lengths: {str(err).partition(': ')[2]}") from None
    compiled = models[max_len]
    # check: every input of max_len's model, the law, each precision length's model measured
    try:
        rec = _check.check(
            compiled, dtype=precision, max_inputs=max_inputs, samples_per_length=samples
        )
    except ValueError as err:  # named as this function's arguments
        raise ValueError(str(err).replace("samples_per_length", "samples")) from None
    predicted = {d: _check.predicted_exact(compiled, d) for d in _check.DTYPES}
    limits = None
    if lengths:
        rows = [_check.precision_rows(models[n], _check.DTYPES, samples=16) for n in lengths]
        limits = _check.precision_summary(rows, _check.DTYPES)
    bounds = _lower_bounds.lower_bounds(compiled, certificate_inputs)
    record = {
        "program": program.label,
        "vocab": [repr(v) for v in vocab],
        "max_len": max_len,
        "causal": causal,
        "sizes": compiled.sizes(),
        "check": rec,
        "constants": compiled.constants,
        "predicted": predicted,
        "lower_bounds": bounds,
        "labels": list(compiled.labels),
        "output_values": None
        if compiled.output_values is None
        else [repr(v) for v in compiled.output_values],
        "unembedding": "w_o of model.npz: row c reads output value c (numerical: the number)",
    }
    if limits is not None:
        record["precision_limits"] = limits
    return compiled, jsonio.as_record(RaspRecord, record)
