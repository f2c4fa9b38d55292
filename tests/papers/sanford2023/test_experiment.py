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
