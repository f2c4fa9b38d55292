"""Command line: ``transformer-theory [COMMAND] [options]`` (also ``python -m transformer_theory``).

Thin by design: each command lives in its own module ``transformer_theory/cli/<name>.py`` with
``add_arguments(parser)`` and ``run(args) -> int`` (``X64 = True`` where it computes in float64:
:func:`main` turns JAX's 64-bit mode on before ``run``). The registry of commands, examples and
outputs is :mod:`._registry`; the parser and the dispatch are :mod:`._main`. With no command, the
default job runs on its built-in defaults.

Commands (one module each): Chen & Zou 2024's :mod:`.verify` (the main job), :mod:`.certify`,
:mod:`.construct`, :mod:`.train`, :mod:`.plot` and :mod:`.demo`; Barbero et al.
2024's :mod:`.collapse` and :mod:`.oversquash`; Conti 2024's :mod:`.heads` and
:mod:`.efficient_attention`; Svete & Cotterell 2024's :mod:`.ngram`; Sanford et al. 2023 and Peng et
al. 2024's :mod:`.sanford`; the formal-language table's :mod:`.languages`; the papers' trained
experiments by name, :mod:`.experiment`; the claims ledger, :mod:`.claims`; RASP programs
compiled and checked, :mod:`.rasp`. Each parses its options, calls the library (a paper's study
lives in its package) and prints.

The ``experiments/*.py`` scripts (and a researcher's own) read an experiment's config through
:mod:`.scripts`: their options generated from the settings as a command's are.

``transformer-theory COMMAND --help`` shows the command's whole module docstring, every option
with its default (:class:`HelpFormatter`), examples that run in under a minute (``EXAMPLES``)
and the files it writes under ``--out`` (``OUTPUTS``); ``transformer-theory --version`` prints
``transformer_theory.__version__``.
"""

from __future__ import annotations

import sys

from transformer_theory.cli._main import (
    DISK_FULL,
    HelpFormatter,
    build_parser,
    epilog,
    main,
    plain_text,
    shown_default,
)
from transformer_theory.cli._main import (
    _load_commands as _load_commands,
)
from transformer_theory.cli._registry import COMMANDS, DEFAULT_COMMAND, EXAMPLES, OUTPUTS

__all__ = [
    "COMMANDS",
    "DEFAULT_COMMAND",
    "DISK_FULL",
    "EXAMPLES",
    "OUTPUTS",
    "HelpFormatter",
    "build_parser",
    "epilog",
    "main",
    "plain_text",
    "shown_default",
]

if __name__ == "__main__":
    sys.exit(main())
