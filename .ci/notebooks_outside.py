"""Every notebook run as a newcomer runs it: alone in an empty directory, in a fresh virtual
environment that has a Jupyter kernel and nothing else (a fresh Colab runtime, less its
preinstalled libraries), top to bottom after its own install cell.

    python3 .ci/notebooks_outside.py [--wheel DIST.whl] [--only 07 ...] [--out REPORT.json]

Without ``--wheel`` the wheel is built from this checkout (``python -m build``). Each notebook is
copied ALONE into its own empty directory and executed there with nbclient in the environment's
kernel, with ``TT_INSTALL`` naming the wheel and ``TT_NOTEBOOK_SMOKE=1`` (small sizes); before
each one the package is uninstalled, so every notebook's install cell has to install it (its
dependencies stay, as Colab's do). A notebook fails when a cell raises, when the package is not
installed afterwards (the install cell did not run in that kernel), or when an output names this
checkout's directory (a read from beside the notebook, a leaked path) or says "not found".
Exit 0 when every notebook passed, 1 otherwise; a table and ``--out`` (JSON) say which and how
long each took.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNEL_PACKAGES = ["nbclient>=0.10", "nbformat>=5.10", "ipykernel>=6.29"]

# Runs inside the fresh environment: execute one notebook where it lies; print its text outputs.
EXECUTE = r"""
import json, sys
import nbclient, nbformat
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
client = nbclient.NotebookClient(nb, timeout=900, kernel_name="python3", startup_timeout=180,
                                 resources={"metadata": {"path": "."}})
error = None
try:
    client.execute()
except nbclient.exceptions.CellExecutionError as err:
    error = str(err)[-3000:]
nbformat.write(nb, path)
texts = []
for cell in nb.cells:
    for out in cell.get("outputs", []):
        texts.append(out.get("text", "") + json.dumps(out.get("data", {}).get("text/plain", "")))
        texts.append(" ".join(out.get("traceback", [])))
print(json.dumps({"error": error, "text": "\n".join(texts)}))
"""


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def build_wheel(out: Path) -> Path:
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)])
    (wheel,) = out.glob("transformer_theory-*.whl")
    return wheel


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--wheel", type=Path, help="the wheel to install (default: built from here)")
    p.add_argument("--only", nargs="*", default=[], help="notebook name prefixes (default: all)")
    p.add_argument("--out", type=Path, help="write the report here as JSON")
    args = p.parse_args(argv)
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if args.only:
        notebooks = [nb for nb in notebooks if nb.name.startswith(tuple(args.only))]
    if not notebooks:
        print("error: --only: no notebook matches", file=sys.stderr)
        return 2
    if args.wheel is not None and not args.wheel.is_file():
        print(f"error: --wheel: no file {args.wheel}", file=sys.stderr)
        return 2

    work = Path(tempfile.mkdtemp(prefix="tt-notebooks-outside-"))
    wheel = args.wheel.resolve() if args.wheel else build_wheel(work / "dist")
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = str(venv / "bin" / "python")
    _run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    _run([python, "-m", "pip", "install", "-q", *KERNEL_PACKAGES])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env |= {
        "TT_INSTALL": str(wheel),
        "TT_NOTEBOOK_SMOKE": "1",
        "MPLBACKEND": "Agg",
        "JUPYTER_DATA_DIR": str(work / "jupyter"),  # no user kernel spec stands in for the venv's
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    print(f"wheel {wheel.name}; environment {venv}", flush=True)
    report = []
    for nb in notebooks:
        subprocess.run(
            [python, "-m", "pip", "uninstall", "-y", "-q", "transformer_theory"],
            capture_output=True,
            check=False,
        )
        here = work / "run" / nb.stem
        here.mkdir(parents=True)
        shutil.copyfile(nb, here / nb.name)
        start = time.monotonic()
        done = subprocess.run(
            [python, "-c", EXECUTE, nb.name],
            cwd=here,
            env=env,
            text=True,
            capture_output=True,
            check=False,
        )
        seconds = round(time.monotonic() - start, 1)
        problems = []
        if done.returncode != 0:
            problems.append(f"the runner failed: {done.stderr.strip()[-2000:]}")
            result = {"error": None, "text": ""}
        else:
            result = json.loads(done.stdout.strip().splitlines()[-1])
        if result["error"]:
            problems.append(f"a cell raised: {result['error']}")
        installed = (
            subprocess.run(
                [python, "-m", "pip", "show", "-q", "transformer_theory"],
                capture_output=True,
                check=False,
            ).returncode
            == 0
        )
        if not installed:
            problems.append("the package is not installed after the run (no install cell ran)")
        for needle in (str(ROOT), "not found"):
            if needle in result["text"]:
                problems.append(f"an output says {needle!r}")
        report.append(
            {"notebook": nb.name, "seconds": seconds, "passed": not problems, "problems": problems}
        )
        print(
            f"{nb.name:36} {seconds:7.1f} s  {'passed' if not problems else 'FAILED'}", flush=True
        )
        for problem in problems:
            print(f"    {problem}", flush=True)
    if args.out:
        args.out.write_text(json.dumps({"wheel": wheel.name, "notebooks": report}, indent=2))
    failed = [r["notebook"] for r in report if not r["passed"]]
    print(
        f"{len(report) - len(failed)} of {len(report)} notebooks ran outside the checkout"
        + (f"; failed: {', '.join(failed)}" if failed else "")
    )
    shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
