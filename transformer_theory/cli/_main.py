"""The command line's machinery: the parser of every command (:func:`build_parser`, help text by
:class:`HelpFormatter`) and :func:`main`, which dispatches to a command module's ``run`` and turns
its errors into exit codes (see :mod:`transformer_theory.cli`)."""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import re
import signal
import sys
import textwrap
from collections.abc import Mapping, Sequence
from types import ModuleType

from transformer_theory import __version__
from transformer_theory.budget import BudgetError, BudgetSettingError, check_environment
from transformer_theory.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    UsageError,
    changed_options,
    enable_x64_if_declared,
    release_out_dirs,
)
from transformer_theory.cli._registry import COMMANDS, DEFAULT_COMMAND, EXAMPLES, OUTPUTS
from transformer_theory.settings import OptionError

#: ``OSError`` numbers of a full disk or an exhausted quota: one line and exit 1, no traceback.
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The help of every command: every option's default appended as ``(default: X)`` unless its
    help already says ``default`` (so it is never said twice) or there is none to show (no
    default, a flag); descriptions and epilogs refilled to the terminal's width paragraph by
    paragraph and list item by list item, indented blocks (examples) kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        shown = shown_default(action)
        if shown is None or re.search(r"\bdefault\b", text, re.IGNORECASE):
            return text
        return f"{text} (default: {shown.replace('%', '%%')})"

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks = []
        for block in re.split(r"\n\s*\n", text.strip("\n")):
            lines = block.splitlines()
            if all(line[:1].isspace() for line in lines[1:] or [" "]) and (
                block[:1].isspace() or len(lines) > 1
            ):  # an indented block (an example), or a heading over one: kept line by line
                blocks.append(textwrap.indent(block, indent))
                continue
            blocks.append(
                "\n".join(
                    textwrap.fill(
                        " ".join(item.split()),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent + "  " * item.startswith("- "),
                        break_on_hyphens=False,
                        break_long_words=False,
                    )
                    for item in re.split(r"\n(?=- )", block)
                )
            )
        return "\n\n".join(blocks)


def shown_default(action: argparse.Action) -> str | None:
    """How ``--help`` shows ``action``'s default: a comma list for a list or tuple, the value
    otherwise; None when there is nothing to show (no default, an empty list, a flag's False, a
    positional argument, ``--help``)."""
    default = action.default
    if (
        not action.option_strings
        or action.nargs == 0  # store_true / store_false / help / version
        or default is None
        or default is argparse.SUPPRESS
        or default in ([], ())
    ):
        return None
    if isinstance(default, (list, tuple)):
        return ",".join(map(str, default))
    return str(default)


def plain_text(doc: str) -> str:
    """A module docstring as a terminal shows it: reST roles (``:func:``, ``:mod:``, ...) reduced
    to their target (its last name after a ``~``, without a leading dot), double backquotes
    dropped, and a paragraph's closing ``::`` as ``:``; :class:`HelpFormatter` refills the lines."""
    doc = (doc or "").strip()
    doc = re.sub(r":[a-z]+:`~[\w.]*?\.?(\w+)`", r"\1", doc)
    doc = re.sub(r":[a-z]+:`\.?([^`]+)`", r"\1", doc)
    return re.sub(r"(\w)::$", r"\1:", doc.replace("``", ""), flags=re.MULTILINE)


def epilog(name: str, out: bool = True) -> str:
    """The examples of ``EXAMPLES`` and the files of ``OUTPUTS`` for command ``name``
    (``out``: it has an ``--out`` option the files are written under)."""
    lines = []
    for command, note in EXAMPLES.get(name, ()):
        lines += [f"  # {note}", f"  {command}"]
    if lines:
        lines.insert(0, "examples (the seconds are CPU time on 2 cores, 2026-11-25):")
    if name in OUTPUTS:
        lines += ["", f"writes{', under --out' if out else ''}: {OUTPUTS[name]}"]
    return "\n".join(lines).strip()


#: What ``transformer-theory --help`` opens with: what the tool does, its main commands and a first
#: example (how the command modules are written is the developer's part, in
#: :mod:`transformer_theory.cli`'s docstring and the API pages).
DESCRIPTION = """\
Check what the theory of transformers says they can and cannot compute, by running it: each
statement of Chen & Zou 2024, Barbero et al. 2024, Svete & Cotterell 2024, Strobl et al. 2024's
formal-language table, Sanford et al. 2023, Peng et al. 2024 and Conti 2024 is re-checked on real
models (a proof in exact arithmetic, a certificate in ball arithmetic, a float64 check with a
derived tolerance, or a measurement), and RASP programs are compiled into the same models.

Main commands:

  claims      the papers' statements, each with its status, evidence and re-checking command
  verify      Chen & Zou 2024's Definition 3 and Propositions 7-10 on batches of models (the
              default when no command is given)
  certify     prove that no one-layer model classifies a dataset (Chen & Zou 2024's Theorem 2)
  construct   build the constructions of Theorems 1, 3, 5, 6 and check them exhaustively
  rasp        compile a RASP program and check it on every input
  experiment  run a paper's trained experiment by name (--list shows them)

A first example (32 s on 2 CPU cores): Sanford et al. 2023's claims at the quick tier:

  transformer-theory claims --paper sanford2023 --out results/claims

Every command writes its records and figures under --out and refuses, with a one-line message
and exit 2, options it cannot run or a size that would not fit in memory or time.
"""


