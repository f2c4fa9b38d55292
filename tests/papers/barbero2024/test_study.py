"""The studies behind ``collapse`` / ``oversquash`` called from Python: settings checked by field,
the grid, the records written as each model finishes (against the independent NumPy model), resume,
Ctrl-C, and the experiment config's sizes."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from tests.helpers import assert_close
from tests.papers.barbero2024 import _reference
from tests.papers.barbero2024.test_resume import stand_in_model
from transformer_theory import jsonio
from transformer_theory.cli import collapse as collapse_command
from transformer_theory.cli import oversquash as oversquash_command
from transformer_theory.papers.barbero2024 import (
    _models,
    _records,
    _study_collapse,
    _study_collapse_tasks,
    _study_oversquash,
    _tasks,
)
from transformer_theory.papers.barbero2024._models import random_model
from transformer_theory.papers.barbero2024._records_grid import Interrupted
from transformer_theory.papers.barbero2024.experiments import collapse, oversquash
from transformer_theory.papers.barbero2024.experiments import collapse_tasks as configs


def test_settings_name_the_field():
    with pytest.raises(ValueError, match="^seeds: 0 given more than once"):
        collapse.CollapseSettings(seeds=(0, 0))
    with pytest.raises(ValueError, match="^precisions: expected one of .*'float16'"):
        collapse.CollapseSettings(precisions=("float16",))
    with pytest.raises(ValueError, match="^points: 8 lengths asked for, but only 7"):
        collapse.CollapseSettings(max_len=8, points=8)
    with pytest.raises(ValueError, match="^max_len: expected 2..16384"):
        collapse.CollapseSettings(max_len=1)
    with pytest.raises(ValueError, match="^width: d' must be at least"):
        collapse.CollapseSettings(width=8)  # too narrow for the sinusoidal code
    with pytest.raises(ValueError, match="^positionals"):
        oversquash.OversquashSettings(positionals=("learned",))
    with pytest.raises(ValueError, match="^length"):
        oversquash.OversquashSettings(length=4)


def test_settings_record_is_the_fields_by_name():
    s = collapse.CollapseSettings(depths=[1, 2], positionals=["none"], max_len=8, points=2)
    assert _study_collapse.settings_record(s) == dict(
        depths=[1, 2],
        heads=[1],
        positionals=["none"],
        seeds=[0],
        max_len=8,
        points=2,
        precisions=["float64", "float32", "bfloat16"],
        pattern="ones_zero",
        separator_every=None,
        width=32,
        lengths=[2, 8],
    )
    o = oversquash.OversquashSettings(length=6, pattern="ones_zero")
    assert len(_tasks.pattern_tokens("ones_zero", 8, separator_every=2)) == 11  # the longest v
    block = _study_oversquash.settings_record(o)
    assert block["tokens"] == [1, 1, 1, 1, 1, 0] and block["bound"] is True
    # points not given: 16, or every length of a short grid (2..8: was 16 of 7 lengths)
    assert (
        _study_collapse.settings_record(collapse.CollapseSettings())["points"]
        == _study_collapse.DEFAULT_POINTS
    )
    assert _study_collapse.settings_record(collapse.CollapseSettings(max_len=8))["points"] == 7
    # "all" selects every positional code and precision
    assert collapse.CollapseSettings(positionals=("all",)).positionals == _models.POSITIONAL
    assert collapse.CollapseSettings(precisions=("all",)).precisions == collapse.PRECISIONS


def test_a_record_written_before_the_field_names_is_read_and_resumed(tmp_path):
    # collapse.json's settings block before the keys were the field names: comma text for the
    # integer axes, "depth" and "positional" for depths and positionals
    from transformer_theory.jsonio import write_json

    s = collapse.CollapseSettings(depths=(1, 2), positionals=("none",), max_len=8, points=2)
    old = dict(
        depth="1,2", heads="1", positional=["none"], seeds="0", max_len=8, points=2,
        lengths=[2, 8], precisions=["float64", "float32", "bfloat16"], pattern="ones_zero",
        separator_every=None, width=32,
    )  # fmt: skip
    assert _records.recorded_settings(old) == _study_collapse.settings_record(s)
    path = str(tmp_path / "collapse.json")
    labels = dict(depth=1, heads=1, positional="none", seed=0)
    model = dict(labels, **stand_in_model("L1_H1_none_seed0", [2, 8], s.precisions), seconds=1.0)
    # a model an older version wrote, without a field the typed record has: measured again
    older = {k: v for k, v in dict(model, name="L2_H1_none_seed0").items() if k != "tokens"}
    write_json(path, {"settings": old, "models": [model, older]})
    _records.check_resumable(
        path, _study_collapse.settings_record(s)
    )  # the same run: resumed, not refused
    assert list(_records.finished_models(path, _study_collapse.settings_record(s))) == [
        "L1_H1_none_seed0"
    ]
    with pytest.raises(_records.SettingsDiffer) as info:
        _records.check_resumable(
            path, _study_collapse.settings_record(dataclasses.replace(s, depths=(1,)))
        )
    assert (info.value.setting, info.value.recorded, info.value.asked) == ("depths", [1, 2], [1])


def test_model_grid_order_names_and_size_check():
    s = oversquash.OversquashSettings(
        depths=(1, 2), heads=(1, 2), positionals=("rope",), seeds=(0, 3)
    )
    grid = _models.model_grid(s.depths, s.heads, s.positionals, s.seeds, s.width)
    assert [m.name for m in grid][:3] == [
        "L1_H1_rope_seed0",
        "L1_H1_rope_seed3",
        "L1_H2_rope_seed0",
    ]
    assert len(grid) == 8 and grid[-1].labels == dict(depth=2, heads=2, positional="rope", seed=3)
    assert grid[-1].config.depth == 2 and grid[-1].config.heads == (2, 2)
    from transformer_theory.budget import BudgetError

    with pytest.raises(BudgetError, match="^depth/heads/width: .*lower depth/heads/width$"):
        _models.check_model_size(10**12, 1, 32)


def test_run_collapse_writes_each_model_and_matches_numpy(tmp_path):
    # one model, one length: one compile (the suite shares two cores)
    settings = collapse.CollapseSettings(
        depths=(1,), positionals=("none",), max_len=9, points=1, precisions=("float64",)
    )
    seen = []
    result = _study_collapse.run(settings, str(tmp_path), on_model=seen.append)
    saved = json.loads((tmp_path / "collapse.json").read_text())
    # the typed record is the file, field for field
    assert jsonio.to_jsonable(result.record)[0] == saved
    assert jsonio.read_record(result.json_path, _records.CollapseRecord) == result.record
    assert saved["complete"] and saved["settings"] == _study_collapse.settings_record(settings)
    assert [m.name for m in seen] == ["L1_H1_none_seed0"] and saved["models"][0]["lengths"] == [9]
    assert (tmp_path / "collapse.png").stat().st_size > 0 and result.figure_path.endswith(".png")
    # the distance, from an independent float64 NumPy forward pass of the same random model
    for model, grid_model in zip(saved["models"], _study_collapse.grid_of(settings)):
        params = random_model(grid_model.config, 0)
        for n, d in zip(model["lengths"], model["precisions"]["float64"]["distance"]):
            v = _tasks.pattern_tokens("ones_zero", n)
            ya = _reference.last_representation(params, params.config, v)
            yb = _reference.last_representation(params, params.config, _tasks.repeat_last(v))
            assert_close(d, np.linalg.norm(ya - yb))
    row = collapse_command.summary(result.record.models[0])
    assert row["name"] == "L1_H1_none_seed0" and row["K_derived"] > 0 and "float64 identical" in row
    # the same settings again: every model is read back, none measured
    again = _study_collapse.run(settings, str(tmp_path), on_model=seen.append)
    assert len(seen) == 1 and again.record.models == result.record.models


def test_run_oversquash_interrupted_keeps_the_finished_model(tmp_path):
    settings = oversquash.OversquashSettings(depths=(1, 2), length=5, width=24, bound=False)

    def stop(model):
        raise KeyboardInterrupt  # Ctrl-C right after the first model was written

    with pytest.raises(Interrupted) as info:
        _study_oversquash.run(settings, str(tmp_path), on_model=stop)
    assert (info.value.finished, info.value.total) == (1, 2)
    saved = json.loads((tmp_path / "oversquash.json").read_text())
    assert not saved["complete"] and [m["name"] for m in saved["models"]] == ["L1_H1_rope_seed0"]
    (model,) = saved["models"]
    # one layer: the paths to the last token are the 5 - i causal edges, C(5 - 1 - i + 0, 0) = 1
    assert model["path_count"] == ["1"] * 5
    # the last row of a causal softmax attention matrix is a distribution over the 5 tokens
    assert math.isclose(sum(model["path_weight"][-1]), 1.0, rel_tol=1e-12)
    row = oversquash_command.summary(jsonio.as_record(_records.OversquashModel, model))
    assert row["name"] == "L1_H1_rope_seed0" and "bound_holds" not in row


def test_experiment_config_sizes():
    smoke, default = configs.get_config("smoke"), configs.get_config()
    assert smoke.name == "smoke" and smoke.steps < default.steps
    assert default.name == "collapse_tasks" and default.eval_max_len == 2048
    with pytest.raises(ValueError, match="size"):
        configs.get_config("huge")


def test_collapse_tasks_returns_the_typed_record_it_writes(tmp_path):
    config = configs.get_config("smoke").replace(separators=(None,), steps=2)
    record = _study_collapse_tasks.run(config, str(tmp_path), progress=False)
    assert isinstance(record, _records.TasksRecord) and record.complete
    assert jsonio.read_record(str(tmp_path / "smoke.json"), _records.TasksRecord) == record
    # the record's config block is the settings, field for field (a field added to one only fails)
    assert dataclasses.asdict(record.config) == dataclasses.asdict(config)
    (run,) = record.tasks
    assert run.name == "count_ones" and run.lengths == (1, 2) and run.collapse is None
    assert len(run.precisions["bfloat16"].accuracy) == 2 and run.training[-1].step == 1
    assert _study_collapse_tasks.summary_lines(record)[0].startswith("count_ones: train acc ")
