"""Differential run against tracr (Lindner et al. 2023): writes
``experiments/results/rasp_tracr_differential.json``, the record docs/rasp.md and the ledger row
``rasp.tracr_differential`` quote.

Runs only where tracr is installed, in its own environment (never a dependency of this library;
the recipe is ``transformer_theory.rasp._tracr.INSTALL``)::

    /tmp/tracr-venv/bin/python experiments/rasp_tracr.py \\
        --out experiments/results/rasp_tracr_differential.json

About 6 minutes on 2 shared cores. The work is :func:`transformer_theory.rasp._tracr.study`:
tracr's own library programs compiled by both compilers, both models (float32) and both
interpreters on every input up to each program's length, every position; tracr's failure
lengths with its default constants beside this compiler's model. Exit 1 if this compiler's model
disagrees with its interpreter anywhere, the interpreters disagree, or it needs more layers than
tracr's.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import platform


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the JSON record to write")
    ap.add_argument("--samples", type=int, default=4, help="seeded inputs per failure length")
    args = ap.parse_args(argv)
    import jax

    jax.config.update("jax_enable_x64", True)  # float64 for the failure lengths; models in float32
    from transformer_theory import jsonio
    from transformer_theory.rasp import _tracr

    rec = _tracr.study(failure_samples=args.samples, progress=print)
    versions = {p: importlib.metadata.version(p) for p in ("jax", "dm-haiku", "numpy")}
    rec["produced_by"] = (
        f"python experiments/rasp_tracr.py --out {args.out} (tracr {_tracr.TRACR_COMMIT[:7]}, "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + f", {platform.machine()} CPU, {datetime.date.today().isoformat()})"
    )
    jsonio.write_json(args.out, rec)
    bad = [
        p["program"]
        for p in rec["programs"]
        if p["ours"]["disagree"]
        or p["interpreters_disagree"]
        or p["layers"]["ours"] > p["layers"]["tracr"]
    ]
    print(f"wrote {args.out}; programs failing: {bad or 'none'}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
