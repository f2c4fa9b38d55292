"""Build the Chen & Zou 2024 constructions (Theorems 1, 3, 5, 6) and check them on every example (or
a sample).

Prints a table (theorem, task, sizes, layers, heads, d', examples checked, accuracy, min margin)
and writes it as JSON to ``--out/construct.json``. Example::

    transformer-theory construct --theorem 3 --n-q 6 --n-a 6 -k 2
    transformer-theory construct --theorem 6 --alphabet 100 --n-a 100 --ictm-template-length 5 \\
        -k 3 --samples 100000
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import TYPE_CHECKING

from transformer_theory import budget
from transformer_theory.cli import _common
from transformer_theory.jsonio import write_json

if TYPE_CHECKING:
    from transformer_theory.constructions.report import Planned, Sizes
from collections.abc import Iterable

# Seconds per unit of checking work, ``examples x n D (n + D) sum(H)`` (the forward pass's
# multiply-adds, up to a constant), fitted on this project's 2-core development machine while it
# was shared (load average ~15), 2026-11-24: `construct --theorem 3 --n-q 10 --n-a 10 -k 3`
# checked 1,555,200 examples (n = 11, d' = 32) in 214.9 s, 4.6e-9 s per unit. On an idle machine
# the estimate is high by a few times: it is meant to refuse hours, not to plan minutes.
SECONDS_PER_WORK = 4.5e-9


def check_seconds(planned: Iterable[Planned], sizes: Sizes, samples: int | None) -> float:
    """Estimated seconds of checking every planned row; raises ``BudgetError`` (exit 2) naming
    the size options when it exceeds the time budget (``TT_TIME_BUDGET``, default 4 h)."""
    from transformer_theory.constructions import report

    total, options = 0.0, set()
    for p in planned:
        count = p.task.size if report.is_exhaustive(p.task, samples) else samples
        shape = next(sh for sh in report.shapes(p.theorem, sizes) if sh.label == p.label)
        n, d = shape.seq_len, shape.width
        total += SECONDS_PER_WORK * float(count) * n * d * (n + d) * sum(shape.heads)
        options.update(_options(p.theorem))
    budget.check_seconds(
        total,
        what="checking every example of these constructions",
        option="--samples or " + "/".join(sorted(options)),
    )
    return total


# The task fields and the options that set them.
_OPTION = {
    "alphabet_size": "--alphabet",
    "alphabet": "--alphabet",
    "length": "--length",
    "num_sequences": "--num-sequences",
    "n_q": "--n-q",
    "n_a": "--n-a",
    "k": "-k",
    "template_length": "--template-length",
}


def _gib(n: int) -> str:
    gib = n / 2**30
    return f"{gib:,.1f} GiB" if gib < 1e5 else f"{gib:.1e} GiB"


def _options(theorem: int) -> list[str]:
    from transformer_theory.constructions.report import SIZE_FIELDS

    return ["--" + f.replace("_", "-") if f != "k" else "-k" for f in SIZE_FIELDS[theorem]]


def add_arguments(p: argparse.ArgumentParser) -> None:
    from transformer_theory.constructions.report import THEOREMS, Sizes

    dflt = Sizes()
    p.add_argument(
        "--theorem",
        type=int,
        nargs="+",
        choices=THEOREMS,
        default=list(THEOREMS),
        help="which theorems (default: all)",
    )
    p.add_argument(
        "--alphabet",
        type=_common.positive_int,
        default=dflt.alphabet,
        help="symbols (Theorems 1, 5, 6)",
    )
    p.add_argument(
        "--length",
        type=_common.positive_int,
        default=dflt.length,
        help="sequence length before the CLS (Theorem 1)",
    )
    p.add_argument(
        "--num-sequences",
        type=_common.positive_int,
        default=dflt.num_sequences,
        help="N sequences (Theorem 1)",
    )
    p.add_argument(
        "--template-length",
        type=_common.positive_int,
        default=dflt.template_length,
        help="l: all templates of this length (Theorem 5)",
    )
    p.add_argument(
        "--ictm-template-length",
        type=_common.positive_int,
        default=dflt.ictm_template_length,
        help="l: all templates of this length (Theorem 6)",
    )
    p.add_argument(
        "--n-q", type=_common.positive_int, default=dflt.n_q, help="questions (Theorem 3)"
    )
    p.add_argument(
        "--n-a", type=_common.positive_int, default=dflt.n_a, help="answers (Theorems 3, 6)"
    )
    p.add_argument(
        "-k",
        type=_common.positive_int,
        default=dflt.k,
        help="question-answer pairs / context blocks (Theorems 3, 6)",
    )
    p.add_argument(
        "--samples",
        type=_common.positive_int,
        default=None,
        help="check this many sampled examples instead of all",
    )
    p.add_argument(
        "--seed", type=_common.nonnegative_int, default=0, help="PRNG seed of the sampled check"
    )
    p.add_argument(
        "--chunk-size", type=_common.positive_int, default=4096, help="examples per device call"
    )
    p.add_argument(
        "--out",
        default=os.path.join(".", "results", "construct"),
        help="output directory for construct.json",
    )


def run(args: argparse.Namespace) -> int:
    import jax

    jax.config.update("jax_enable_x64", True)
    from transformer_theory.constructions import report

    sizes = report.Sizes(
        alphabet=args.alphabet,
        length=args.length,
        num_sequences=args.num_sequences,
        template_length=args.template_length,
        ictm_template_length=args.ictm_template_length,
        n_q=args.n_q,
        n_a=args.n_a,
        k=args.k,
    )
    # Everything the user gave is checked before anything is built: the output directory, then
    # the memory each construction needs (from its sizes alone), then the tasks themselves.
    out = _common.prepare_out_dir(args.out)
    available = budget.available_memory()
    for theorem in args.theorem:
        for shape in report.shapes(theorem, sizes):
            need = report.memory_bytes(shape, args.chunk_size)
            part = max((k for k in need if k != "total"), key=need.get)
            budget.check_memory(
                need["total"],
                what=f"theorem {shape.label} at these sizes (mostly {part}: "
                f"{_gib(need[part])}; d' = {shape.width})",
                option=", ".join(_options(theorem)),
                available=available,
            )
    try:
        planned = report.plan(args.theorem, sizes)
    except ValueError as err:  # a task's own check names its field: name the option instead
        field, sep, rest = str(err).partition(":")
        option = _OPTION.get(field.strip())
        raise _common.UsageError(f"{option}:{rest}" if sep and option else str(err)) from None
    seconds = check_seconds(planned, sizes, args.samples)
    print(f"estimate: ~{budget.format_seconds(seconds)} of checks", file=sys.stderr, flush=True)
    rows = report.check_plan(
        planned,
        samples=args.samples,
        seed=args.seed,
        chunk_size=args.chunk_size,
        progress=sys.stderr.isatty(),
        log=lambda line: print(line, file=sys.stderr, flush=True),
    )
    print(report.format_table(rows))
    path = os.path.join(out, "construct.json")
    write_json(
        path,
        dict(sizes=dataclasses.asdict(sizes), samples=args.samples, seed=args.seed, rows=rows),
        indent=2,
    )
    print(f"wrote {path}")
    return 0 if all(r["accuracy"] == 1.0 and r["min_margin"] > 0 for r in rows) else 1
