"""Check the claims ledger: every statement of the six papers the library checks, each with its
status, evidence and the command that reproduces it.

``transformer-theory claims [--paper P] [--id GLOB] [--module PKG.claims] [--tier quick|full]
[--out DIR]`` prints one
line per claim (id, status, one figure) as it finishes and writes ``DIR/claims.json`` and
``DIR/claims.md`` (a table per paper) after each. Exit 1 when a claim's status differs from the
registry's expected one (a regression, or a check that raised), 0 otherwise; 130 on Ctrl-C.

``--resume`` keeps the records ``DIR/claims.json`` already holds for the same ``--tier`` and
checks only the selected claims it lacks (an interrupted run loses no finished claim). Before a
``--tier full`` run the command adds up the seconds each selected claim took in the committed
``CLAIMS.md`` (60 s for a claim it lacks) and refuses a run estimated
beyond ``TT_TIME_BUDGET`` (exit 2), before any claim starts.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Literal

from transformer_theory.claims._cli_support import (
    check_full_tier_seconds,
    provenance,
    sigint_flag,
)
from transformer_theory.claims.runner import resumed_records
from transformer_theory.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    UsageError,
    add_output,
    prepare_out_dir,
)
from transformer_theory.cli._options import add_settings
from transformer_theory.settings import from_args, setting

__all__ = ["X64", "add_arguments", "run"]

X64 = True  # the checks build and run constructions in float64 (exact arithmetic beside)


@dataclasses.dataclass(frozen=True)
class ClaimsSettings:
    """Which claims to check, and how.

    Attributes:
      paper: one paper's claims (e.g. sanford2023).
      ids: claims whose id matches (e.g. 'chen_zou2024.prop*'); repeatable.
      tier: check sizes: quick (about 3 s a claim at most) or full (about 60 s).
      modules: also check the rows of this module (its list CLAIMS); repeatable. Installed
        packages register theirs through the entry-point group transformer_theory.claims.
      resume: keep the records --out/claims.json holds for this --tier and check only the rest.
    """

    paper: str | None = None
    ids: tuple[str, ...] | None = setting(None, flag="--id", metavar="GLOB", words=True)
    tier: Literal["quick", "full"] = "quick"
    modules: tuple[str, ...] | None = setting(
        None, flag="--module", metavar="PKG.claims", words=True
    )
    resume: bool = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_settings(parser, ClaimsSettings)
    add_output(parser, "results/claims")


def run(args: argparse.Namespace) -> int:
    from transformer_theory.claims import all_claims, run_claims, select, write_records

    settings = from_args(ClaimsSettings, args)
    modules = list(settings.modules or [])
    try:
        pool = all_claims(modules)
    except (ValueError, RuntimeError) as err:
        raise UsageError(f"--module: {err}") from None
    papers = sorted({c.paper_key for c in pool})
    if args.paper is not None and args.paper not in papers:
        raise UsageError(
            f"--paper: {'an empty name' if not args.paper.strip() else repr(args.paper)} is no "
            f"paper of the ledger (papers: {', '.join(papers)})"
        )
    chosen = select(pool, paper=args.paper, ids=args.ids)
    if not chosen:
        raise UsageError(
            f"--paper/--id: no claim selected (papers: {', '.join(papers)})"
            if args.paper is not None or args.ids is not None
            else "no claims registered"
        )
    ids = [c.id for c in chosen]
    path = os.path.join(os.path.abspath(args.out), "claims.json")
    kept = resumed_records(path, args.tier, ids) if args.resume else []
    todo = [i for i in ids if i not in {r.id for r in kept}]
    if args.tier == "full":
        check_full_tier_seconds(todo)  # before the directory and any claim
    previous = os.path.join(os.path.abspath(args.out), "claims.previous.json")
    if os.path.lexists(previous) and (os.path.islink(previous) or not os.path.isfile(previous)):
        raise UsageError(
            f"--out: {previous} (where a new run keeps the earlier run's records) exists and is "
            "not a plain file; move it away or choose another --out"
        )
    out = prepare_out_dir(args.out)
    note = provenance(args.tier)
    done = list(kept)
    width = max(len(c.id) for c in chosen)
    if kept:
        print(f"resuming: {len(kept)} claim(s) read from {out}/claims.json", flush=True)
    elif os.path.exists(os.path.join(out, "claims.json")):
        # a new run replaces claims.json as its claims finish: the earlier run's records are kept
        # whole beside it, so an interrupted rerun never loses a finished record
        os.replace(os.path.join(out, "claims.json"), previous)
        print(f"the earlier run's records are kept in {previous}", flush=True)

    def on_record(record) -> None:
        if interrupted[0]:  # the check was cut short: its record is not a finished one
            raise KeyboardInterrupt
        done.append(record)
        flag = "" if not record.regression else f"  <- expected {record.expected}"
        print(f"{record.id:<{width}}  {record.status:<9}  {record.figure}{flag}", flush=True)
        write_records(done, out, note=note)

    try:
        with sigint_flag() as interrupted:
            records = kept + (
                run_claims(
                    claims=[c for c in chosen if c.id in set(todo)],
                    tier=args.tier,
                    progress=False,
                    on_record=on_record,
                )
                if todo
                else []
            )
            if interrupted[0]:
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        print(
            f"interrupted: {len(done)} claims written to {out}; rerun with --resume to go on",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if kept:  # in the registry's order, the kept ones among the new
        records.sort(key=lambda r: ids.index(r.id))
        write_records(records, out, note=note)
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
