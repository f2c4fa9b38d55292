"""The formal-language experiment's config (papers/formal_languages/experiments): its sizes, its
refusal of an unknown size, and the smoke size run through languages_generalization.run."""

import dataclasses

import pytest

from transformer_theory import jsonio
from transformer_theory.jsonio import dumps_json, read_json
from transformer_theory.papers.formal_languages import _study_languages_generalization as study
from transformer_theory.papers.formal_languages.experiments import languages_generalization


def test_default_is_what_readme_quotes():
    config = languages_generalization.get_config()
    assert config == languages_generalization.get_config("default")
    assert (config.steps, config.batch, config.samples, config.seeds) == (4000, 32, 128, (0,))
    assert (config.layers, config.width, config.schedule) == (4, 32, "cosine")
    assert (config.final_temperature, config.hard_fraction) == (0.03, 0.2)
    assert dict(config.positional) == {"dyck1": "chiang_cholak"}
    assert config.train_lengths == (4, 8, 12, 16)
    assert config.eval_lengths == (8, 16, 32, 64, 128, 256)
    modes = ("softmax", "straight_through_leftmost", "annealed_leftmost")
    assert dict(config.modes) == {"parity": modes, "dyck1": modes, "dyck2": modes}
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.steps = 1


def test_unknown_size_refused():
    with pytest.raises(ValueError, match="size"):
        languages_generalization.get_config("paper")


def test_bad_settings_refused():
    with pytest.raises(ValueError, match="modes"):
        languages_generalization.GeneralizationSettings(modes=(("parity", ("hard",)),))
    with pytest.raises(ValueError, match="seeds"):
        languages_generalization.GeneralizationSettings(seeds=())
    with pytest.raises(ValueError, match="hard_fraction"):
        languages_generalization.GeneralizationSettings(hard_fraction=1.5)
    with pytest.raises(ValueError, match="schedule"):
        languages_generalization.GeneralizationSettings(schedule="linear")
    with pytest.raises(ValueError, match="positional"):
        languages_generalization.GeneralizationSettings(positional=(("dyck2", "learned"),))
    with pytest.raises(ValueError, match="eval_lengths"):  # Dyck has no odd-length members
        languages_generalization.GeneralizationSettings(eval_lengths=(9,))


def read_json_roundtrip(obj):
    """``obj`` as JSON gives it back (tuples become lists)."""
    import json

    return json.loads(dumps_json(obj))


def test_smoke_size_runs(tmp_path):
    config = languages_generalization.get_config("smoke")
    result = study.run(config, str(tmp_path), progress=False)
    written = read_json(tmp_path / "languages_generalization.json")
    assert written["records"] == read_json_roundtrip(result.records)
    assert written["settings"] == read_json_roundtrip(dataclasses.asdict(result.settings))
    assert result.settings.size == "smoke"
    assert (
        jsonio.read_record(str(tmp_path / "languages_generalization.json"), type(result)).records
        == result.records
    )
    by_model = {r.model: r for r in result.records}
    assert set(by_model) == {
        study.LABELS["softmax"],
        study.SOFT_THEN_HARD,
        "constructed",
    }
    assert by_model["constructed"].accuracy == (1.0,)
    assert by_model[study.LABELS["softmax"]].steps == config.steps
    assert (tmp_path / "languages_generalization.png").stat().st_size > 0
    rows = study.table(result.records)
    assert rows[0]["L=4"] == f"{by_model[study.LABELS['softmax']].accuracy[0]:.2f}"
