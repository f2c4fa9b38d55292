"""Smoke test of experiments/languages_generalization.py (a few steps, one length)."""

import importlib.util
import pathlib

from transformer_theory.jsonio import read_json

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_generalization_smoke(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "languages_generalization", ROOT / "experiments" / "languages_generalization.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--smoke", "--out", str(tmp_path)]) == 0
    result = read_json(tmp_path / "languages_generalization.json")
    by_model = {r["model"]: r for r in result["records"]}
    assert by_model["constructed"]["accuracy"] == [1.0]
    # The softmax model, its weights read with leftmost-hard (labelled as not trained), the
    # construction.
    assert set(by_model) == {mod.LABELS["softmax"], mod.SOFT_THEN_HARD, "constructed"}
    assert by_model[mod.SOFT_THEN_HARD]["final_loss"] is None
    assert (tmp_path / "languages_generalization.png").stat().st_size > 0
