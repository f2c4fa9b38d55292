"""Smoke tests of ``transformer-theory collapse`` / ``oversquash`` and of the trained-task
experiment (``experiments/collapse_tasks.py --config smoke``): tiny sizes, the files and fields
they promise."""

from __future__ import annotations

import json
import runpy
import signal
import subprocess
import sys
from pathlib import Path

from transformer_theory.cli import main

ROOT = Path(__file__).resolve().parents[3]


def test_collapse_writes_record_and_figure(tmp_path, capsys):
    argv = ["collapse", "--depth", "1", "--positional", "none", "--max-len", "8", "--points", "2"]
    argv += ["--precision", "bfloat16", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    record = json.loads((tmp_path / "collapse.json").read_text())
    (model,) = record["models"]
    assert model["lengths"] == [2, 8] and set(model["precisions"]) == {"bfloat16"}
    for rec in model["precisions"].values():
        assert len(rec["distance"]) == 2 and "first_identical" in rec
    assert model["predicted_limit"] > 0  # one layer, no positions in the scores: K derived
    assert (tmp_path / "collapse.png").stat().st_size > 0
    assert "L1_H1_none_seed0" in capsys.readouterr().out


def test_oversquash_writes_record_and_checks_the_bound(tmp_path):
    argv = ["oversquash", "--depth", "2", "--length", "5", "--width", "24"]
    assert main(argv + ["--out", str(tmp_path)]) == 0
    (model,) = json.loads((tmp_path / "oversquash.json").read_text())["models"]
    assert model["bound_holds"] and len(model["sensitivity_final"]) == 5
    assert model["early_late_ratio"] > 0
    assert model["path_count"] == ["5", "4", "3", "2", "1"]
    assert (tmp_path / "oversquash.png").stat().st_size > 0


def test_collapse_tasks_smoke(tmp_path):
    script = runpy.run_path(str(ROOT / "experiments" / "collapse_tasks.py"), run_name="smoke")
    argv = ["--config", "smoke", "--set", "steps=10", "--out", str(tmp_path), "--no-progress"]
    assert script["main"](argv) == 0
    record = json.loads((tmp_path / "smoke.json").read_text())
    assert [t["separator_every"] for t in record["tasks"]] == [None, 2]
    for t in record["tasks"]:
        assert t["lengths"] == [1, 2]
        rec = t["precisions"]["bfloat16"]
        assert len(rec["accuracy"]) == 2 and "first_same_prediction" in rec
    assert (tmp_path / "smoke.png").stat().st_size > 0


def _strict_json(path):
    def refuse(name):
        raise ValueError(f"{path}: non-JSON constant {name}")

    return json.loads(Path(path).read_text(), parse_constant=refuse)


def test_collapse_refuses_repeated_seeds(tmp_path, capsys):
    argv = ["collapse", "--seeds", "0,0", "--max-len", "8", "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--seeds" in err and "more than once" in err and "Traceback" not in err
    assert not (tmp_path / "collapse.json").exists()


def test_collapse_one_point_measures_the_longest_length(tmp_path, capsys):
    # --points 1 measured n = 2 while recording --max-len; no --no-progress: stderr is not a
    # terminal here, so no bar may be drawn
    argv = ["collapse", "--depth", "1", "--positional", "none", "--max-len", "8", "--points", "1"]
    assert main(argv + ["--precision", "float64", "--out", str(tmp_path)]) == 0
    (model,) = _strict_json(tmp_path / "collapse.json")["models"]
    assert model["lengths"] == [8] and model["verdict"].startswith("undetermined")
    captured = capsys.readouterr()
    assert "nan" not in captured.out.lower() and captured.err == "", captured


def test_collapse_and_oversquash_refuse_what_memory_cannot_hold(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TT_MEMORY_BUDGET", "512M")  # the same refusal on any machine
    cases = [
        (["collapse", "--heads", "8", "--max-len", "16384"], "--max-len/--heads/--width"),
        # the model itself (5 D^2 floats a layer) does not fit: refused before any config is built
        (["collapse", "--width", "100000", "--max-len", "8"], "--depth/--heads/--width"),
        (["oversquash", "--no-bound", "--length", "30000"], "--length/--width/--depth/--heads"),
        # the model fits (100 heads), their (H, n, n, D, D) edge blocks do not
        (
            ["oversquash", "--depth", "1", "--heads", "100", "--length", "64"],
            "--length/--width/--depth/--heads (or --no-bound)",
        ),
    ]
    for argv, option in cases:
        assert main(argv + ["--out", str(tmp_path / argv[0])]) == 2, argv
        err = capsys.readouterr().err
        assert option in err and "GiB of memory" in err and "Traceback" not in err, err


def test_collapse_and_oversquash_refuse_huge_sizes_from_arithmetic(tmp_path, capsys, monkeypatch):
    # were MemoryErrors: a config of 10^12 layers (a tuple of 10^12 head counts), a grid of 10^12
    # lengths (np.geomspace of 10^12 floats)
    monkeypatch.setenv("TT_MEMORY_BUDGET", "1G")
    huge = str(10**12)
    cases = [
        (["collapse", "--depth", huge], "--depth/--heads/--width: the float64 model of 10"),
        (["oversquash", "--depth", huge], "--depth/--heads/--width: the float64 model of 10"),
        (["oversquash", "--heads", huge], "--depth/--heads/--width: the float64 model of 4"),
        (["collapse", "--max-len", "64", "--points", huge], "only 63 distinct lengths lie in"),
    ]
    for argv, message in cases:
        assert main(argv + ["--out", str(tmp_path / argv[0])]) == 2, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, err
    assert not (tmp_path / "collapse").exists()  # refused before the output directory was made


def test_collapse_interrupted_keeps_finished_models_and_resumes(tmp_path, capsys, monkeypatch):
    from transformer_theory.papers.barbero2024 import _theory_collapse as collapse

    record = collapse.model_record
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # Ctrl-C during the second model
        return record(*args, **kwargs)

    monkeypatch.setattr(collapse, "model_record", interrupted)
    argv = ["collapse", "--depth", "1", "--positional", "none,rope", "--max-len", "8"]
    argv += ["--points", "2", "--precision", "float64", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 130
    assert "1 of 2 model(s) finished and saved" in capsys.readouterr().err
    saved = _strict_json(tmp_path / "collapse.json")
    assert not saved["complete"] and [m["name"] for m in saved["models"]] == ["L1_H1_none_seed0"]
    assert main(argv) == 0  # the same command: the finished model is read, not measured again
    assert "resuming: 1 finished model(s)" in capsys.readouterr().out
    done = _strict_json(tmp_path / "collapse.json")
    assert done["complete"] and len(calls) == 3
    assert done["models"][0] == saved["models"][0] and done["models"][1]["positional"] == "rope"


def test_oversquash_real_sigint_exits_130_with_the_finished_models(tmp_path):
    # Ctrl-C inside a JAX call used to crash the interpreter at exit (status 139 / -11 after
    # "interrupted") or be swallowed by a gc callback (status 0); nothing was written before the end
    out = tmp_path / "o"
    # the child inherits the SIGINT disposition across exec (SIG_IGN or SIG_DFL): set it here,
    # not in a preexec_fn, with which JAX warns that os.fork() may deadlock
    previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "transformer_theory", "oversquash", "--depth", "1,2",
             "--length", "6", "--no-bound", "--out", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            # a shell's background job starts with SIGINT ignored; Ctrl-C is the foreground case
        )  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        first = proc.stdout.readline()  # the first model is done; the second is compiling
        assert first.startswith("L1_H1_rope_seed0"), (first, proc.communicate())
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 130, (proc.returncode, stdout, stderr)
    assert "Traceback" not in stderr and "Fatal" not in stderr, stderr
    assert "interrupted;" in stderr
    saved = _strict_json(out / "oversquash.json")
    # the model Ctrl-C arrived in is dropped, not saved half-done
    assert not saved["complete"] and [m["depth"] for m in saved["models"]] == [1]
