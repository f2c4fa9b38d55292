"""A collapse run keeps what it finished: interrupted after one model it leaves that model's
records, the rerun measures only the rest and ends with the file an uninterrupted run writes;
a ``collapse.json`` of other settings is refused (never overwritten unasked) unless ``fresh``.

The measurement is replaced by a cheap deterministic stand-in (what is under test is the
bookkeeping, not the distances: ``test_study.py`` and ``test_cli.py`` check those on real models),
so these tests run no JAX program.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from transformer_theory.cli import main
from transformer_theory.papers.barbero2024 import _plots as plots
from transformer_theory.papers.barbero2024 import (
    _records,
    _study_collapse,
    _study_oversquash,
    _theory_collapse,
)
from transformer_theory.papers.barbero2024._records import SettingsDiffer
from transformer_theory.papers.barbero2024._records_grid import Interrupted
from transformer_theory.papers.barbero2024.experiments import collapse, oversquash

SETTINGS = dict(depths=(1, 2), positionals=("none", "rope"), max_len=8, points=2)
NAMES = [f"L{d}_H1_{p}_seed0" for d in (1, 2) for p in ("none", "rope")]


def stand_in_model(name, lengths, precisions):
    """A collapse model record with every field of a CollapseModel but the grid's labels and the
    seconds, its distances a function of the name."""
    fit = dict(slope=None, constant=None, fit_from=None, fit_to=None, points=0)
    asym = dict(
        slope=None,
        tail_from=None,
        tail_to=None,
        tail_points=0,
        change=None,
        change_from=None,
        plateau=False,
        plateau_value=None,
        verdict="undetermined: a stand-in",
    )
    n = len(lengths)
    curve = dict(
        distance=[float(sum(map(ord, name)))] * n,
        identical=[False] * n,
        equal_coords=[0] * n,
        width=1,
        first_identical=None,
        identical_from=None,
        rate=fit,
        asymptotic=asym,
    )
    record = dict(
        name=name,
        pattern="ones_zero",
        separator_every=None,
        lengths=list(lengths),
        tokens=list(lengths),
        precisions={p: curve for p in precisions},
        rate=fit,
        asymptotic=asym,
        verdict=asym["verdict"],
        predicted_limit=None,
    )
    # every field a finished record has (_records.MODEL_FIELDS), or the resume measures it again
    assert set(_records.MODEL_FIELDS["collapse"]) - {"seconds"} <= set(record)
    return record


@pytest.fixture
def measured(monkeypatch):
    """The names measured, in order; each "measurement" is a function of the model alone."""
    calls: list[str] = []

    def fake_record(params, name, lengths, precisions, **kwargs):
        calls.append(name)
        return stand_in_model(name, lengths, precisions)

    monkeypatch.setattr(_study_collapse, "random_model", lambda config, seed: None)
    monkeypatch.setattr(_theory_collapse, "model_record", fake_record)
    monkeypatch.setattr(plots, "plot_collapse", lambda record, path: path)
    return calls


def _without_seconds(value):
    """The record less its wall-clock fields (the only ones two runs may differ in)."""
    if isinstance(value, dict):
        return {k: _without_seconds(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_without_seconds(v) for v in value]
    return value


def test_interrupted_run_resumes_to_the_uninterrupted_file(tmp_path, measured):
    settings = collapse.CollapseSettings(**SETTINGS)
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    whole.mkdir(), parts.mkdir()
    _study_collapse.run(settings, str(whole))
    assert measured == NAMES
    measured.clear()

    def stop(model):
        raise KeyboardInterrupt  # Ctrl-C right after the first model was written

    with pytest.raises(Interrupted) as info:
        _study_collapse.run(settings, str(parts), on_model=stop)
    assert (info.value.finished, info.value.total) == (1, 4)
    saved = json.loads((parts / "collapse.json").read_text())
    assert not saved["complete"] and [m["name"] for m in saved["models"]] == NAMES[:1]

    measured.clear()
    _study_collapse.run(settings, str(parts))
    assert measured == NAMES[1:]  # the finished model is read back, not measured again
    final = json.loads((parts / "collapse.json").read_text())
    expected = json.loads((whole / "collapse.json").read_text())
    assert final["complete"] and _without_seconds(final) == _without_seconds(expected)
    assert final["models"][0] == saved["models"][0]  # kept as written, its seconds included


def test_other_settings_are_refused_unless_fresh(tmp_path, measured):
    _study_collapse.run(collapse.CollapseSettings(**SETTINGS), str(tmp_path))
    path = tmp_path / "collapse.json"
    before = path.read_text()
    other = collapse.CollapseSettings(**dict(SETTINGS, max_len=9))
    with pytest.raises(SettingsDiffer) as info:
        _study_collapse.run(other, str(tmp_path))
    assert (info.value.setting, info.value.recorded, info.value.asked) == ("max_len", 8, 9)
    assert path.read_text() == before  # nothing measured, nothing overwritten
    measured.clear()
    _study_collapse.run(other, str(tmp_path), fresh=True)
    assert measured == NAMES and json.loads(path.read_text())["settings"]["max_len"] == 9


def test_command_names_the_option_that_differs(tmp_path, measured, capsys, monkeypatch):
    from transformer_theory.cli import collapse as command

    # the stand-in records carry no verdict to print; the memory check compiles (tested elsewhere)
    monkeypatch.setattr(command, "summary_line", lambda model, precisions: model.name)
    monkeypatch.setattr(command, "summary", lambda model: {"name": model.name})
    monkeypatch.setattr(_theory_collapse, "check_measurement_memory", lambda *args: 0.0)
    argv = ["collapse", "--depth", "1,2", "--positional", "none,rope", "--max-len", "8"]
    argv += ["--points", "2", "--precision", "float64", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0 and measured == NAMES
    capsys.readouterr()
    assert main(argv) == 0 and measured == NAMES  # the same command: all read back
    assert "resuming: 4 finished model(s)" in capsys.readouterr().out
    before = (tmp_path / "collapse.json").read_text()
    assert main([a if a != "float64" else "float32" for a in argv]) == 2
    err = capsys.readouterr().err
    assert "--precision:" in err and "--fresh" in err and "Traceback" not in err, err
    assert (tmp_path / "collapse.json").read_text() == before
    (tmp_path / "collapse.json").write_text("not json")
    assert main(argv) == 2
    assert "--out:" in capsys.readouterr().err
    assert main([*argv, "--fresh"]) == 0 and measured == NAMES + NAMES


def test_oversquash_resumes_and_refuses_other_settings(tmp_path, monkeypatch):
    from types import SimpleNamespace

    import numpy as np

    from transformer_theory.papers.barbero2024 import _theory_oversquash

    calls = []

    def fake_record(params, emb, bound):
        calls.append(params.seed)
        value = params.seed * 10.0  # the record of an OversquashModel, marked by its seed
        record = dict(
            depth=1,
            length=8,
            sensitivity=[[value]],
            sensitivity_final=[value],
            path_weight=[[1.0]],
            path_weight_residual=[[1.0]],
            path_count=["1"],
            early_late_ratio=value,
            path_early_late_ratio=1.0,
            residual_path_early_late_ratio=1.0,
        )
        assert set(_records.MODEL_FIELDS["oversquash"]) - {"name"} <= set(record)
        return record

    def fake_model(config, seed):
        return SimpleNamespace(seed=seed, w_o=np.zeros(1))

    monkeypatch.setattr(_study_oversquash, "random_model", fake_model)
    monkeypatch.setattr(_study_oversquash, "embed_long", lambda *args, **kwargs: None)
    monkeypatch.setattr(_theory_oversquash, "oversquash_record", fake_record)
    monkeypatch.setattr(plots, "plot_oversquash", lambda record, path: path)
    settings = oversquash.OversquashSettings(depths=(1,), seeds=(0, 1, 2), length=8, bound=False)

    def stop(model):
        raise KeyboardInterrupt

    with pytest.raises(Interrupted):
        _study_oversquash.run(settings, str(tmp_path), on_model=stop)
    result = _study_oversquash.run(settings, str(tmp_path))
    assert calls == [0, 1, 2] and [m.early_late_ratio for m in result.record.models] == [0, 10, 20]
    with pytest.raises(SettingsDiffer, match="length: 8 there, 9 asked"):
        _study_oversquash.run(dataclasses.replace(settings, length=9), str(tmp_path))
    assert calls == [0, 1, 2]
