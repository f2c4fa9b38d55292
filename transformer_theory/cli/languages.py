"""Build and check the formal-language recognizers: MAJORITY, PARITY (with and without the
LayerNorm trick), Dyck-1 -- the rows of Strobl et al. 2024's table that are built exactly.

Prints a table per part (the recognizer rows, PARITY's precision sweep) and writes one JSON record
per row to ``--out/languages_<construction>.json``, all of them to ``--out/languages.json``,
PARITY's precision sweep to ``--out/parity_precision.json`` and the plots ``languages_margin.png``
(smallest margin against length) and ``parity_precision.png`` (cross-entropy and margin against
``n`` in float32 and float64). Example::

    transformer-theory languages --max-len 256 --parity-lengths 64,256,1024,4096 \\
        --out results/languages

The study is :func:`transformer_theory.papers.formal_languages.study.run`; this command parses,
checks and prints. Before any work it estimates peak memory and work from the settings
(:func:`~transformer_theory.papers.formal_languages.study.estimate`) and refuses (exit 2, naming
the options to lower) what would not fit in memory or run past the time budget
(``TT_MEMORY_BUDGET`` / ``TT_TIME_BUDGET`` override the machine's figures). Ctrl-C: exit 130 with
the rows finished so far written. Exit 1 if a recognizer misclassifies a string in float64.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_arguments", "run"]

DEFAULT_SAMPLES = 64
DEFAULT_PARITY_SAMPLES = 8


def _parity_lengths(text: str) -> list[int]:
    """``--parity-lengths``: a comma list of lengths in ``1..MAX_PARITY_LENGTH``, or ``none``
    (parsed in :func:`run`, so a bad list is a one-line usage error, exit 2)."""
    from transformer_theory.cli._common import UsageError, comma_list
    from transformer_theory.papers.formal_languages.study import MAX_PARITY_LENGTH

    if text.strip() == "none":
        return []
    try:
        values = comma_list(int, minimum=1)(text)
    except argparse.ArgumentTypeError as err:
        raise UsageError(f"--parity-lengths: {err} (or 'none')") from None
    if max(values) > MAX_PARITY_LENGTH:
        raise UsageError(
            f"--parity-lengths: every length must be in 1..{MAX_PARITY_LENGTH}, got {text!r}"
        )
    return values


def add_arguments(p: argparse.ArgumentParser) -> None:
    from transformer_theory.cli._common import nonnegative_int, positive_int
    from transformer_theory.papers.formal_languages.study import MAX_EXHAUSTIVE, MAX_PARITY_LENGTH

    p.add_argument(
        "--out", default="results/languages", help="output directory (JSON records + PNG plots)"
    )
    p.add_argument(
        "--max-len",
        type=positive_int,
        default=256,
        help="longest sampled length (powers of 2 from 16, then this one; default 256)",
    )
    p.add_argument(
        "--exhaustive-up-to",
        type=positive_int,
        default=10,
        help=f"check every string of lengths 1..this (at most {MAX_EXHAUSTIVE}; default 10)",
    )
    p.add_argument(
        "--samples",
        type=positive_int,
        default=None,
        help=f"balanced strings per sampled length (default {DEFAULT_SAMPLES}; refused when "
        "no length is sampled, i.e. --max-len <= --exhaustive-up-to)",
    )
    p.add_argument(
        "--parity-lengths",
        default="64,256,1024,2048",
        help=f"PARITY precision sweep: string lengths (comma list, each <= {MAX_PARITY_LENGTH}; "
        "'none' skips the sweep)",
    )
    p.add_argument(
        "--parity-samples",
        type=positive_int,
        default=None,
        help=f"strings per PARITY sweep length (default {DEFAULT_PARITY_SAMPLES}; refused with "
        "--parity-lengths none)",
    )
    p.add_argument("--rows", default="all", help="comma list of recognizers to check (default all)")
    p.add_argument(
        "--seed",
        type=nonnegative_int,
        default=None,
        help="seed of the sampled strings (default 0; refused when nothing is sampled)",
    )


def _check_options(args, sampled) -> list[int]:
    """Refuse options out of range or that do not apply (given explicitly, they would be
    silently ignored); returns the parsed ``--parity-lengths``."""
    from transformer_theory.cli._common import UsageError
    from transformer_theory.papers.formal_languages.study import MAX_EXHAUSTIVE

    if args.exhaustive_up_to > MAX_EXHAUSTIVE:
        raise UsageError(f"--exhaustive-up-to: at most {MAX_EXHAUSTIVE} (2^L strings per length)")
    if args.exhaustive_up_to > args.max_len:
        raise UsageError(
            f"--exhaustive-up-to: {args.exhaustive_up_to} exceeds --max-len {args.max_len}"
        )
    parity_lengths = _parity_lengths(args.parity_lengths)
    if args.samples is not None and not sampled:
        raise UsageError(
            f"--samples: no length is sampled (--max-len {args.max_len} <= --exhaustive-up-to "
            f"{args.exhaustive_up_to}: every length is checked exhaustively); drop --samples"
        )
    if args.parity_samples is not None and not parity_lengths:
        raise UsageError("--parity-samples: the sweep is off (--parity-lengths none)")
    if args.seed is not None and not sampled and not parity_lengths:
        raise UsageError("--seed: nothing is sampled (every length is exhaustive, no sweep)")
    return parity_lengths


def _check_budget(settings) -> str:
    """Refuse (BudgetError) what would not fit; return the estimate's summary line."""
    from transformer_theory import budget
    from transformer_theory.papers.formal_languages import study

    cost = study.estimate(settings)
    budget.check_memory(
        cost.rows_bytes,
        what=f"checking {settings.samples} strings of length "
        f"{max(settings.sampled_lengths, default=0)}",
        option="--max-len/--samples",
    )
    budget.check_memory(
        cost.sweep_bytes,
        what=f"the PARITY sweep ({settings.parity_samples} strings of length "
        f"{max(settings.parity_lengths, default=0)})",
        option="--parity-lengths/--parity-samples",
    )
    budget.check_seconds(
        cost.seconds,
        what=f"{cost.entries:.3g} attention-map entries",
        option="--max-len/--samples"
        if cost.rows_seconds >= cost.sweep_seconds
        else "--parity-lengths/--parity-samples",
    )
    return (
        f"estimate: peak {budget.format_bytes(cost.peak_bytes)}, "
        f"{cost.entries:.3g} attention-map entries "
        f"(about {budget.format_seconds(cost.seconds)} of computation, plus compilation)"
    )


