"""Compile a RASP program into the one parameter format and check it on every input:
``transformer-theory rasp PROGRAM``.

``PROGRAM`` is a library program (:data:`transformer_theory.rasp.PROGRAMS`: length, reverse,
histogram, sort, sort_unique, sort_by_frequency, frac_prevs, shift, detect_pattern, pair_balance,
shuffle_dyck1, shuffle_dyck2, majority, dyck1, parity) or a ``.py`` file defining ``program()``
(and optionally ``VOCAB``). The compiled model is run by the library's forward pass against the
interpreter on every input up to ``--max-len`` while there are at most ``--max-inputs`` of them,
on ``--samples`` seeded inputs of each longer length, every position compared. With
``--precision-lengths`` the longest exact length in float32 and float64 (constants chosen by the
stated law for each length) is measured beside the law's prediction. The options are the fields
of :class:`transformer_theory.rasp.experiments.program.RaspSettings`; the study is
:func:`transformer_theory.rasp._study_program.run`; this command parses, calls it and prints.
Exit 1 if the compiled model disagrees with the interpreter anywhere.
"""

from __future__ import annotations

import argparse
import re

from transformer_theory import budget
from transformer_theory.cli._common import EXIT_FAILED, UsageError, add_output, prepare_out_dir
from transformer_theory.cli._options import add_settings
from transformer_theory.papers import study_of
from transformer_theory.rasp.experiments import program as experiment
from transformer_theory.rasp.experiments.program import RaspSettings
from transformer_theory.settings import flag_of, from_args

__all__ = ["X64", "add_arguments", "run"]

X64 = True  # the check compares in float64 beside the interpreter (cli.main turns it on)


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
    study = study_of(experiment)
    try:  # the program read, sizes (BudgetError, with the estimate) and a check over no input
        loaded = study.check_sizes(settings)
    except ValueError as err:
        raise _as_options(err) from None
    out = prepare_out_dir(args.out)
    try:
        done = study.run(settings, out, loaded=loaded)
    except ValueError as err:  # refused: a causal program, a table too large, a bad value set
        raise UsageError(str(err)) from None
    print("\n".join(done.lines()))  # singular where a count is 1
    return 0 if done.record.check.agree else EXIT_FAILED
