"""Command line: ``transformer-theory [COMMAND] [options]`` (also ``python -m transformer_theory``).

Thin by design: each command lives in its own module ``transformer_theory/cli/<name>.py`` with
``add_arguments(parser)`` and ``run(args) -> int``; this file only dispatches. With no command,
the default job runs on its built-in defaults.

Commands (one module each): Chen & Zou 2024's :mod:`.verify` (the main job), :mod:`.certify`,
:mod:`.construct`, :mod:`.train`, :mod:`.plot`, :mod:`.report` and :mod:`.demo`; Barbero et al.
2024's :mod:`.collapse` and :mod:`.oversquash`; Conti 2024's :mod:`.heads` and
:mod:`.efficient_attention`; Svete & Cotterell 2024's :mod:`.ngram`; Sanford et al. 2023 and Peng et
al. 2024's :mod:`.sanford`; the formal-language table's :mod:`.languages`; the papers' trained
experiments by name, :mod:`.experiment`; the claims ledger, :mod:`.claims`; RASP programs
compiled and checked, :mod:`.rasp`. Each parses its options, calls the library (a paper's study
lives in its package) and prints.

``transformer-theory COMMAND --help`` shows the command's whole module docstring, every option
with its default (:class:`HelpFormatter`), examples that run in under a minute (``EXAMPLES``)
and the files it writes under ``--out`` (``OUTPUTS``); ``transformer-theory --version`` prints
``transformer_theory.__version__``.
"""

from __future__ import annotations

import argparse
import errno
import importlib
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
    release_out_dirs,
)
from transformer_theory.settings import OptionError

#: ``OSError`` numbers of a full disk or an exhausted quota: one line and exit 1, no traceback.
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)

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
    "rasp": (
        "transformer_theory.cli.rasp",
        "compile a RASP program into the one parameter format and check it on every input",
    ),
}
DEFAULT_COMMAND = "verify"

# name -> examples: (command line, what it shows and what it cost). Every command has one that
# runs in under a minute: the seconds are CPU time (user + system) measured 2026-11-25 on a 2-core
# CPU machine, each command run alone from a shell (the machine was shared with other jobs, so wall
# times then were longer and are not quoted); the long runs README quotes are marked as such.
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "verify": (
        (
            "transformer-theory verify --quick --out results/verify_quick",
            "smoke: toy dataset, 2 models; 20 s",
        ),
        (
            "transformer-theory verify --models 4 --out results/verify",
            "the main job (the defaults): 44 s in README",
        ),
    ),
    "certify": (
        (
            "transformer-theory certify data.json --bound sound --out results/certify",
            'with data.json = {"tokens": [[0, 1, 2], [1, 0, 2], [0, 0, 2], [1, 1, 2]], "labels": '
            '[0, 0, 1, 1], "vocab_size": 3}: the four dependent sequences of Chen & Zou 2024, '
            "§11, which no one-layer model classifies; 2 s",
        ),
    ),
    "construct": (
        (
            "transformer-theory construct --theorem 3 --n-q 6 --n-a 6 -k 2 --out results/construct",
            "Theorem 3 checked on every example; 3 s",
        ),
    ),
    "train": (
        (
            "transformer-theory train --experiment fig2_paper --size smoke --seeds 0 "
            "--tasks reasoning --out results/fig2_smoke",
            "smoke: the reasoning task at depths 1-4, tiny, 10-20 steps a run; 27 s",
        ),
        (
            "transformer-theory train --experiment fig2_depth --size quick --seeds 0 1 2 "
            "--out results/fig2_quick",
            "Figure 2 at the quick size: minutes",
        ),
    ),
    "plot": (("transformer-theory plot results/fig2_smoke", "after the train smoke example; 2 s"),),
    "demo": (("transformer-theory demo --seed 1", "6 s"),),
    "collapse": (
        (
            "transformer-theory collapse --depth 1,2 --positional none --max-len 128 --points 4 "
            "--precision float64 --out results/collapse_small",
            "small: two models, four lengths; the 1/n rate and the derived limit; 24 s",
        ),
        (
            "transformer-theory collapse --out results/collapse",
            "the full default grid: 29 min in README; stopped, the same command resumes",
        ),
    ),
    "oversquash": (
        (
            "transformer-theory oversquash --depth 1,2 --length 16 --out results/oversquash_small",
            "small: two models, 16 tokens, the bound checked; 24 s",
        ),
        ("transformer-theory oversquash --out results/oversquash", "the defaults: 2 min in README"),
    ),
    "heads": (
        (
            "transformer-theory heads results/fig2_smoke --out results/heads",
            "the train smoke example's four models; 12 s",
        ),
    ),
    "ngram": (
        (
            "transformer-theory ngram --order 3 --alphabet 3 --max-len 6 --construction 3.1,3.3 "
            "--scan-limit 10 --precision float64,bfloat16 --out results/ngram_small",
            "small: two constructions, exact in float64, broken in bfloat16; 33 s",
        ),
    ),
    "efficient-attention": (
        (
            "transformer-theory efficient-attention --variants "
            "longformer,linformer,performer,dense --max-len 1024 --error-len 256 --repeats 1 "
            "--out results/efficient_small",
            "small: four variants, time, memory and error up to n = 1024 (the slopes need n >= "
            "4096); 29 s",
        ),
        (
            "transformer-theory efficient-attention --max-len 16384 --out results/efficient",
            "README's run",
        ),
    ),
    "sanford": (
        (
            "transformer-theory sanford --task qsa,match2 --n 4,8 --q 1 "
            "--out results/sanford_small",
            "small: qSA and Match2 at N = 4, 8; 19 s",
        ),
    ),
    "claims": (
        (
            "transformer-theory claims --paper sanford2023 --out results/claims",
            "one paper's claims at the quick tier; 32 s",
        ),
    ),
    "experiment": (
        ("transformer-theory experiment --list", "the names, papers and sizes; 3 s"),
        (
            "transformer-theory experiment qsa_separation --size smoke --out results/qsa_smoke",
            "a paper's trained experiment at its smoke size; 12 s",
        ),
    ),
    "languages": (
        (
            "transformer-theory languages --max-len 32 --exhaustive-up-to 8 --parity-lengths 64 "
            "--out results/languages_small",
            "small: every recognizer row, a short PARITY sweep; 24 s",
        ),
    ),
    "rasp": (
        (
            "transformer-theory rasp reverse --max-len 5 --out results/rasp_reverse",
            "reverse on every input over abc up to length 5, float64; 10 s",
        ),
    ),
}

