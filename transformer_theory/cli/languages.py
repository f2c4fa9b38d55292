"""Build and check the formal-language recognizers: MAJORITY, PARITY (with and without the
LayerNorm trick), Dyck-1 -- the rows of Strobl et al. 2024's table that are built exactly.

Prints a table per part (the recognizer rows, PARITY's precision sweep) and writes one JSON record
per row to ``--out/languages_<construction>.json``, all of them to ``--out/languages.json``,
PARITY's precision sweep to ``--out/parity_precision.json`` and the plots ``languages_margin.png``
(smallest margin against length) and ``parity_precision.png`` (cross-entropy and margin against
``n`` in float32 and float64). Example::

    transformer-theory languages --max-len 256 --parity-lengths 64,256,1024,4096 \\
        --out results/languages

Before any work the command estimates its peak memory and its work from the settings
(:func:`transformer_theory.papers.formal_languages.checks.record_cost`, ``precision_cost``) and refuses (exit
2, naming the options to lower) what would not fit in memory or run past the time budget
(``TT_MEMORY_BUDGET`` / ``TT_TIME_BUDGET`` override the machine's figures). Ctrl-C: exit 130 with
the rows finished so far written. Exit 1 if a recognizer misclassifies a string in float64.
"""

from __future__ import annotations

import argparse
import os
import sys

MAX_EXHAUSTIVE = 16  # 2^16 strings of one length: the most the exhaustive check enumerates
MAX_PARITY_LENGTH = 8192  # 5 n^2 float64 entries per string: 2.7 GB at this length
DEFAULT_SAMPLES = 64
DEFAULT_PARITY_SAMPLES = 8


def add_arguments(p: argparse.ArgumentParser) -> None:
    from transformer_theory.cli._common import nonnegative_int, positive_int

    p.add_argument("--out", required=True, help="output directory (JSON records + PNG plots)")
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


def _lengths(text: str) -> list[int]:
    from transformer_theory.cli._common import UsageError

    if text.strip() == "none":
        return []
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise UsageError(
            f"--parity-lengths: expected a comma list of integers or 'none', got {text!r}"
        ) from None
    if any(v < 1 or v > MAX_PARITY_LENGTH for v in values):
        raise UsageError(
            f"--parity-lengths: every length must be in 1..{MAX_PARITY_LENGTH}, got {text!r}"
        )
    return values


def sampled_lengths(max_len: int, exhaustive_up_to: int) -> list[int]:
    """The lengths checked on samples: powers of 2 from 16 below ``max_len``, then ``max_len``,
    those above ``exhaustive_up_to`` (the rest are checked on every string)."""
    lengths, n = [], 16
    while n < max_len:
        lengths.append(n)
        n *= 2
    lengths.append(max_len)
    return [n for n in lengths if n > exhaustive_up_to]


def _check_options(args, parity_lengths, sampled) -> None:
    """Refuse options that do not apply (given explicitly, they would be silently ignored)."""
    from transformer_theory.cli._common import UsageError

    if args.samples is not None and not sampled:
        raise UsageError(
            f"--samples: no length is sampled (--max-len {args.max_len} <= --exhaustive-up-to "
            f"{args.exhaustive_up_to}: every length is checked exhaustively); drop --samples"
        )
    if args.parity_samples is not None and not parity_lengths:
        raise UsageError("--parity-samples: the sweep is off (--parity-lengths none)")
    if args.seed is not None and not sampled and not parity_lengths:
        raise UsageError("--seed: nothing is sampled (every length is exhaustive, no sweep)")


def _check_budget(args, rows, parity_lengths, sampled) -> str:
    """Estimate memory and time from the settings; raise BudgetError or return a summary line."""
    from transformer_theory import budget
    from transformer_theory.papers.formal_languages import checks as analysis

    rec_bytes, rec_entries = analysis.record_cost(args.exhaustive_up_to, sampled, args.samples)
    budget.check_memory(
        rec_bytes,
        what=f"checking {args.samples} strings of length {max(sampled, default=0)}",
        option="--max-len/--samples",
    )
    sweep_bytes, sweep_entries = analysis.precision_cost(parity_lengths, args.parity_samples)
    budget.check_memory(
        sweep_bytes,
        what=f"the PARITY sweep ({args.parity_samples} strings of length "
        f"{max(parity_lengths, default=0)})",
        option="--parity-lengths/--parity-samples",
    )
    rec_seconds = len(rows) * rec_entries / analysis.ENTRIES_PER_SECOND
    sweep_seconds = sweep_entries / analysis.ENTRIES_PER_SECOND
    seconds = rec_seconds + sweep_seconds
    budget.check_seconds(
        seconds,
        what=f"{len(rows) * rec_entries + sweep_entries:.3g} attention-map entries",
        option="--max-len/--samples"
        if rec_seconds >= sweep_seconds
        else "--parity-lengths/--parity-samples",
    )
    return (
        f"estimate: peak {budget.format_bytes(max(rec_bytes, sweep_bytes))}, "
        f"{len(rows) * rec_entries + sweep_entries:.3g} attention-map entries "
        f"(about {budget.format_seconds(seconds)} of computation, plus compilation)"
    )


