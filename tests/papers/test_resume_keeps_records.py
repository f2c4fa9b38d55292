"""Issue 40: a rerun never loses the finished records of the run before it, and a resumed record
that is incomplete is measured again instead of failing with a ``KeyError``."""

import json
import pathlib

import pytest

from transformer_theory.jsonio import write_json
from transformer_theory.papers.barbero2024 import _records
from transformer_theory.papers.barbero2024._study_collapse import settings_record
from transformer_theory.papers.barbero2024.experiments.collapse import CollapseSettings
from transformer_theory.papers.peng2024._models_training import _sweep


def test_a_rerun_interrupted_before_its_first_model_keeps_the_records(tmp_path):
    path = tmp_path / "records.json"
    write_json(str(path), [{"n": 6, "error": 0.0}])

    def interrupted(*run):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _sweep([(1,), (2,)], interrupted, str(tmp_path), desc="x", progress=False)
    assert json.loads(path.read_text()) == [{"n": 6, "error": 0.0}]  # was []
    records = _sweep([(1,)], lambda n: [{"n": n}], str(tmp_path), desc="x", progress=False)
    assert json.loads(path.read_text()) == records and records[0]["n"] == 1
    assert records[0]["run"] == repr((1,))
    assert _sweep([], lambda: [], str(tmp_path / "empty"), desc="x", progress=False) == []
    assert json.loads((tmp_path / "empty" / "records.json").read_text()) == []


def test_a_rerun_interrupted_after_some_models_keeps_the_others(tmp_path):
    # a finished sweep of three runs, then a rerun stopped after its first: the two runs it did
    # not redo keep their earlier records, the redone one has its new record
    path = tmp_path / "records.json"
    first = _sweep(
        [(1,), (2,), (3,)], lambda n: [{"n": n, "v": 0}], str(tmp_path), desc="x", progress=False
    )
    assert [r["n"] for r in first] == [1, 2, 3]

    def stop_after_one(n):
        if n > 1:
            raise KeyboardInterrupt
        return [{"n": n, "v": 1}]

    with pytest.raises(KeyboardInterrupt):
        _sweep([(1,), (2,), (3,)], stop_after_one, str(tmp_path), desc="x", progress=False)
    kept = sorted((r["n"], r["v"]) for r in json.loads(path.read_text()))
    assert kept == [(1, 1), (2, 0), (3, 0)]
    # once a rerun completes, the file holds only its own records
    _sweep([(1,), (2,)], lambda n: [{"n": n, "v": 2}], str(tmp_path), desc="x", progress=False)
    assert sorted((r["n"], r["v"]) for r in json.loads(path.read_text())) == [(1, 2), (2, 2)]


def test_an_incomplete_model_record_is_not_resumed(tmp_path):
    """Only a model record that is whole (every field, every precision of the settings, and the
    shape of the typed record) is resumed; the records are the committed results' own models."""
    results = pathlib.Path(__file__).parents[2] / "experiments" / "results"
    settings = CollapseSettings(max_len=8, points=3, precisions=("float64", "float32"))
    block = settings_record(settings)
    real = json.loads((results / "barbero2024_collapse.json").read_text())["models"][0]
    curve = real["precisions"]["float64"]
    whole = dict(real, precisions={"float64": curve, "float32": curve})
    models = [
        dict(whole, name="done"),
        {k: v for k, v in dict(whole, name="cut").items() if k != "precisions"},
        dict(whole, name="one_precision", precisions={"float64": curve}),
        dict(whole, name="not_typed", rate={}),  # every key, but not the record's shape
        "not a record",
    ]
    path = tmp_path / "collapse.json"
    write_json(str(path), {"settings": block, "complete": False, "models": models})
    assert list(_records.finished_models(str(path), block)) == ["done"]
    over = json.loads((results / "barbero2024_oversquash.json").read_text())["models"][0]
    write_json(str(path), {"settings": block, "models": [dict(over, name="a"), {"name": "b"}]})
    assert list(_records.finished_models(str(path), block, "oversquash")) == ["a"]


def test_a_seed_beyond_32_bits_is_refused_naming_seeds():
    with pytest.raises(ValueError, match="^seeds:"):
        CollapseSettings(seeds=(2**70,))
