"""Check the claims ledger: every statement of the six papers the library checks, each with its
status, evidence and the command that reproduces it.

``transformer-theory claims [--paper P] [--id GLOB] [--tier quick|full] [--out DIR]`` prints one
line per claim (id, status, one figure) as it finishes and writes ``DIR/claims.json`` and
``DIR/claims.md`` (a table per paper) after each. Exit 1 when a claim's status differs from the
registry's expected one (a regression, or a check that raised), 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys

from transformer_theory.cli._common import EXIT_FAILED, UsageError, prepare_out_dir

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--paper", default=None, help="one paper's claims (e.g. sanford2023)")
    parser.add_argument(
        "--id",
        dest="ids",
        action="append",
        default=None,
        metavar="GLOB",
        help="claims whose id matches (e.g. 'chen_zou2024.prop*'); repeatable",
    )
    parser.add_argument("--tier", default="quick", choices=("quick", "full"), help="sizes")
    parser.add_argument("--out", default="results/claims", help="output directory")


def run(args: argparse.Namespace) -> int:
    from transformer_theory.claims import all_claims, run_claims, select, write_records

    chosen = select(all_claims(), paper=args.paper, ids=args.ids)
    if not chosen:
        papers = sorted({c.paper_key for c in all_claims()})
        raise UsageError(
            f"--paper/--id: no claim selected (papers: {', '.join(papers)})"
            if args.paper or args.ids
            else "no claims registered"
        )
    out = prepare_out_dir(args.out)
    done = []
    width = max(len(c.id) for c in chosen)

    def on_record(record) -> None:
        done.append(record)
        flag = "" if not record.regression else f"  <- expected {record.expected}"
        print(f"{record.id:<{width}}  {record.status:<9}  {record.figure}{flag}", flush=True)
        write_records(done, out, note=f"tier {args.tier}")

    try:
        records = run_claims(
            paper=args.paper, ids=args.ids, tier=args.tier, progress=False, on_record=on_record
        )
    except KeyboardInterrupt:
        print(f"interrupted: {len(done)} claims written to {out}", file=sys.stderr)
        raise
    regressions = [r for r in records if r.regression]
    counts = {}
    for r in records:
        counts[r.status] = counts.get(r.status, 0) + 1
    print(
        f"{len(records)} claims: "
        + ", ".join(f"{s} {n}" for s, n in sorted(counts.items()))
        + f"; {len(regressions)} regressions; wrote {out}/claims.json, {out}/claims.md"
    )
    return EXIT_FAILED if regressions else 0
