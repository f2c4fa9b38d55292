"""Smoke test of experiments/languages_generalization.py (a few steps, one length)."""

import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_generalization_smoke(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "languages_generalization", ROOT / "experiments" / "languages_generalization.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--smoke", "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "languages_generalization.json").read_text())
    by_model = {r["model"]: r for r in result["records"]}
    assert by_model["constructed"]["accuracy"] == [1.0]
    assert len(by_model) == 3
    assert (tmp_path / "languages_generalization.png").stat().st_size > 0
