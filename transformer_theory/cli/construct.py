"""Build the Chen & Zou 2024 constructions (Theorems 1, 3, 5, 6) and check them on every example (or
a sample).

Prints a table (theorem, task, sizes, layers, heads, d', examples checked, accuracy, min margin)
and writes it as JSON to ``--out/construct.json``. The options are the fields of
:class:`~transformer_theory.constructions.sizes.ConstructSettings`; each construction's memory
and the checks' time are estimated from them before anything is built. Example::

    transformer-theory construct --theorem 3 --n-q 6 --n-a 6 -k 2
    transformer-theory construct --theorem 6 --alphabet 100 --n-a 100 --ictm-template-length 5 \\
        -k 3 --samples 100000
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Literal

from transformer_theory import budget, settings
from transformer_theory.cli import _common
from transformer_theory.cli._common import add_output
from transformer_theory.cli._options import add_settings
from transformer_theory.constructions.sizes import THEOREMS, ConstructSettings
from transformer_theory.settings import setting

__all__ = ["X64", "add_arguments", "run"]

X64 = True  # the constructions are built and checked in float64


@dataclasses.dataclass(frozen=True)
class TheoremChoice:
    """Which constructions are built.

    Attributes:
      theorem: which theorems (default: all), several words or a comma list.
    """

    theorem: tuple[Literal[THEOREMS], ...] = setting(THEOREMS, words=True)

    def __post_init__(self) -> None:
        if not self.theorem:
            raise ValueError(f"theorem: expected one or more of {THEOREMS}, got none")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_settings(p, TheoremChoice)
    add_settings(p, ConstructSettings)
    out = os.path.join(".", "results", "construct")
    add_output(p, out, help="output directory (construct.json)")


def run(args: argparse.Namespace) -> int:
    from transformer_theory.constructions import study
    from transformer_theory.tables import table

    chosen = settings.from_args(TheoremChoice, args)
    s = settings.from_args(ConstructSettings, args, theorem=chosen.theorem)
    # Everything the user gave is checked before anything is built: the output directory, then
    # the memory each construction needs (from its sizes alone), then the tasks themselves.
    out = _common.prepare_out_dir(args.out)
    try:  # the study names fields; the command shows their options
        with settings.naming_options(ConstructSettings):
            planned, seconds = study.check_budget(s)
    except (budget.BudgetError, settings.OptionError):
        raise
    except ValueError as err:  # a task refused its sizes, naming no field
        raise _common.UsageError(str(err)) from None
    print(f"estimate: ~{budget.format_seconds(seconds)} of checks", file=sys.stderr, flush=True)
    record = study.run(
        s,
        out,
        planned=planned,
        progress=sys.stderr.isatty(),
        log=lambda line: print(line, file=sys.stderr, flush=True),
    )
    print(table(record.rows, study.TABLE_COLUMNS))
    print(f"wrote {os.path.join(out, 'construct.json')}")
    return 0 if all(r.exact for r in record.rows) else 1
