"""Run a companion paper's trained experiment by name: ``transformer-theory experiment NAME
[--size smoke|default|...] [--out DIR]``; ``--list`` shows every name with its paper and sizes.

Each experiment is a config module ``transformer_theory/papers/<paper>/configs/<name>.py``: its
docstring gives the exact command and the result it produced, ``get_config(size)`` returns the
settings (a frozen dataclass; every experiment has a ``smoke`` size that runs in under a minute
and the ``default`` size README quotes) and ``run(config, out_dir, *, progress=True)`` trains and
writes each finished result under ``out_dir``. Chen & Zou 2024's depth experiments are run by
``transformer-theory train --experiment NAME`` (their configs are ``harness/configs/``).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
from types import ModuleType

from transformer_theory.cli._common import UsageError, format_table, prepare_out_dir

__all__ = ["add_arguments", "discover", "run"]


def discover() -> dict[str, tuple[str, ModuleType]]:
    """Every experiment config module of every paper: ``name -> (paper, module)``.

    A name must be unique across papers (a test checks it), so ``experiment NAME`` is unambiguous.
    """
    import transformer_theory.papers as papers

    found: dict[str, tuple[str, ModuleType]] = {}
    for paper in sorted(m.name for m in pkgutil.iter_modules(papers.__path__) if m.ispkg):
        package = f"transformer_theory.papers.{paper}.configs"
        try:
            configs = importlib.import_module(package)
        except ModuleNotFoundError as err:
            if err.name != package:
                raise
            continue
        for info in sorted(pkgutil.iter_modules(configs.__path__), key=lambda m: m.name):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{package}.{info.name}")
            if info.name in found:
                raise RuntimeError(
                    f"experiment name {info.name!r} is defined by {found[info.name][0]} and {paper}"
                )
            found[info.name] = (paper, module)
    return found


def _summary(module: ModuleType) -> str:
    """The docstring's first sentence (its first paragraph up to the first full stop)."""
    paragraph = " ".join((module.__doc__ or "").strip().split("\n\n")[0].split())
    end = re.search(r"(?<!\bal)\.\s+[A-Z(]", paragraph)  # not the "." of "et al."
    return paragraph if end is None else paragraph[: end.start() + 1]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", metavar="NAME", help="the experiment (see --list)")
    parser.add_argument("--list", action="store_true", help="list the experiments and exit")
    parser.add_argument(
        "--size", default="default", help="a size the config defines (default: default)"
    )
    parser.add_argument("--out", default=None, help="output directory (default: results/NAME)")


def run(args: argparse.Namespace) -> int:
    found = discover()
    if args.list or args.name is None:
        rows = [
            {
                "name": name,
                "paper": paper,
                "sizes": ",".join(getattr(module, "SIZES", ("default",))),
                "what": _summary(module),
            }
            for name, (paper, module) in found.items()
        ]
        print(format_table(rows, ["name", "paper", "sizes", "what"]))
        if args.name is None and not args.list:
            raise UsageError("NAME: give an experiment (listed above) or --list")
        return 0
    if args.name not in found:
        raise UsageError(f"NAME: unknown experiment {args.name!r}; choose from {', '.join(found)}")
    paper, module = found[args.name]
    sizes = tuple(getattr(module, "SIZES", ("default",)))
    if args.size not in sizes:
        raise UsageError(f"--size: {args.name} has sizes {', '.join(sizes)}; got {args.size!r}")
    config = module.get_config(args.size)
    out = prepare_out_dir(args.out or f"results/{args.name}")
    record = module.run(config, out, progress=True)
    print(f"{args.name} ({paper}, size {args.size}): wrote {out}")
    rows = record.get("rows") if isinstance(record, dict) else record
    if isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows):
        scalar = [k for k in rows[0] if isinstance(rows[0][k], (int, float, str, type(None)))]
        print(format_table(rows, scalar))
    return 0
