"""Ctrl-C during ``train``: the last completed step is checkpointed, the message says where to
resume, the exit status is 130, and the same command resumes bit for bit (issue 9, item 10)."""

import json
import os
import signal
import subprocess
import sys
import time

import jax
import numpy as np
import pytest

from transformer_theory import tasks
from transformer_theory.cli import main as cli_main
from transformer_theory.jsonio import read_json
from transformer_theory.papers.chen_zou2024.experiments import named_config
from transformer_theory.sweeps import trained_params
from transformer_theory.train import (
    DataSettings,
    TaskData,
    TrainingInterrupted,
    TrainSettings,
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
    return params, TaskData(task, jax.random.key(2), DataSettings(holdout=0.25))


def test_interrupt_checkpoints_the_last_step_and_resumes_bit_for_bit(tmp_path, monkeypatch):
    params, data = _reasoning()
    meta = {"name": "reasoning"}
    tc = TrainSettings(steps=10, batch_size=8, learning_rate=0.01, optimizer="adam", log_every=5)
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
        train(params, data, TrainSettings(steps=3, batch_size=8), None, progress=False)


def test_interrupt_cli_exits_130_with_the_resume_message(tmp_path, monkeypatch, capsys):
    out = str(tmp_path / "out")
    argv = ["train", "--experiment", "fig2_depth", "--tasks", "memorization", "--seeds", "0"]
    argv += ["--steps", "20", "--out", out, "--no-progress"]
    _interrupt_on_call(monkeypatch, 7)  # memorization quick is full-batch: one call per step
    assert cli_main(argv) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("interrupted") == 1, err  # one message: the command's, with the resume step
    assert (
        "memorization_heads1_seed0: interrupted at step 6; the last checkpoint is step 6; run "
        "the same command to resume" in err
    )
    monkeypatch.undo()
    assert cli_main(argv) == 0
    assert cli_main(argv[:-3] + ["--out", str(tmp_path / "ref"), "--no-progress"]) == 0
    config = named_config("fig2_depth").replace(tasks=("memorization",), seeds=(0,), steps=20)
    spec = config.runs()[0]
    a, b = trained_params(spec, out), trained_params(spec, str(tmp_path / "ref"))
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_interrupt_by_a_real_sigint(tmp_path):
    """The real signal path: SIGINT to a `train` process certainly mid-training.

    The child starts with SIGINT IGNORED, as a shell starts a background job (`train ... &` in a
    script): `kill -INT` used to be lost there and the run went on to exit 0. Every command now
    handles SIGINT itself (exit 130), which is also the Ctrl-C path of a foreground run.
    """
    out = tmp_path / "out"
    run = out / "memorization_heads1_seed0"
    # the child inherits the SIGINT disposition across exec (SIG_IGN or SIG_DFL): set it here,
    # not in a preexec_fn, with which JAX warns that os.fork() may deadlock
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "transformer_theory", "train", "--experiment", "fig2_depth",
             "--tasks", "memorization", "--depths", "1", "--seeds", "0", "--steps", "10000000",
             "--out", str(out), "--no-progress"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        # metrics.json comes with the first checkpoint (step 500 of 10^7): from then on the
        # process is inside the training loop until it is stopped.
        deadline = time.monotonic() + 180
        while not (run / "metrics.json").exists() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=90)
    finally:
        proc.kill()
    assert proc.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr, stderr
    line = next(s for s in stderr.splitlines() if "interrupted at step" in s)
    step = int(line.split("interrupted at step ")[1].split(";")[0])
    ckpt = int(line.split("the last checkpoint is step ")[1].split(";")[0])
    assert ckpt == step >= 500 and line.endswith("run the same command to resume")
    assert str(ckpt) in os.listdir(run / "checkpoints")
    metrics = read_json(str(run / "metrics.json"))  # consistent: strict JSON, up to the checkpoint
    assert metrics["rows"][-1]["step"] <= ckpt


def test_ctrl_c_during_a_checkpoint_write_is_held_until_the_write_is_done():
    # A KeyboardInterrupt inside Orbax's save leaves its threads mid-write (the next save hung, or a
    # thread printed a traceback); the signal must arrive after the block, not inside it.
    from transformer_theory.train.signals import deferred_sigint

    # Python's own Ctrl-C handler, also when pytest runs as a shell's background job (which starts
    # with SIGINT ignored)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    reached = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with deferred_sigint():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)
                reached.append("after the signal")
        assert reached == ["after the signal"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
