"""The one training runner on a toy model (least squares, a dict of arrays as the state): resume
bit for bit, divergence, the guard, the metrics files -- independent of any transformer."""

import csv
import os

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from transformer_theory.jsonio import read_json
from transformer_theory.train import TrainSettings, rundir, runner

W_TRUE = jnp.asarray([1.0, -2.0, 0.5])
X_EVAL = jax.random.normal(jax.random.key(9), (16, 3))


def batch(key, size):
    x = jax.random.normal(key, (size, 3))
    return x, x @ W_TRUE


def loss_acc(state, x, y):
    err = x @ state["w"] - y
    return jnp.mean(err**2), jnp.mean((jnp.abs(err) < 0.1).astype(jnp.float32))


def steps(learning_rate):
    tx = optax.sgd(learning_rate)

    def plain(state, opt_state, x, y):
        (loss, acc), grads = jax.value_and_grad(loss_acc, has_aux=True)(state, x, y)
        updates, opt_state = tx.update(grads, opt_state, state)
        return optax.apply_updates(state, updates), opt_state, loss, acc

    return tx, jax.jit(runner.guard(plain)), jax.jit(lambda s: loss_acc(s, X_EVAL, X_EVAL @ W_TRUE))


def toy_run(out_dir, config, learning_rate=0.05, **kw):
    tx, train_step, eval_step = steps(learning_rate)
    state = {"w": jnp.zeros(3)}
    return runner.run(
        state,
        tx.init(state),
        train_step=train_step,
        eval_step=eval_step,
        batch=batch,
        config=config,
        out_dir=out_dir,
        settings={"toy": "least squares", "lr": learning_rate},
        fingerprints={"initial_params_sha256": rundir.fingerprint(state)},
        meta={"name": "toy"},
        progress=False,
        **kw,
    )


CONFIG = TrainSettings(steps=20, batch_size=8, log_every=5, checkpoint_every=5)


def test_a_stopped_run_resumes_bit_for_bit(tmp_path):
    full = toy_run(str(tmp_path / "full"), CONFIG)
    assert full.steps_done == 20 and full.stop_reason == "steps" and full.diverged_step is None
    assert [r["step"] for r in full.rows] == [0, 5, 10, 15, 20]
    assert full.rows[-1]["eval_loss"] < 0.1 * full.rows[0]["eval_loss"]  # it learns
    part = str(tmp_path / "part")
    first = toy_run(part, CONFIG, stop_after=7)
    assert first.steps_done == 7
    again = toy_run(part, CONFIG)
    np.testing.assert_array_equal(np.asarray(again.state["w"]), np.asarray(full.state["w"]))
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in again.rows]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in full.rows]
    # another setting is refused before training
    with pytest.raises(rundir.RunDirectoryError, match="lr"):
        toy_run(part, CONFIG, learning_rate=0.1)


def test_a_diverging_run_keeps_the_last_finite_state_and_says_so(tmp_path):
    out = str(tmp_path / "bad")
    res = toy_run(out, CONFIG, learning_rate=1e30)
    assert res.stop_reason == "diverged" and res.diverged_step is not None
    assert res.steps_done == res.diverged_step - 1
    assert np.all(np.isfinite(np.asarray(res.state["w"])))
    record = read_json(os.path.join(out, rundir.METRICS_FILE))
    assert record["status"] == "diverged" and record["rows"][-1]["status"] == "diverged"
    with open(os.path.join(out, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    assert rows[-1]["status"] == "diverged" and {r["status"] for r in rows[:-1]} <= {"ok"}
    stamp = os.path.getmtime(os.path.join(out, rundir.METRICS_FILE))
    again = toy_run(out, CONFIG, learning_rate=1e30)
    assert (again.diverged_step, again.steps_done) == (res.diverged_step, res.steps_done)
    assert os.path.getmtime(os.path.join(out, rundir.METRICS_FILE)) == stamp


def test_the_guard_applies_no_update_from_the_first_non_finite_one_on():
    def step(state, opt_state, scale):
        return state * scale, opt_state, jnp.sum(state * scale), jnp.float32(1)

    guarded = jax.jit(runner.guard(step))
    state, watch = jnp.ones(2), runner.new_watch()
    state, _, _, _, watch = guarded(state, 0, 2.0, watch)
    np.testing.assert_array_equal(state, [2.0, 2.0])
    state, _, loss, _, watch = guarded(state, 0, jnp.inf, watch)
    state, _, _, _, watch = guarded(state, 0, 3.0, watch)  # after a failure, nothing more
    np.testing.assert_array_equal(state, [2.0, 2.0])
    assert (int(watch["count"]), int(watch["bad"])) == (3, 2) and float(watch["bad_loss"]) == np.inf


def test_metrics_files_mark_every_finished_row_ok(tmp_path):
    rows = [dict(step=0, train_loss=None, train_acc=None, eval_loss=1.5, eval_acc=0.25, seconds=0)]
    runner.write_metrics(str(tmp_path), rows, {"name": "x"})
    with open(tmp_path / "metrics.csv") as f:
        (line,) = list(csv.DictReader(f))
    assert line["status"] == "ok" and line["eval_acc"] == "0.25" and line["train_loss"] == ""
    assert runner.read_rows(str(tmp_path)) == rows
    assert read_json(str(tmp_path / rundir.METRICS_FILE))["status"] == "ok"


def test_no_checkpoint_to_restore_is_named(tmp_path):
    with pytest.raises(rundir.RunDirectoryError, match="no checkpoint"):
        runner.restore(str(tmp_path), {"w": jnp.zeros(3)}, every=5)


def test_a_run_cut_short_says_so_until_it_reaches_its_target(tmp_path):
    # Issue 48: a reader of the run (heads, efficient-attention) must be able to tell a run
    # stopped at step 7 of 20 from a finished one; metrics.json said "ok" for both.
    out = str(tmp_path / "part")
    toy_run(out, CONFIG, stop_after=7)
    record = read_json(os.path.join(out, rundir.METRICS_FILE))
    assert (record["finished"], record["target_steps"]) == (False, 20)
    note = rundir.unfinished(out)
    assert note is not None and "7 of 20 steps" in note and out in note
    toy_run(out, CONFIG)
    assert read_json(os.path.join(out, rundir.METRICS_FILE))["finished"] is True
    assert rundir.unfinished(out) is None
    # a run that diverged is not "unfinished": it ends there (its status says diverged)
    bad = str(tmp_path / "bad")
    toy_run(bad, CONFIG, learning_rate=1e30)
    assert rundir.unfinished(bad) is None
    # a record that does not say (written before runs recorded it, or no file) is not guessed
    assert rundir.unfinished(str(tmp_path / "none")) is None
