"""``train`` and ``plot`` work from a NON-editable install, run in an empty directory.

The package is built into a wheel (pip, with build isolation, as ``pip install .`` does) from a
copy of its sources and
installed without dependencies into a fresh virtual environment; the dependencies come from this
interpreter's site-packages through a ``.pth`` line, which adds the directory to ``sys.path``
WITHOUT running the ``.pth`` files inside it -- so an editable install of this checkout there is
not picked up. The test proves it: the fresh environment imports ``transformer_theory`` from its
own site-packages, finds no ``experiments`` package, and the commands run in an empty directory.
(``.ci/run`` does the full ``pip install .`` with dependencies; a full install here costs ~40 s
more and tests the same thing.)
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(cmd, cwd, timeout=300):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (cmd, proc.stdout[-3000:], proc.stderr[-3000:])
    return proc.stdout


def test_train_and_plot_from_a_non_editable_install_in_an_empty_directory(tmp_path):
    wheels, venv, work = tmp_path / "wheels", tmp_path / "venv", tmp_path / "empty"
    work.mkdir()
    # Build from a copy of what the wheel is made of: setuptools leaves build/ in the source tree,
    # and a stale build/lib there would put deleted modules into the next wheel.
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "transformer_theory",
        src / "transformer_theory",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    for name in ("pyproject.toml", "README.md", "setup.py", "CLAIMS.json"):
        shutil.copy(ROOT / name, src / name)
    # the committed records setup.py copies into the wheel (transformer_theory/_results)
    shutil.copytree(ROOT / "experiments" / "results", src / "experiments" / "results")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run(pip + ["wheel", "--no-deps", "-w", str(wheels), str(src)], tmp_path)
    (wheel,) = wheels.glob("transformer_theory-*.whl")
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path)
    python = venv / "bin" / "python"
    _run(
        pip + ["--python", str(python), "install", "--no-deps", "--no-index", str(wheel)], tmp_path
    )
    purelib = pathlib.Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (purelib / "_test_dependencies.pth").write_text("\n".join(sorted(deps)) + "\n")

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["JAX_PLATFORMS"] = "cpu"
    # One interpreter (each start imports JAX): where the package comes from, that there is no
    # top-level `experiments` package to fall back on, and the committed claims records, read
    # from the wheel's own copy.
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.util, transformer_theory; print(transformer_theory.__file__); "
            "print(importlib.util.find_spec('experiments')); "
            "from transformer_theory import claims, ledger; "
            "r = claims.committed('chen_zou2024.prop8'); "
            "print(r['id'], r['status'] in ledger.STATUSES)",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    where = probe.stdout.split()
    assert len(where) == 4, (where, probe.stderr[-2000:])
    assert where[0].startswith(str(purelib)), where  # the installed copy, not the checkout
    assert where[1] == "None"  # no top-level `experiments` package to fall back on
    assert where[2:] == ["chen_zou2024.prop8", "True"], probe.stderr[-2000:]
    assert sorted(os.listdir(work)) == []

    cli = str(venv / "bin" / "transformer-theory")

    def run_cli(*args):
        proc = subprocess.run(
            [cli, *args], cwd=work, env=env, capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0, (args, proc.stdout[-3000:], proc.stderr[-3000:])
        return proc.stdout

    out = run_cli(
        "train", "--experiment", "fig2_depth", "--size", "quick", "--seeds", "0",
        "--tasks", "reasoning", "--depths", "2", "--steps", "3", "--no-progress",
    )  # fmt: skip
    # one run (depth 2) of the shipped sweep: the installed package's experiment, trainer and
    # figure; the other depths run the same modules (test_experiments_smoke.py trains them all)
    assert "1 run(s) done" in out
    result = work / "results" / "fig2_depth_quick"
    assert (result / "reasoning_heads1-1_seed0" / "metrics.json").exists()
    (result / "fig2_depth.png").unlink()
    assert run_cli("plot", str(result)).split() == [str(result / "fig2_depth.png")]

    # A user's config file, by path, from the same empty directory.
    (work / "my_sweep.py").write_text(
        textwrap.dedent(
            """
            from transformer_theory.sweeps import ExperimentSettings

            def get_config():
                return ExperimentSettings(
                    name="my_sweep", heads={"memorization": [(2,)]}, seeds=(1,), steps=2
                )
            """
        )
    )
    run_cli("train", "--config", "my_sweep.py", "--out", "mine", "--no-progress")
    assert (work / "mine" / "memorization_heads2_seed1" / "metrics.json").exists()
    assert run_cli("plot", "mine").split() == [os.path.join("mine", "my_sweep.png")]
    assert (work / "mine" / "my_sweep.png").exists()
