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
:func:`transformer_theory.rasp.study`; this command parses, calls it and prints. Exit 1 if the
compiled model disagrees with the interpreter anywhere.
"""

from __future__ import annotations

import argparse
import contextlib
import re

from transformer_theory.cli._common import (
    EXIT_FAILED,
    UsageError,
    comma_list,
    nonnegative_int,
    positive_int,
    prepare_out_dir,
)

__all__ = ["X64", "add_arguments", "run"]

X64 = True  # the check compares in float64 beside the interpreter (cli.main turns it on)
FILE_MAX_LEN = 6  # a .py program's default --max-len (the library's reverse's)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("program", metavar="PROGRAM", help="a library program name or a .py file")
    p.add_argument(
        "--max-len",
        type=positive_int,
        default=None,
        help="longest input (default: the program's own, 5 to 8)",
    )
    p.add_argument(
        "--vocab", default=None, help="the tokens, one character each (default: the program's own)"
    )
    p.add_argument(
        "--causal",
        action="store_true",
        help="compile under a causal mask (refused where the meaning would change)",
    )
    p.add_argument(
        "--precision",
        choices=("float64", "float32", "bfloat16"),
        default="float64",
        help="float format of the check",
    )
    p.add_argument(
        "--max-inputs",
        type=nonnegative_int,
        default=100_000,
        help="inputs enumerated before sampling starts",
    )
    p.add_argument(
        "--samples",
        type=nonnegative_int,
        default=64,
        help="seeded inputs per length beyond --max-inputs",
    )
    p.add_argument(
        "--precision-lengths",
        type=comma_list(int, minimum=1),
        default=[],
        help="lengths for the precision limits, e.g. 8,16,32,64 (none by default)",
    )
    p.add_argument("--out", default="results/rasp", help="output directory")


# the library's argument names (rasp.study's, rasp._check's) and this command's options
_OPTIONS = {
    "max_len": "--max-len",
    "max_inputs": "--max-inputs",
    "samples_per_length": "--samples",
    "samples": "--samples",
    "vocab": "--vocab",
    "precision_lengths": "--precision-lengths",
}


def _as_options(err: ValueError) -> ValueError:
    """``err`` with the argument names it gives written as this command's options."""
    from transformer_theory import budget

    text = re.sub(r"\b(" + "|".join(_OPTIONS) + r")\b", lambda m: _OPTIONS[m[0]], str(err))
    if isinstance(err, budget.BudgetError):
        option = _OPTIONS.get(err.option, err.option)
        return budget.BudgetError(
            text, option=option, estimate=err.estimate, available=err.available
        )
    return UsageError(text)


def run(args: argparse.Namespace) -> int:
    if args.vocab is not None and (not args.vocab or len(set(args.vocab)) != len(args.vocab)):
        raise UsageError(f"--vocab: expected distinct characters, got {args.vocab!r}")
    if args.vocab is not None and any(0xD800 <= ord(c) <= 0xDFFF for c in args.vocab):
        raise UsageError(f"--vocab: {args.vocab!r} holds a byte that is not text (not UTF-8)")
    from transformer_theory import rasp
    from transformer_theory.rasp import _check, _loader, _outputs

    try:
        program, vocab, name = _outputs.load_program(args.program, args.vocab)
    except ValueError as err:
        raise UsageError(str(err)) from None
    spec = rasp.PROGRAMS.get(name)
    max_len = args.max_len or (spec.max_len if spec else FILE_MAX_LEN)
    try:  # sizes (BudgetError, with the estimate) and a check over no input, before any work
        _outputs.check_cost(
            len(vocab),
            max_len,
            args.precision_lengths,
            max_inputs=args.max_inputs,
            samples=args.samples,
        )
        _check.count_inputs(len(vocab), range(1, max_len + 1), args.max_inputs, args.samples)
    except ValueError as err:
        raise _as_options(err) from None
    out = prepare_out_dir(args.out)
    user = args.program if args.program.endswith(".py") else None
    guard = _loader.user_code(user, "compile and check") if user else contextlib.nullcontext()
    try:
        with guard:
            compiled, record = rasp.study(
                program,
                vocab,
                max_len,
                causal=args.causal,
                precision=args.precision,
                max_inputs=args.max_inputs,
                samples=args.samples,
                precision_lengths=args.precision_lengths,
            )
    except ValueError as err:  # refused: a causal program, a table too large, a bad value set
        raise UsageError(str(err)) from None
    paths = _outputs.write_outputs(compiled, record, out)
    print(f"{name}: {compiled.summary()}")  # singular where a count is 1
    print("\n".join(record.lines(args.precision)))
    print("wrote " + ", ".join(paths.values()))
    return 0 if record.check.agree else EXIT_FAILED