# name -> the files the command writes (relative to --out unless said).
OUTPUTS: dict[str, str] = {
    "verify": "verify.json, verify.csv, verify.png and witness_<family>.npz (a previous run's "
    "are removed first)",
    "certify": "certify.json",
    "construct": "construct.json",
    "train": "one directory per run (checkpoints, metrics, result), summary.json, summary.csv, "
    "aggregate.csv, experiment.json and the figures",
    "plot": "the figures, redrawn in DIR",
    "demo": "nothing (prints only)",
    "collapse": "collapse.json (rewritten after each model: resumable) and collapse.png",
    "oversquash": "oversquash.json (rewritten after each model) and oversquash.png",
    "heads": "heads.json, heads.csv and <run>_heads.png",
    "ngram": "ngram.json, ngram_precision.png (and ngram_soft.png with softmax)",
    "efficient-attention": "cost.json, cost.csv, cost.png, errors.json, errors.csv, errors.png",
    "sanford": "<task>_N<N>_....json per configuration, sanford.json, qsa_m_min.png and "
    "<task>_precision.png",
    "claims": "claims.json and claims.md (rewritten after each claim)",
    "experiment": "what the experiment's run() writes (its config module's docstring says)",
    "languages": "languages_<construction>.json, languages.json, parity_precision.json, "
    "languages_margin.png and parity_precision.png",
    "rasp": "model.npz (the compiled ModelParams), rasp.json (sizes, check, margins, constants, "
    "labels, precision limits) and rasp.png (residual layout and attention maps)",
}


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
        or default == []
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


def _load_commands() -> dict[str, tuple[ModuleType, str]]:
    return {name: (importlib.import_module(mod), help_) for name, (mod, help_) in COMMANDS.items()}


def build_parser(commands: Mapping[str, tuple[ModuleType, str]]) -> argparse.ArgumentParser:
    """The parser of every command in ``commands`` (``name -> (module, one-line help)``): each
    subcommand's ``--help`` shows its module's whole docstring (:func:`plain_text`), every
    option's default (:class:`HelpFormatter`) and its :func:`epilog`."""
    parser = argparse.ArgumentParser(
        prog="transformer-theory",
        description=plain_text(__doc__),
        epilog="run `transformer-theory COMMAND --help` for a command's options, examples and "
        "outputs",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (mod, help_) in commands.items():
        p = sub.add_parser(
            name,
            help=help_,
            description=plain_text(mod.__doc__ or help_),
            formatter_class=HelpFormatter,
        )
        mod.add_arguments(p)
        p.epilog = epilog(name, out="--out" in p._option_string_actions)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, run the command, return its exit code (see :mod:`.cli._common`).

    A :class:`~transformer_theory.cli._common.UsageError` (or a bad ``TT_MEMORY_BUDGET`` /
    ``TT_TIME_BUDGET``, checked before the command starts) becomes one line on stderr and exit 2;
    Ctrl-C becomes exit 130 with the command's own note of what was saved (commands that save
    progress catch ``KeyboardInterrupt`` themselves and re-raise it after saying so); a full disk
    (``ENOSPC`` / ``EDQUOT``) becomes one line and exit 1 (the writers are atomic: the files
    written before are whole). The ``--out`` directories the command locked are released.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = _load_commands()
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
        argv = [DEFAULT_COMMAND] + argv
    parser = build_parser(commands)
    args = parser.parse_args(argv)
    mod = commands[args.command][0]
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    args.changed = changed_options(subparsers.choices[args.command], args)
    # A shell starts a background job (`cmd &` in a script) with SIGINT ignored, so `kill -INT`
    # used to be lost and the command ran on to exit 0; every command handles Ctrl-C (exit 130).
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        except ValueError:  # not the main thread: leave it
            ignored = False
    try:
        check_environment()
        if getattr(mod, "X64", False):
            # The one place a command's 64-bit mode is set: a module computing in float64 says
            # X64 = True, and the switch is flipped here, before the command makes any array.
            from transformer_theory.precision import enable_x64

            enable_x64()
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
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())

__all__ = [
    "COMMANDS",
    "EXAMPLES",
    "OUTPUTS",
    "HelpFormatter",
    "build_parser",
    "epilog",
    "main",
    "plain_text",
    "shown_default",
]
