"""Build and check the formal-language recognizers: MAJORITY, PARITY (with and without the
LayerNorm trick), Dyck-1 -- the rows of Strobl et al. 2024's table that are built exactly.

Writes one JSON record per row to ``--out/languages_<construction>.json``, all of them to
``--out/languages.json``, PARITY's precision sweep to ``--out/parity_precision.json`` and the plots
``languages_margin.png`` (smallest margin against length) and ``parity_precision.png``
(cross-entropy and margin against ``n`` in float32 and float64). Example::

    transformer-theory languages --max-len 256 --parity-lengths 64,256,1024,4096 \
        --out results/languages

Exit 1 if a recognizer misclassifies a string in float64.
"""

from __future__ import annotations

import argparse
import json
import os

MAX_EXHAUSTIVE = 16  # 2^16 strings of one length: the most the exhaustive check enumerates
MAX_PARITY_LENGTH = 8192  # its n x n attention maps stay below 0.6 GB in float64


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
        "--samples", type=positive_int, default=64, help="balanced strings per sampled length"
    )
    p.add_argument(
        "--parity-lengths",
        default="64,256,1024,2048",
        help=f"PARITY precision sweep: string lengths (comma list, each <= {MAX_PARITY_LENGTH}; "
        "'none' skips the sweep)",
    )
    p.add_argument(
        "--parity-samples", type=positive_int, default=8, help="strings per PARITY sweep length"
    )
    p.add_argument("--rows", default="all", help="comma list of recognizers to check (default all)")
    p.add_argument("--seed", type=nonnegative_int, default=0)


def _lengths(text: str) -> list[int]:
    from transformer_theory.cli._common import UsageError

    if text.strip() == "none":
        return []
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise UsageError(
            f"--parity-lengths: expected a comma list of integers, got {text!r}"
        ) from None
    if any(v < 1 or v > MAX_PARITY_LENGTH for v in values):
        raise UsageError(f"--parity-lengths: every length must be in 1..{MAX_PARITY_LENGTH}")
    return values


def run(args) -> int:
    from transformer_theory.cli._common import (
        EXIT_FAILED,
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
    from transformer_theory.constructions.languages import RECOGNIZERS

    rows = name_list(args.rows, RECOGNIZERS, "--rows")
    out = prepare_out_dir(args.out)

    import jax
    from tqdm.auto import tqdm

    jax.config.update("jax_enable_x64", True)  # float64 is one of the formats compared
    from transformer_theory.analysis import languages as analysis

    sampled, n = [], 16
    while n < args.max_len:
        sampled.append(n)
        n *= 2
    sampled.append(args.max_len)
    records, failed = [], False
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
        with open(os.path.join(out, f"languages_{name}.json"), "w") as fh:
            json.dump(rec, fh, indent=1)
        summary = {k: v for k, v in rec.items() if k != "by_length"}
        print(json.dumps(summary))
    with open(os.path.join(out, "languages.json"), "w") as fh:
        json.dump(records, fh, indent=1)
    precision = []
    for length in tqdm(parity_lengths, desc="parity precision", unit="length"):
        precision += analysis.parity_precision_records(
            [length], samples=args.parity_samples, seed=args.seed
        )
    for rec in precision:
        print(json.dumps(rec))
    with open(os.path.join(out, "parity_precision.json"), "w") as fh:
        json.dump(precision, fh, indent=1)
    _plot(records, precision, out)
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
