"""Smoke tests of ``transformer-theory collapse`` / ``oversquash`` and of the trained-task
experiment (``experiments/collapse_tasks.py --config smoke``): tiny sizes, the files and fields
they promise."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

from transformer_theory.cli import main

ROOT = Path(__file__).resolve().parents[2]


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
    assert script["main"](["--config", "smoke", "--out", str(tmp_path), "--no-progress"]) == 0
    record = json.loads((tmp_path / "smoke.json").read_text())
    assert [t["separator_every"] for t in record["tasks"]] == [None, 2]
    for t in record["tasks"]:
        assert t["lengths"] == [1, 2]
        rec = t["precisions"]["bfloat16"]
        assert len(rec["accuracy"]) == 2 and "first_same_prediction" in rec
    assert (tmp_path / "smoke.png").stat().st_size > 0