def _load_commands(only: str | None = "") -> dict[str, tuple[ModuleType | None, str]]:
    """``name -> (module, one-line help)`` of every command; with ``only``, the module of that
    command alone is imported (None for the others: the top-level ``--help`` lists them from the
    registry, so a command imports nothing of the others, nor ``--help`` any paper)."""
    return {
        name: (importlib.import_module(mod) if only == "" or name == only else None, help_)
        for name, (mod, help_) in COMMANDS.items()
    }


def build_parser(
    commands: Mapping[str, tuple[ModuleType | None, str]],
) -> argparse.ArgumentParser:
    """The parser of every command in ``commands`` (``name -> (module, one-line help)``): each
    subcommand's ``--help`` shows its module's whole docstring (:func:`plain_text`), every
    option's default (:class:`HelpFormatter`) and its :func:`epilog`; a command whose module is
    None (not imported) is listed by its help alone."""
    from transformer_theory.cli._options import top_parser

    parser = top_parser(
        __version__,
        prog="transformer-theory",
        description=DESCRIPTION,
        epilog="run `transformer-theory COMMAND --help` for a command's options, examples and "
        "outputs",
        formatter_class=HelpFormatter,
    )
    if all(mod is None for mod, _ in commands.values()):  # the listing alone: no jsonargparse
        sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    else:
        from transformer_theory.cli._options import CommandParser, add_config_file

        sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for name, (mod, help_) in commands.items():
        if mod is None:
            sub.add_parser(name, help=help_)
            continue
        p = sub.add_parser(
            name,
            help=help_,
            description=plain_text(mod.__doc__ or help_),
            formatter_class=HelpFormatter,
        )
        mod.add_arguments(p)
        if "--config" not in p._option_string_actions:  # train's --config is a Python file
            add_config_file(p)
        p.epilog = epilog(name, out="--out" in p._option_string_actions)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, run the command, return its exit code (see :mod:`.cli._common` and
    :func:`run_command`).

    Called as the process's entry (``argv`` None: the console script, ``python -m
    transformer_theory``), an interrupted command (exit 130) leaves through ``os._exit`` once
    its line is printed and the streams flushed: a Ctrl-C that lands while XLA compiles or runs
    leaves XLA's worker threads busy, and the interpreter's shutdown finalizing them crashed the
    process with SIGSEGV (exit 139) after "interrupted" was printed. Nothing is left to do by
    then: every file is written atomically and every ``--out`` lock is released.
    """
    code = run_command(argv)
    if argv is None and code == EXIT_INTERRUPTED:
        _leave(code)
    return code


def _leave(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe, a closed stream: nothing more to say
            pass
    os._exit(code)


def run_command(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, run the command, return its exit code (see :mod:`.cli._common`).

    A :class:`~transformer_theory.cli._common.UsageError` (or a bad ``TT_MEMORY_BUDGET`` /
    ``TT_TIME_BUDGET``, checked before the command starts) becomes one line on stderr and exit 2;
    Ctrl-C becomes exit 130 with the command's own note of what was saved (commands that save
    progress catch ``KeyboardInterrupt`` themselves and re-raise it after saying so); a full disk
    (``ENOSPC`` / ``EDQUOT``) becomes one line and exit 1 (the writers are atomic: the files
    written before are whole). The ``--out`` directories the command locked are released.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    # A shell starts a background job (`cmd &` in a script) with SIGINT ignored, so `kill -INT`
    # used to be lost and the command ran on to exit 0; every command handles Ctrl-C (exit 130),
    # from the first import on. The handler found is put back on the way out, whatever it was.
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        except ValueError:  # not the main thread: leave it
            ignored = False
    try:
        return _dispatch(argv)
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _dispatch(argv: list[str]) -> int:
    try:  # importing the commands and building the parser take seconds: Ctrl-C is one line
        if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
            argv = [DEFAULT_COMMAND] + argv
        name = argv[0] if argv[0] in COMMANDS else None
        commands = _load_commands(name)  # that one alone
        parser = build_parser(commands)
        if name is None:  # --help, --version or an unknown command: argparse says which
            parser.parse_args(argv)
        subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        sub = subparsers.choices[name]
        from jsonargparse import ArgumentError

        from transformer_theory.cli._options import one_line

        try:  # jsonargparse's error, or one its types raise, as one line naming the option
            args = sub.parse_args(argv[1:])
        except ArgumentError as err:
            print(f"transformer-theory {name}: error: {one_line(sub, err)}", file=sys.stderr)
            return EXIT_USAGE
        args.command = name
    except KeyboardInterrupt:
        print("transformer-theory: interrupted before the command started", file=sys.stderr)
        return EXIT_INTERRUPTED
    mod = commands[args.command][0]
    assert mod is not None  # the command parsed is the one imported
    args.changed = changed_options(sub, args)
    try:
        check_environment()
        enable_x64_if_declared(mod)  # a command computing in float64 says X64 = True
        return int(mod.run(args) or 0)
    except (UsageError, OptionError, BudgetError, BudgetSettingError) as err:
        # BudgetError: a size refused before the work, with its estimate (budget.py).
        print(f"transformer-theory {args.command}: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"transformer-theory {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as err:
        if err.errno not in DISK_FULL:
            raise
        where = f" writing {err.filename}" if err.filename else ""
        print(
            f"transformer-theory {args.command}: error: no space left on the device{where} "
            f"({err.strerror or err}); the files written before are whole; free space and rerun",
            file=sys.stderr,
        )
        return EXIT_FAILED
    finally:
        release_out_dirs()
