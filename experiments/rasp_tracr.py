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

import dataclasses
import datetime
import importlib.metadata
import platform

from transformer_theory.settings import setting


@dataclasses.dataclass(frozen=True)
class TracrDifferentialSettings:
    """What the differential run writes and how many inputs it draws.

    Attributes:
      out: the JSON record to write.
      samples: seeded inputs per failure length.
    """

    out: str
    samples: int = setting(4, positive=True)


def main(argv: list[str] | None = None) -> int:
    from transformer_theory.cli._common import script_options

    (args,) = script_options(argv, TracrDifferentialSettings, description=__doc__.split("\n\n")[0])
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
