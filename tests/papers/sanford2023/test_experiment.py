"""Smoke test of experiments/sanford_match_width.py (the trained Match2 / Match3 separation)."""

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "experiments" / "sanford_match_width.py"


def test_match_width_smoke(tmp_path):
    spec = importlib.util.spec_from_file_location("sanford_match_width", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--smoke", "--out", str(tmp_path)])
    records = json.loads((tmp_path / "records.json").read_text())
    assert {r["task"] for r in records} == {"match2", "match3", "match3bigram"}
    assert all(0.0 <= r["accuracy"] <= 1.0 for r in records)
    assert (tmp_path / "match_width.png").exists()


def test_composition_smoke(tmp_path):
    path = SCRIPT.parent / "composition_one_layer.py"
    spec = importlib.util.spec_from_file_location("composition_one_layer", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--smoke", "--out", str(tmp_path)])
    records = json.loads((tmp_path / "records.json").read_text())
    assert {(r["layers"], r["format"]) for r in records} == {
        (1, "float32"),
        (1, "bfloat16"),
        (2, "float32"),
        (2, "bfloat16"),
    }
    assert all(0.0 <= r["error"] <= 1.0 and 0.0 <= r["bound"] < 1.0 for r in records)
