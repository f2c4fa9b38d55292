"""The experiments' config modules: sizes (frozen, unknown sizes refused), the exactness runs equal
to the commands README quotes, and each smoke size run through its ``run`` into a temporary
directory."""

import dataclasses
import json

import numpy as np
import pytest

from transformer_theory.papers.svete_cotterell2024 import _models as learn
from transformer_theory.papers.svete_cotterell2024 import (
    _study_ngram_exactness,
    _study_ngram_learnability,
)
from transformer_theory.papers.svete_cotterell2024 import _tasks as tasks
from transformer_theory.papers.svete_cotterell2024.experiments import (
    ngram_learnability as config_module,
)


def test_config_sizes():
    default = config_module.get_config()
    assert default == config_module.get_config("default") and len(default.grid) == 8
    assert (default.steps, default.batch, default.eval_len) == (600, 64, 6)  # what README quotes
    smoke = config_module.get_config("smoke")
    assert smoke.steps < default.steps and len(smoke.grid) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        smoke.steps = 1
    with pytest.raises(ValueError, match="size"):
        config_module.get_config("huge")


def test_unigram_fit_is_history_free_and_normalized():
    lm = tasks.NGramLM.random(0, 3, 3, zero_fraction=0.2)
    uni = learn.unigram_fit(lm, 3)
    probs = np.exp(uni.log_probs_AxC)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(probs, np.broadcast_to(probs[0], probs.shape))


def test_smoke_size_runs_and_writes_each_row(tmp_path):
    result = _study_ngram_learnability.run(
        config_module.get_config("smoke"), str(tmp_path), progress=False
    )
    (row,) = result.rows
    assert abs(row.kl_per_symbol_construction) < 1e-12  # the construction is exact
    assert row.kl_per_symbol_trained > 0 and row.kl_per_symbol_unigram > 0
    saved = json.loads((tmp_path / "ngram_learnability.json").read_text())
    assert saved["rows"] == [dataclasses.asdict(r) for r in result.rows]
    assert saved["config"]["size"] == "smoke"


def test_exactness_config_matches_the_quoted_commands():
    """The default runs are the settings ``transformer-theory ngram`` parses from the commands the
    config's docstring quotes (so README's numbers come from this config)."""
    from transformer_theory.cli import ngram
    from transformer_theory.cli._options import CommandParser
    from transformer_theory.papers.svete_cotterell2024.experiments import ngram_exactness
    from transformer_theory.papers.svete_cotterell2024.experiments.ngram import NGramSettings
    from transformer_theory.settings import from_args

    commands = {
        "ngram_hard": "--max-len 6 --precision float64,bfloat16 --scan-limit 12",
        "ngram_hard_float32": "--max-len 6 --precision float32 --scan-limit 40",
        "ngram_sparse": "--attention sparse --max-len 4 --precision float64 "
        "--construction 3.1,3.2,3.3-slots --scan-limit 10",
        "ngram_soft": "--attention softmax --beta 1000 --alphabet 2 --max-len 6 "
        "--precision float64 --soft-lengths 1,2,3,4,5,6",
    }
    runs = dict(ngram_exactness.get_config().runs)
    assert list(runs) == list(commands)
    for name, argv in commands.items():
        parser = CommandParser()
        ngram.add_arguments(parser)
        args = parser.parse_args([*argv.split(), "--out", "unused"])
        assert from_args(NGramSettings, args) == runs[name], name
    with pytest.raises(ValueError, match="size"):
        ngram_exactness.get_config("huge")


def test_exactness_smoke_size_runs(tmp_path):
    from transformer_theory.papers.svete_cotterell2024.experiments import ngram_exactness

    result = _study_ngram_exactness.run(
        ngram_exactness.get_config("smoke"), str(tmp_path), progress=False
    )
    assert [dataclasses.asdict(r) for r in result.rows] == [
        {"run": "ngram_hard", "records": 2, "float64_failures": 0}
    ]
    saved = json.loads((tmp_path / "ngram_hard" / "ngram.json").read_text())
    assert saved["complete"] is True and all(r["equivalent"] for r in saved["records"])


@pytest.mark.parametrize("name", ["ngram", "ngram_space"])
def test_the_command_settings_run_as_experiments_by_name(name, tmp_path, capsys):
    """``experiment ngram`` / ``experiment ngram_space`` at smoke size: the command's study on its
    experiment's settings, its file read back as the typed record it was written from."""
    from transformer_theory import jsonio
    from transformer_theory.cli import main
    from transformer_theory.papers.svete_cotterell2024 import _records

    out = tmp_path / name
    assert main(["experiment", name, "--size", "smoke", "--out", str(out)]) == 0
    assert f"{name} (svete_cotterell2024, size smoke)" in capsys.readouterr().out
    if name == "ngram":
        back = jsonio.read_record(str(out / "ngram.json"), _records.NGramResult)
        assert back.complete and [r.construction for r in back.records] == ["3.1", "3.3"]
        assert all(r.equivalent for r in back.records) and back.soft is None
    else:
        back = jsonio.read_record(str(out / "ngram_space.json"), _records.SpaceResult)
        assert {(r.order, r.alphabet) for r in back.records} == {(2, 1), (2, 2), (3, 1), (3, 2)}
        assert back.all_match and back.within_printed
