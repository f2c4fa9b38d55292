"""Run a companion paper's trained experiment by name: ``transformer-theory experiment NAME
[--size smoke|default|...] [--out DIR]``; ``--list`` shows every name with its paper and sizes.

Each experiment is a module ``transformer_theory/papers/<paper>/experiments/<name>.py``, found on
disk: its docstring gives the exact command and the result it produced, ``get_config(size)``
returns the settings (a frozen dataclass; every experiment has a ``smoke`` size that runs in under
a minute and the ``default`` size README quotes; ``--set field=value`` changes one field, parsed
and checked as that field's option would be) and ``run(config, out_dir, *, progress=True)``
trains and writes each finished result under ``out_dir``; a module computing in float64 declares
``X64 = True`` and JAX's 64-bit mode is turned on before ``get_config``. Chen & Zou 2024's depth
experiments (``papers/chen_zou2024/experiments/``) are also run by ``transformer-theory train
--experiment NAME``, whose options change their settings field by field.
"""

from __future__ import annotations

import argparse
import dataclasses
import textwrap

from transformer_theory.cli._common import (
    Overrides,
    UsageError,
    add_output,
    enable_x64_if_declared,
    prepare_out_dir,
)
from transformer_theory.cli._experiments import check_seconds, discover, summary
from transformer_theory.cli._options import add_settings, override
from transformer_theory.papers import study_of
from transformer_theory.settings import setting
from transformer_theory.tables import rows_of, table

__all__ = ["add_arguments", "discover", "run"]


@dataclasses.dataclass(frozen=True)
class ExperimentChoice:
    """Which experiment, at which size (each experiment's own settings are its config's).

    Attributes:
      name: the experiment (see --list).
      list: list the experiments and exit.
      size: a size the config defines.
    """

    name: str | None = setting(None, flag="NAME")
    list: bool = False  # noqa: A003 - the option's word
    size: str = "default"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_settings(parser, ExperimentChoice)
    add_settings(parser, Overrides)  # --set FIELD=VALUE, repeatable
    add_output(parser, None, help="output directory (default: results/NAME)")


def run(args: argparse.Namespace) -> int:
    found = discover()
    if args.list or args.name is None:
        rows = [
            {
                "name": name,
                "paper": paper,
                "sizes": ",".join(getattr(module, "SIZES", ("default",))),
                "what": textwrap.shorten(summary(module), 88, placeholder=" ..."),
            }
            for name, (paper, module) in found.items()
        ]
        print(table(rows, ["name", "paper", "sizes", "what"]))
        print(
            "\nThe whole description, the command and the result of one: python -m pydoc "
            "transformer_theory.papers.PAPER.experiments.NAME"
        )
        if args.name is None and not args.list:
            raise UsageError("NAME: give an experiment (listed above) or --list")
        return 0
    if args.name not in found:
        raise UsageError(f"NAME: unknown experiment {args.name!r}; choose from {', '.join(found)}")
    paper, module = found[args.name]
    sizes = tuple(getattr(module, "SIZES", ("default",)))
    if args.size not in sizes:
        raise UsageError(f"--size: {args.name} has sizes {', '.join(sizes)}; got {args.size!r}")
    enable_x64_if_declared(module)  # this experiment computes in float64: its module says so
    shipped = module.get_config(args.size)
    config = override(shipped, args.sets)  # refused before any work
    check_seconds(args.name, args.size, config, shipped)
    out = prepare_out_dir(f"results/{args.name}" if args.out is None else args.out)
    record = study_of(module).run(config, out, progress=True)
    print(f"{args.name} ({paper}, size {args.size}): wrote {out}")
    rows = rows_of(record)
    if rows:
        scalar = [k for k in rows[0] if isinstance(rows[0][k], (int, float, str, type(None)))]
        print(table(rows, scalar))
    return 0
