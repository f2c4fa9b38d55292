"""How close ``transformer-theory verify``'s printed estimate is to what the run uses.

Run:  python benchmarks/verify_estimate.py [--runs main,toy]

For each run (``main``: the README's main job, ``transformer-theory verify`` on its defaults;
``toy``: one family on the toy set, no certificates or witnesses) it reads the estimate the
command prints before it starts, runs it in a child process, and measures the child's wall time
and peak resident memory (``getrusage(RUSAGE_CHILDREN)``). It prints a table: estimate, measured,
and the ratio, flagged when outside [1/2, 2]. The time model is fitted to an idle machine: on a
loaded one the measured time is larger by the load (the table prints the load average beside it).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

RUNS = {
    "main": [],
    "toy": ["--datasets", "toy", "--families", "relu-1h", "--no-certificates", "--no-witnesses"],
}
_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def _bytes(text: str) -> float:
    number, unit = text.split()
    return float(number) * _UNITS[unit]


def _seconds(text: str) -> float:
    total = 0.0
    for value, unit in re.findall(r"([\d.]+)\s*(h|min|s)\b", text):
        total += float(value) * {"h": 3600, "min": 60, "s": 1}[unit]
    return total


def measure(name: str) -> dict:
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "transformer_theory", "verify", "--out", out, *RUNS[name]]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # kB on Linux
    line = re.search(r"estimate: peak memory ~([\d.]+ \w+), ~(.+?) of checks", proc.stdout)
    if proc.returncode not in (0, 1) or not line:
        raise SystemExit(f"{name}: verify failed ({proc.returncode}): {proc.stderr[-500:]}")
    return {
        "run": name,
        "est_bytes": _bytes(line.group(1)),
        "peak_bytes": peak,
        "est_seconds": _seconds(line.group(2)),
        "seconds": wall,
        "load": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="toy,main", help="comma list of toy, main")
    args = parser.parse_args()
    names = [n for n in args.runs.split(",") if n]
    rows = [measure(n) for n in names]  # toy first: RUSAGE_CHILDREN is a running maximum

    def flag(ratio: float) -> str:
        return "ok" if 0.5 <= ratio <= 2 else "OUTSIDE 2x"

    print(
        f"{'run':<6} {'memory est':>11} {'peak':>9} {'ratio':>6}     {'time est':>9} "
        f"{'wall':>8} {'ratio':>6}     load"
    )
    for r in rows:
        mr, tr = r["est_bytes"] / r["peak_bytes"], r["est_seconds"] / r["seconds"]
        print(
            f"{r['run']:<6} {r['est_bytes'] / 2**20:>8.0f} MiB {r['peak_bytes'] / 2**20:>5.0f} MiB "
            f"{mr:>6.2f} {flag(mr):<4} {r['est_seconds']:>7.0f} s {r['seconds']:>6.0f} s "
            f"{tr:>6.2f} {flag(tr):<4} {r['load']:.1f}"
        )


if __name__ == "__main__":
    main()
