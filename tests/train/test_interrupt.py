"""Ctrl-C during ``train``: the last completed step is checkpointed, the message says where to
resume, the exit status is 130, and the same command resumes bit for bit (issue 9, item 10)."""

import json
import os

import jax
import numpy as np
import pytest

from transformer_theory import tasks
from transformer_theory.train import (
    DataConfig,
    TaskData,
    TrainConfig,
    TrainingInterrupted,
    paper_init,
    train,
)


def _interrupt_on_call(monkeypatch, n):
    """Make the n-th training batch (1-based) raise KeyboardInterrupt, as Ctrl-C would."""
    calls = {"n": 0}
    batch = TaskData.batch

    def interrupted(self, key, batch_size):
        calls["n"] += 1
        if calls["n"] == n:
            raise KeyboardInterrupt
        return batch(self, key, batch_size)

    monkeypatch.setattr(TaskData, "batch", interrupted)


def _reasoning():
    task = tasks.InContextQA(3, 3, 2)
    params = paper_init(jax.random.key(0), task.model_config(heads=(1, 1)), task, w_v="identity")
    return params, TaskData(task, jax.random.key(2), DataConfig(holdout=0.25))


def test_interrupt_checkpoints_the_last_step_and_resumes_bit_for_bit(tmp_path, monkeypatch):
    params, data = _reasoning()
    meta = {"name": "reasoning"}
    tc = TrainConfig(steps=10, batch_size=8, learning_rate=0.01, optimizer="adam", log_every=5)
    full = train(params, data, tc, str(tmp_path / "full"), meta=meta, progress=False)
    run = str(tmp_path / "run")
    _interrupt_on_call(monkeypatch, 8)  # 7 updates done, Ctrl-C while drawing the 8th batch
    with pytest.raises(TrainingInterrupted) as err:
        train(params, data, tc, run, meta=meta, progress=False)
    assert (err.value.step, err.value.checkpoint_step) == (7, 7)
    assert err.value.message() == (
        "interrupted at step 7; the last checkpoint is step 7; run the same command to resume"
    )
    assert isinstance(err.value, KeyboardInterrupt)  # code that does not know it still stops
    with open(os.path.join(run, "metrics.json")) as f:
        assert [r["step"] for r in json.load(f)["rows"]] == [0, 5]
    monkeypatch.undo()
    resumed = train(params, data, tc, run, meta=meta, progress=False)
    for a, b in zip(jax.tree.leaves(full.params), jax.tree.leaves(resumed.params)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in full.metrics]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in resumed.metrics]


def test_interrupt_without_out_dir_says_nothing_was_saved(monkeypatch):
    params, data = _reasoning()
    _interrupt_on_call(monkeypatch, 1)
    with pytest.raises(TrainingInterrupted, match="interrupted at step 0; nothing was saved"):
        train(params, data, TrainConfig(steps=3, batch_size=8), None, progress=False)