def run(args: argparse.Namespace) -> int:
    from transformer_theory.cli._common import (
        EXIT_FAILED,
        EXIT_INTERRUPTED,
        EXIT_OK,
        format_table,
        name_list,
        prepare_out_dir,
    )
    from transformer_theory.papers.formal_languages import study
    from transformer_theory.papers.formal_languages.constructions import RECOGNIZERS

    sampled = study.sampled_lengths(args.max_len, args.exhaustive_up_to)
    parity_lengths = _check_options(args, sampled)
    settings = study.TableSettings(
        rows=tuple(name_list(args.rows, RECOGNIZERS, "--rows")),
        max_len=args.max_len,
        exhaustive_up_to=args.exhaustive_up_to,
        samples=DEFAULT_SAMPLES if args.samples is None else args.samples,
        parity_lengths=tuple(parity_lengths),
        parity_samples=(
            DEFAULT_PARITY_SAMPLES if args.parity_samples is None else args.parity_samples
        ),
        seed=0 if args.seed is None else args.seed,
    )
    estimate = _check_budget(settings)
    out = prepare_out_dir(args.out)
    print(estimate, flush=True)

    def print_rows(records):
        print(format_table(study.row_table(records)), flush=True)

    result = study.run(settings, out, progress=True, on_rows=print_rows)
    if result["interrupted"]:
        print(
            f"transformer-theory languages: interrupted; {len(result['records'])} of "
            f"{len(settings.rows)} row(s) and {len(result['precision'])} sweep record(s) "
            f"written to {out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if result["precision"]:
        print()
        print(format_table(study.precision_table(result["precision"])))
    print(f"records and plots in {out}")
    return EXIT_FAILED if result["failed"] else EXIT_OK
