"""Regenerate CLAIMS.md: the claims ledger's full tier, one paper per worker process.

Each paper's claims run in their own process (spawned, not forked: JAX is multithreaded), the
records are merged in the ledger's order and written as ``CLAIMS.md`` with the commit, the date,
the machine and the seconds each claim took; ``claims.json`` beside it under ``--out``. With
``--write-claims-md`` the same records are also written as the checkout's ``CLAIMS.json`` (every
field of :meth:`ClaimRecord.to_dict`), which the docs build renders as each paper's claims table.

Command (from the checkout's root; about 15 minutes on 2 idle CPU cores, 37 under load)::

    python -m experiments.claims_full --jobs 2 --out results/claims_full --write-claims-md

``-m`` from the root imports this checkout's ``transformer_theory``; the records describe the
code that ran, so a run that would import another copy (an editable install of another checkout,
as ``python experiments/claims_full.py`` does) is refused.

Exit 1 when a status differs from its row's expected one (a regression), as the command does.
"""

import concurrent.futures
import dataclasses
import multiprocessing
import pathlib
import sys
import time

from transformer_theory.settings import setting

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _run_paper(paper: str) -> list[dict]:
    from transformer_theory.precision import enable_x64

    enable_x64()  # an entry point: the claims run in float64
    from transformer_theory.claims import run_claims, runner

    # the library's own rows only: CLAIMS.md never lists an installed package's
    rows = runner.builtin_claims()
    return [r.to_dict() for r in run_claims(paper=paper, tier="full", claims=rows)]


@dataclasses.dataclass(frozen=True)
class ClaimsFullSettings:
    """The full tier's run: how many processes, which papers, what it writes.

    Attributes:
      jobs: worker processes.
      out: output directory.
      paper: only these papers (repeatable, several words or a comma list).
      write_claims_md: also overwrite the checkout's CLAIMS.md and CLAIMS.json.
      update: keep the other papers' records of --out/claims.json (re-run only --paper).
    """

    jobs: int = setting(2, positive=True)
    out: str = "results/claims_full"
    paper: tuple[str, ...] | None = setting(None, words=True)
    write_claims_md: bool = False
    update: bool = False


def _refuse(message: str) -> int:
    print(f"claims_full: error: {message}", file=sys.stderr)
    return 2  # transformer_theory.cli._common.EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    from transformer_theory.cli.scripts import script_options

    (args,) = script_options(argv, ClaimsFullSettings, description=__doc__.split("\n\n")[0])
    import transformer_theory

    here = pathlib.Path(transformer_theory.__file__).resolve().parent
    if here != ROOT / "transformer_theory":
        return _refuse(
            f"transformer_theory is imported from {here}, not this checkout: run "
            "`python -m experiments.claims_full` from the checkout's root"
        )
    from transformer_theory.claims import runner
    from transformer_theory.claims._cli_support import provenance

    order = list(dict.fromkeys(c.paper_key for c in runner.builtin_claims()))
    papers = args.paper or order
    unknown = sorted(set(papers) - set(order))
    if unknown:
        return _refuse(f"--paper: no such paper {unknown} (papers: {', '.join(order)})")
    start = time.time()
    done: dict[str, list[dict]] = {}
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=context) as pool:
        futures = {pool.submit(_run_paper, p): p for p in papers}
        for future in concurrent.futures.as_completed(futures):
            paper = futures[future]
            done[paper] = future.result()
            seconds = sum(r["seconds"] for r in done[paper])
            print(f"{paper}: {len(done[paper])} claims, {seconds:.0f} s of checks", flush=True)
    out = ROOT / args.out if not pathlib.Path(args.out).is_absolute() else pathlib.Path(args.out)
    kept_note = ""
    if args.update and (out / "claims.json").exists():
        from transformer_theory import jsonio

        previous = jsonio.read_json(str(out / "claims.json"))
        kept_note = previous.get("note", "")
        rerun = set(done)
        for r in previous["records"]:
            paper = r["id"].split(".", 1)[0]
            if paper not in rerun:
                done.setdefault(paper, []).append(r)
    fields = {f.name for f in runner.ClaimRecord.__dataclass_fields__.values()}
    records = [
        runner.ClaimRecord(**{k: v for k, v in r.items() if k in fields})
        for p in order
        if p in done
        for r in done[p]
    ]
    note = provenance("full").replace(
        "`transformer-theory claims --tier full`",
        f"`python -m experiments.claims_full --jobs {args.jobs}` (the full tier, one paper per "
        f"process; {time.time() - start:.0f} s wall)",
    )
    if kept_note:
        note = f"{kept_note} Then {', '.join(papers)} re-run: {note}"
    runner.write_records(records, str(out), note=note)
    if args.write_claims_md:
        md = runner.markdown(records, title="Claims ledger (full tier)", note=note)
        (ROOT / "CLAIMS.md").write_text(md)
        runner.write_claims_json(records, str(ROOT / "CLAIMS.json"), note=note)
    regressions = [r for r in records if r.regression]
    for r in regressions:
        print(f"REGRESSION {r.id}: {r.status} (expected {r.expected}): {r.figure}")
    print(f"{len(records)} claims, {len(regressions)} regressions; wrote {out}")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
