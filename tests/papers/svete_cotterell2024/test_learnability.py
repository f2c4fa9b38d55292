"""The learnability experiment's config module (sizes, frozen, unknown sizes refused) and its smoke
size run through ``learnability.run`` into a temporary directory."""

import dataclasses
import json

import numpy as np
import pytest

from transformer_theory.papers.svete_cotterell2024 import learnability as learn
from transformer_theory.papers.svete_cotterell2024 import tasks
from transformer_theory.papers.svete_cotterell2024.configs import learnability as config_module


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
    result = config_module.run(config_module.get_config("smoke"), str(tmp_path), progress=False)
    (row,) = result["rows"]
    assert abs(row["kl_per_symbol_construction"]) < 1e-12  # the construction is exact
    assert row["kl_per_symbol_trained"] > 0 and row["kl_per_symbol_unigram"] > 0
    saved = json.loads((tmp_path / "ngram_learnability.json").read_text())
    assert saved["rows"] == result["rows"] and saved["config"]["size"] == "smoke"
