"""The trained function-composition experiments of Peng et al. 2024: the quantized transformer
refuses one bit, and the smoke runs of the two experiment scripts (moved from the Sanford tests)."""

import importlib.util
import json
from pathlib import Path

import pytest
from flax import nnx

from transformer_theory.papers.peng2024 import _models as peng_networks

EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXPERIMENTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_composition_transformer_refuses_one_bit():
    with pytest.raises(ValueError, match="bits"):
        peng_networks.CompositionTransformer(9, 10, 4, 2, 1, 9, bits=1, rngs=nnx.Rngs(0))


def test_composition_depth_smoke(tmp_path):
    assert _load("composition_depth").main(["--smoke", "--out", str(tmp_path)]) == 0
    records = json.loads((tmp_path / "records.json").read_text())
    assert [(r["layers"], r["p"], r["quantized"]) for r in records] == [(1, 4, True)]
    assert all(0 <= r["error"] <= 1 and 0 <= r["bound"] < 1 for r in records)
    assert (tmp_path / "composition_depth.png").exists()


def test_composition_smoke(tmp_path):
    path = EXPERIMENTS / "composition_one_layer.py"
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


@pytest.mark.parametrize(
    "name, argv, message",
    [
        ("composition_depth", ["--set", "n=1"], "--n"),
        ("composition_depth", ["--set", "bits=1,4"], "--bits"),
    ],
)
def test_bad_arguments_exit_2_before_training(name, argv, message, tmp_path, capsys):
    assert _load(name).main(argv + ["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("composition_bound", "BoundRecord"),
        ("composition_cot", "CoTRecord"),
        ("composition_one_pass", "OnePassRecord"),
    ],
)
def test_the_committed_rows_read_as_the_typed_records(name, kind):
    # the records a study returns are its records.json rows typed: every committed row reads as
    # one, field for field (a field renamed, dropped or added in either is a ValueError here)
    from transformer_theory import jsonio
    from transformer_theory.papers.peng2024 import _records

    saved = json.loads((EXPERIMENTS / "results" / f"peng2024_{name}.json").read_text())
    rows = [jsonio.as_record(getattr(_records, kind), r) for r in saved["records"]]
    assert rows and [jsonio.to_jsonable(r)[0] for r in rows] == saved["records"]
    with pytest.raises(ValueError, match="no field"):
        jsonio.as_record(getattr(_records, kind), saved["records"][0] | {"extra": 1})
