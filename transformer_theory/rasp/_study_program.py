"""The study of :mod:`transformer_theory.rasp.experiments.program` (the ``rasp`` command): the
program loaded (:func:`~transformer_theory.rasp._outputs.load_program`) and its check's sizes
refused before any work (:func:`check_sizes`), then compiled, checked and measured
(:func:`~transformer_theory.rasp._outputs.study`, a ``.py`` program's own code guarded so its
failure names the file) and written (:func:`~transformer_theory.rasp._outputs.write_outputs`:
``model.npz``, ``rasp.json``, ``rasp.png``)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Hashable
from typing import Any

from transformer_theory.rasp import _check, _compiler, _library, _loader, _outputs
from transformer_theory.rasp._language import SOp
from transformer_theory.rasp._records import RaspRecord

__all__ = ["FILE_MAX_LEN", "Loaded", "ProgramRun", "check_sizes", "run"]

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
    program, vocab, name = _outputs.load_program(config.program, config.vocab)
    spec = _library.PROGRAMS.get(name)
    max_len = config.max_len or (spec.max_len if spec else FILE_MAX_LEN)
    _outputs.check_cost(
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
        compiled, record = _outputs.study(
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
