"""Compile a RASP program into the one parameter format and check it on every input:
``transformer-theory rasp PROGRAM``.

``PROGRAM`` is a library program (:data:`transformer_theory.rasp.PROGRAMS`: length, reverse,
histogram, sort, sort_unique, sort_by_frequency, frac_prevs, shift, detect_pattern, pair_balance,
shuffle_dyck1, shuffle_dyck2, majority, dyck1, parity) or a ``.py`` file defining ``program()``
(and optionally ``VOCAB``). The compiled model is run by the library's forward pass against the
interpreter on every input up to ``--max-len`` while there are at most ``--max-inputs`` of them,
on ``--samples`` seeded inputs of each longer length, every position compared. With
``--precision-lengths`` the longest exact length in float32 and float64 (constants chosen by the
stated law for each length) is measured beside the law's prediction. The work is
:func:`transformer_theory.rasp._outputs.study`; this command parses, calls it and prints. Exit 1
if the compiled model disagrees with the interpreter anywhere.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import re
from typing import Literal

from transformer_theory import budget
from transformer_theory.cli._common import EXIT_FAILED, UsageError, add_output, prepare_out_dir
from transformer_theory.cli._options import add_settings
from transformer_theory.settings import check_minimums, flag_of, from_args, setting

__all__ = ["X64", "add_arguments", "run"]

X64 = True  # the check compares in float64 beside the interpreter (cli.main turns it on)
FILE_MAX_LEN = 6  # a .py program's default --max-len (the library's reverse's)


@dataclasses.dataclass(frozen=True)
class RaspSettings:
    """What one rasp run compiles and checks.

    Attributes:
      program: a library program name or a .py file.
      max_len: longest input (default: the program's own, 5 to 8).
      vocab: the tokens, one character each (default: the program's own).
      causal: compile under a causal mask (refused where the meaning would change).
      precision: float format of the check.
      max_inputs: inputs enumerated before sampling starts.
      samples: seeded inputs per length beyond --max-inputs.
      precision_lengths: lengths for the precision limits, e.g. 8,16,32,64 (none by default).
    """

    program: str = setting(flag="PROGRAM")
    max_len: int | None = setting(None, positive=True)
    vocab: str | None = None
    causal: bool = False
    precision: Literal["float64", "float32", "bfloat16"] = "float64"
    max_inputs: int = setting(100_000, minimum=0)
    samples: int = setting(64, minimum=0)
    precision_lengths: tuple[int, ...] = setting((), positive=True)

    def __post_init__(self) -> None:
        check_minimums(self)
        if self.vocab is not None and (not self.vocab or len(set(self.vocab)) != len(self.vocab)):
            raise ValueError(f"vocab: expected distinct characters, got {self.vocab!r}")
        if self.vocab is not None and any(0xD800 <= ord(c) <= 0xDFFF for c in self.vocab):
            raise ValueError(f"vocab: {self.vocab!r} holds a byte that is not text (not UTF-8)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_settings(p, RaspSettings)
    add_output(p, "results/rasp")


_NAMED = ("max_len", "max_inputs", "samples", "vocab", "precision_lengths")
_OPTIONS = {n: flag_of(RaspSettings, n) for n in _NAMED} | {"samples_per_length": "--samples"}


def _as_options(err: ValueError) -> ValueError:
    """``err`` with the library's argument names it gives written as this command's options."""
    text = re.sub(r"\b(" + "|".join(_OPTIONS) + r")\b", lambda m: _OPTIONS[m[0]], str(err))
    if isinstance(err, budget.BudgetError):
        option = _OPTIONS.get(err.option, err.option)
        return budget.BudgetError(
            text, option=option, estimate=err.estimate, available=err.available
        )
    return UsageError(text)


def run(args: argparse.Namespace) -> int:
    settings = from_args(RaspSettings, args)
    from transformer_theory import rasp
    from transformer_theory.rasp import _check, _loader, _outputs

    try:
        program, vocab, name = _outputs.load_program(settings.program, settings.vocab)
    except ValueError as err:
        raise UsageError(str(err)) from None
    spec = rasp.PROGRAMS.get(name)
    max_len = settings.max_len or (spec.max_len if spec else FILE_MAX_LEN)
    try:  # sizes (BudgetError, with the estimate) and a check over no input, before any work
        _outputs.check_cost(
            len(vocab),
            max_len,
            list(settings.precision_lengths),
            max_inputs=settings.max_inputs,
            samples=settings.samples,
        )
        _check.count_inputs(
            len(vocab), range(1, max_len + 1), settings.max_inputs, settings.samples
        )
    except ValueError as err:
        raise _as_options(err) from None
    out = prepare_out_dir(args.out)
    user = settings.program if settings.program.endswith(".py") else None
    guard = _loader.user_code(user, "compile and check") if user else contextlib.nullcontext()
    try:
        with guard:
            compiled, record = _outputs.study(
                program,
                vocab,
                max_len,
                causal=settings.causal,
                precision=settings.precision,
                max_inputs=settings.max_inputs,
                samples=settings.samples,
                precision_lengths=list(settings.precision_lengths),
            )
    except ValueError as err:  # refused: a causal program, a table too large, a bad value set
        raise UsageError(str(err)) from None
    paths = _outputs.write_outputs(compiled, record, out)
    print(f"{name}: {compiled.summary()}")  # singular where a count is 1
    print("\n".join(record.lines(settings.precision)))
    print("wrote " + ", ".join(paths.values()))
    return 0 if record.check.agree else EXIT_FAILED