def format_rows(records) -> str:
    """The recognizer rows as a text table."""
    lines = [
        f"{'construction':<20} {'attention':<22} {'positional':<14} {'strings':>8} "
        f"{'lengths':>9} {'accuracy':>9} {'min margin':>11}"
    ]
    for r in records:
        lengths = r["lengths_checked"]
        span = f"{min(lengths)}-{max(lengths)}" if lengths else "-"
        lines.append(
            f"{r['construction']:<20} {r['attention']:<22} {r['positional']:<14} "
            f"{r['strings_checked']:>8} {span:>9} {r['accuracy']:>9.4f} {r['min_margin']:>11.4g}"
        )
    return "\n".join(lines)


def format_precision(records) -> str:
    """PARITY's precision sweep as a text table."""
    lines = [
        f"{'n':>6} {'dtype':<8} {'LayerNorm':<9} {'strings':>7} {'accuracy':>9} "
        f"{'min margin':>11} {'max CE (bits)':>14}"
    ]
    for r in records:
        lines.append(
            f"{r['n']:>6} {r['dtype']:<8} {'eps=0' if r['layer_norm'] else 'no':<9} "
            f"{r['strings']:>7} {r['accuracy']:>9.4f} {r['min_margin']:>11.4g} "
            f"{r['max_cross_entropy_bits']:>14.6g}"
        )
    return "\n".join(lines)


def run(args) -> int:
    from transformer_theory.cli._common import (
        EXIT_FAILED,
        EXIT_INTERRUPTED,
        EXIT_OK,
        UsageError,
        name_list,
        prepare_out_dir,
    )

    if args.exhaustive_up_to > MAX_EXHAUSTIVE:
        raise UsageError(f"--exhaustive-up-to: at most {MAX_EXHAUSTIVE} (2^L strings per length)")
    if args.exhaustive_up_to > args.max_len:
        raise UsageError(
            f"--exhaustive-up-to: {args.exhaustive_up_to} exceeds --max-len {args.max_len}"
        )
    parity_lengths = _lengths(args.parity_lengths)
    sampled = sampled_lengths(args.max_len, args.exhaustive_up_to)
    _check_options(args, parity_lengths, sampled)
    args.samples = DEFAULT_SAMPLES if args.samples is None else args.samples
    args.parity_samples = (
        DEFAULT_PARITY_SAMPLES if args.parity_samples is None else args.parity_samples
    )
    args.seed = 0 if args.seed is None else args.seed
    from transformer_theory.papers.formal_languages.constructions import RECOGNIZERS

    rows = name_list(args.rows, RECOGNIZERS, "--rows")
    estimate = _check_budget(args, rows, parity_lengths, sampled)
    out = prepare_out_dir(args.out)
    print(estimate, flush=True)

    import jax
    from tqdm.auto import tqdm

    jax.config.update("jax_enable_x64", True)  # float64 is one of the formats compared
    from transformer_theory.jsonio import write_json
    from transformer_theory.papers.formal_languages import checks as analysis

    records, precision, failed = [], [], False

    def save():
        write_json(os.path.join(out, "languages.json"), records)
        write_json(os.path.join(out, "parity_precision.json"), precision)

    try:
        for name in tqdm(rows, desc="recognizers", unit="row"):
            rec = analysis.recognizer_record(
                name,
                exhaustive_up_to=args.exhaustive_up_to,
                sampled_lengths=sampled,
                samples=args.samples,
                seed=args.seed,
            )
            failed |= rec["accuracy"] < 1.0
            records.append(rec)
            write_json(os.path.join(out, f"languages_{name}.json"), rec)
        save()
        print(format_rows(records), flush=True)
        for length in tqdm(parity_lengths, desc="parity precision", unit="length"):
            precision += analysis.parity_precision_records(
                [length], samples=args.parity_samples, seed=args.seed
            )
        save()
    except KeyboardInterrupt:
        save()
        print(
            f"transformer-theory languages: interrupted; {len(records)} of {len(rows)} row(s) "
            f"and {len(precision)} sweep record(s) written to {out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if precision:
        print()
        print(format_precision(precision))
    _plot(records, precision, out)
    print(f"records and plots in {out}")
    return EXIT_FAILED if failed else EXIT_OK


def _plot(records, precision, out) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for rec in records:
        rows = rec["by_length"]
        ax.plot(
            [r["length"] for r in rows],
            [abs(r["min_margin"]) for r in rows],
            marker=".",
            label=f"{rec['construction']} (acc {rec['accuracy']:.3f})",
        )
    ax.set(xscale="log", yscale="log", xlabel="string length L", ylabel="smallest |margin|")
    ax.set_title("Recognizers: smallest margin by length (float64)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "languages_margin.png"), dpi=120)
    plt.close(fig)
    if not precision:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for dtype in sorted({r["dtype"] for r in precision}):
        for layer_norm in (True, False):
            rows = [r for r in precision if r["dtype"] == dtype and r["layer_norm"] == layer_norm]
            label = f"{dtype}, {'LayerNorm eps=0' if layer_norm else 'no LayerNorm'}"
            xs = [r["n"] for r in rows]
            # float32 lies on float64 at this scale: dashed, so both stay visible.
            style = dict(marker="o", label=label, ls="--" if dtype == "float32" else "-")
            axes[0].plot(xs, [r["max_cross_entropy_bits"] for r in rows], **style)
            axes[1].plot(xs, [abs(r["min_margin"]) for r in rows], **style)
    axes[0].set(xscale="log", xlabel="n", ylabel="max cross-entropy (bits)")
    axes[0].set_title("PARITY: Hahn's 1 bit vs the LayerNorm trick")
    axes[1].set(xscale="log", yscale="log", xlabel="n", ylabel="smallest |margin|")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "parity_precision.png"), dpi=120)
    plt.close(fig)
