"""Run a companion paper's trained experiment by name: ``transformer-theory experiment NAME
[--size smoke|default|...] [--out DIR]``; ``--list`` shows every name with its paper and sizes.

Each experiment is a module ``transformer_theory/papers/<paper>/experiments/<name>.py`` (or, in
a paper not yet moved to that layout, ``configs/<name>.py``): its
docstring gives the exact command and the result it produced, ``get_config(size)`` returns the
settings (a frozen dataclass; every experiment has a ``smoke`` size that runs in under a minute
and the ``default`` size README quotes) and ``run(config, out_dir, *, progress=True)`` trains and
writes each finished result under ``out_dir``; a module computing in float64 declares
``X64 = True`` and JAX's 64-bit mode is turned on before ``get_config``. Chen & Zou 2024's depth
experiments are run by ``transformer-theory train --experiment NAME`` (their configs are
``harness/configs/``).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from transformer_theory import budget
from transformer_theory.cli._common import UsageError, format_table, positive_int, prepare_out_dir

__all__ = [
    "add_arguments",
    "configure",
    "discover",
    "run",
    "run_and_print",
    "steps_seed_script",
]


def discover() -> dict[str, tuple[str, ModuleType]]:
    """Every experiment config module of every paper: ``name -> (paper, module)``.

    A name must be unique across papers (a test checks it), so ``experiment NAME`` is unambiguous.
    """
    import transformer_theory.papers as papers

    found: dict[str, tuple[str, ModuleType]] = {}
    for paper in sorted(m.name for m in pkgutil.iter_modules(papers.__path__) if m.ispkg):
        configs = None
        for folder in ("experiments", "configs"):
            package = f"transformer_theory.papers.{paper}.{folder}"
            try:
                configs = importlib.import_module(package)
                break
            except ModuleNotFoundError as err:
                if err.name != package:
                    raise
        if configs is None:
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


#: Seconds the sizes took when measured, as their config modules' docstrings quote them (wall
#: time on 2 shared CPU cores): ``(name, size) -> seconds``.
MEASURED_SECONDS: dict[tuple[str, str], float] = {
    ("collapse_tasks", "default"): 295,
    ("encdec_translation", "default"): 359,
    ("dyck_k", "default"): 437,
    ("languages_generalization", "default"): 1100,
    ("composition_bound", "default"): 259,
    ("composition_cot", "default"): 1640,
    ("composition_depth", "default"): 2100,
    ("composition_one_pass", "default"): 1363,
    ("match_width", "default"): 166,
    ("match_width", "large"): 689,
    ("qsa_bits_attention", "default"): 263,
    ("qsa_bits_rnn", "default"): 192,
    ("qsa_separation", "default"): 631,
    ("ngram_exactness", "default"): 630,
    ("ngram_learnability", "default"): 286,
}
#: Seconds assumed for a size not measured: every size but ``smoke`` trains for minutes.
UNMEASURED_SECONDS = 60.0


def check_seconds(name: str, size: str) -> float:
    """The estimated seconds of ``experiment NAME --size SIZE`` (:data:`MEASURED_SECONDS`;
    :data:`UNMEASURED_SECONDS` for another size, 0 for ``smoke``), refused (``BudgetError``,
    exit 2) beyond ``TT_TIME_BUDGET`` before anything is written."""
    estimate = 0.0 if size == "smoke" else MEASURED_SECONDS.get((name, size), UNMEASURED_SECONDS)
    return budget.check_seconds(
        estimate, what=f"{name} at size {size} (as measured)", option="--size"
    )


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
    if getattr(module, "X64", False):  # the experiment computes in float64: its module says so
        from transformer_theory.precision import enable_x64

        enable_x64()
    config = module.get_config(args.size)
    check_seconds(args.name, args.size)
    out = prepare_out_dir(args.out or f"results/{args.name}")
    if getattr(module, "X64", False):  # an experiment that computes in float64 says so
        from transformer_theory.precision import enable_x64

        enable_x64()
    record = module.run(config, out, progress=True)
    print(f"{args.name} ({paper}, size {args.size}): wrote {out}")
    rows = record.get("rows") if isinstance(record, dict) else record
    if isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows):
        scalar = [k for k in rows[0] if isinstance(rows[0][k], (int, float, str, type(None)))]
        print(format_table(rows, scalar))
    return 0


# The experiments' thin scripts (``experiments/*.py``) share these two steps: settings from a
# config's size with the script's overrides, checked before any work, then the run and its table.


def configure(
    get_config: Callable[[str], Any], size: str, changes: Mapping[str, Any], out: str
) -> tuple[Any, str]:
    """``get_config(size)`` with every change that is not ``None`` applied, and the prepared
    output directory ``out``. The config's own check of a field (a ``ValueError`` starting with
    the field's name) becomes a :class:`UsageError` naming the option (``--field-name``)."""
    try:
        config = dataclasses.replace(
            get_config(size), **{k: v for k, v in changes.items() if v is not None}
        )
    except ValueError as err:
        name, _, rest = str(err).partition(":")
        raise UsageError(f"--{name.strip().replace('_', '-')}:{rest}") from None
    return config, prepare_out_dir(out)


def run_and_print(
    run: Callable[..., Any],
    configured: Callable[[], tuple[Any, str]],
    *,
    progress: bool,
    columns: Sequence[str] | None = None,
) -> int:
    """A script's body: ``configured()`` (settings and output directory; a
    :class:`UsageError` is printed as one line, exit 2, before any work), then
    ``run(config, out, progress=progress)`` and its records as a table; returns the exit code."""
    try:
        config, out = configured()
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    records = run(config, out, progress=progress)
    rows = records.get("rows") if isinstance(records, dict) else records
    if rows:
        print(format_table(rows, columns))
    return 0


def steps_seed_script(
    argv: list[str] | None,
    *,
    description: str,
    sizes: Sequence[str],
    get_config: Callable[[str], Any],
    run: Callable[..., Any],
    columns: Sequence[str],
) -> int:
    """The whole body of a thin script whose only options are ``--out``, ``--size``, ``--smoke``
    (the same as ``--size smoke``) and the overrides ``--steps`` and ``--seed``: parse ``argv``,
    then :func:`configure` and :func:`run_and_print` (progress bars unless smoke)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="default", choices=list(sizes), help="the config's size")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (tests)")
    p.add_argument("--steps", type=positive_int, default=None, help="Adam steps per model")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    size = "smoke" if args.smoke else args.size

    def configured():
        return configure(get_config, size, {"steps": args.steps, "seed": args.seed}, args.out)

    return run_and_print(run, configured, progress=size != "smoke", columns=columns)
