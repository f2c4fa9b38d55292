"""Command line: ``transformer-theory [COMMAND] [options]`` (also ``python -m transformer_theory``).

Thin by design: each command lives in its own module ``transformer_theory/cli/<name>.py`` with
``add_arguments(parser)`` and ``run(args) -> int``; this file only dispatches. With no command,
the default job runs on its built-in defaults.

Commands (one module each): Chen & Zou 2024's :mod:`.verify` (the main job), :mod:`.certify`,
:mod:`.construct`, :mod:`.train`, :mod:`.plot`, :mod:`.report` and :mod:`.demo`; Barbero et al.
2024's :mod:`.collapse` and :mod:`.oversquash`; Conti 2024's :mod:`.heads` and
:mod:`.efficient_attention`; Svete & Cotterell 2024's :mod:`.ngram`; Sanford et al. 2023 and Peng et
al. 2024's :mod:`.sanford`; the formal-language table's :mod:`.languages`; the papers' trained
experiments by name, :mod:`.experiment`; the claims ledger, :mod:`.claims`. Each parses its options,
calls the library (a paper's study lives in its package) and prints.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from collections.abc import Mapping, Sequence
from types import ModuleType

from transformer_theory.budget import BudgetError
from transformer_theory.cli._common import EXIT_INTERRUPTED, EXIT_USAGE, UsageError

# name -> (module, one-line help).
COMMANDS = {
    "verify": (
        "transformer_theory.cli.verify",
        "batch-verify Definition 3 and Propositions 7-10 (the main job)",
    ),
    "certify": (
        "transformer_theory.cli.certify",
        "certify that no one-layer model classifies a user's dataset",
    ),
    "construct": (
        "transformer_theory.cli.construct",
        "build and exhaustively check the constructions of Theorems 1, 3, 5, 6",
    ),
    "train": ("transformer_theory.cli.train", "train depth experiments (Flax NNX + Optax)"),
    "plot": ("transformer_theory.cli.plot", "plot the metrics of a training output directory"),
    "demo": ("transformer_theory.cli.demo", "a small tour of the core"),
    "collapse": (
        "transformer_theory.cli.collapse",
        "representational collapse by length and precision (Barbero et al. 2024)",
    ),
    "oversquash": (
        "transformer_theory.cli.oversquash",
        "over-squashing: sensitivities vs attention paths, with a product-of-attention bound",
    ),
    "heads": (
        "transformer_theory.cli.heads",
        "classify attention heads of trained models (positional / syntactic / rare-token)",
    ),
    "ngram": (
        "transformer_theory.cli.ngram",
        "n-gram LMs as transformers (Svete & Cotterell 2024): exactness and precision",
    ),
    "efficient-attention": (
        "transformer_theory.cli.efficient_attention",
        "efficient attention against exact attention: error vs budget, time and memory vs n",
    ),
    "sanford": (
        "transformer_theory.cli.sanford",
        "build and check qSA / Match2 / Match3 constructions (Sanford et al. 2023)",
    ),
    "claims": (
        "transformer_theory.cli.claims",
        "check the claims ledger: every statement of the papers, its status and evidence",
    ),
    "experiment": (
        "transformer_theory.cli.experiment",
        "run a companion paper's trained experiment by name (--list shows them)",
    ),
    "languages": (
        "transformer_theory.cli.languages",
        "build and check MAJORITY / PARITY / Dyck-1 recognizers; PARITY's margin vs n",
    ),
}
DEFAULT_COMMAND = "verify"


def _load_commands() -> dict[str, tuple[ModuleType, str]]:
    return {name: (importlib.import_module(mod), help_) for name, (mod, help_) in COMMANDS.items()}


def build_parser(commands: Mapping[str, tuple[ModuleType, str]]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="transformer-theory", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    for name, (mod, help_) in commands.items():
        p = sub.add_parser(
            name, help=help_, description=(mod.__doc__ or help_).strip().splitlines()[0]
        )
        mod.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, run the command, return its exit code (see :mod:`.cli._common`).

    A :class:`~transformer_theory.cli._common.UsageError` becomes one line on stderr and exit 2;
    Ctrl-C becomes exit 130 with the command's own note of what was saved (commands that save
    progress catch ``KeyboardInterrupt`` themselves and re-raise it after saying so).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = _load_commands()
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = [DEFAULT_COMMAND] + argv
    args = build_parser(commands).parse_args(argv)
    mod = commands[args.command][0]
    # A shell starts a background job (`cmd &` in a script) with SIGINT ignored, so `kill -INT`
    # used to be lost and the command ran on to exit 0; every command handles Ctrl-C (exit 130).
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        except ValueError:  # not the main thread: leave it
            ignored = False
    try:
        return int(mod.run(args) or 0)
    except (UsageError, BudgetError) as err:
        # BudgetError: a size refused before the work, with its estimate (budget.py).
        print(f"transformer-theory {args.command}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"transformer-theory {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())

__all__ = [
    "COMMANDS",
    "main",
]
