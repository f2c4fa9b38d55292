"""A run whose loss or parameters stop being finite stops at that update and says so everywhere:
``TrainResult``, ``metrics.json`` / ``metrics.csv`` / ``run.json`` (strict JSON: no NaN literal),
the summary and aggregate tables, and the ``train`` command's exit status (1)."""

import csv
import os

import jax
import numpy as np
from flax import nnx

from transformer_theory import tasks
from transformer_theory.cli import main as cli_main
from transformer_theory.jsonio import read_json
from transformer_theory.nn import from_params
from transformer_theory.sweeps import aggregate
from transformer_theory.sweeps.tables import markdown_table, write_summary_csv
from transformer_theory.train import (
    DataSettings,
    TaskData,
    TrainSettings,
    make_optimizer,
    make_steps,
    paper_init,
    train,
)


def _reasoning():
    task = tasks.InContextQA(3, 3, 2)
    params = paper_init(jax.random.key(0), task.model_config(heads=(1, 1)), task, w_v="identity")
    return params, TaskData(task, jax.random.key(2), DataSettings(holdout=0.25))


def _finite(tree) -> bool:
    return all(np.isfinite(np.asarray(x, np.float64)).all() for x in jax.tree.leaves(tree))


def test_train_stops_at_the_diverging_update_and_records_it(tmp_path):
    params, data = _reasoning()
    tc = TrainSettings(steps=12, batch_size=8, learning_rate=1e3, log_every=6, checkpoint_every=6)
    # Reference: the plain (unguarded) step, the same batches, the first update after which the
    # batch loss or a parameter is not finite (checked here in float64 NumPy).
    graphdef, state = nnx.split(from_params(params))
    tx = make_optimizer(tc)
    opt, step = tx.init(state), make_steps(graphdef, tx)[0]
    key = jax.random.fold_in(jax.random.key(tc.seed), 1)
    before, bad, bad_loss = state, None, None
    for s in range(tc.steps):
        tokens, labels = data.batch(jax.random.fold_in(key, s), tc.batch_size)
        new, opt, loss, _ = step(state, opt, tokens, labels)
        if not (np.isfinite(float(loss)) and _finite(new)):
            bad, bad_loss, before = s + 1, float(loss), state
            break
        state = new
    assert bad is not None and bad < tc.steps, "lr 1e3 must diverge within 12 steps here"

    run = str(tmp_path / "run")
    res = train(params, data, tc, run, progress=False)
    assert (res.stop_reason, res.diverged_step, res.steps_done) == ("diverged", bad, bad - 1)
    # The parameters kept are those before the diverging update, not NaN. rtol: the guarded step
    # is another XLA program with the same operations; fusion may round differently.
    assert _finite(res.params)
    for a, b in zip(jax.tree.leaves(to_state(res.params)), jax.tree.leaves(before)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=0)

    metrics = read_json(os.path.join(run, "metrics.json"))  # strict: a NaN literal raises
    assert metrics["status"] == "diverged" and metrics["diverged_step"] == bad
    last = metrics["rows"][-1]
    assert last["step"] == bad and last["status"] == "diverged" and last["eval_acc"] is None
    assert [r["step"] for r in metrics["rows"][:-1]] == [s for s in (0, 6) if s < bad]
    if not np.isfinite(bad_loss):  # the loss is null, and the file says why
        i = len(metrics["rows"]) - 1
        assert last["train_loss"] is None and f"rows[{i}].train_loss" in metrics["nonfinite"]
    run_record = read_json(os.path.join(run, "run.json"))
    assert run_record["status"]["state"] == "diverged" and run_record["status"]["step"] == bad
    with open(os.path.join(run, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    assert rows[-1]["status"] == "diverged" and {r["status"] for r in rows[:-1]} <= {"ok"}
    assert str(bad - 1) in os.listdir(os.path.join(run, "checkpoints"))

    # The same command again: the run stays diverged (nothing trained, nothing rewritten).
    stamp = os.path.getmtime(os.path.join(run, "metrics.json"))
    again = train(params, data, tc.replace(steps=20), run, progress=False)
    assert (again.stop_reason, again.diverged_step, again.steps_done) == ("diverged", bad, bad - 1)
    assert os.path.getmtime(os.path.join(run, "metrics.json")) == stamp


def to_state(params):
    return nnx.split(from_params(params))[1]


def test_train_cli_exits_1_and_every_table_flags_the_diverged_run(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["train", "--experiment", "fig2_depth", "--tasks", "reasoning", "--depths", "2"]
    argv += ["--seeds", "0", "--lr", "1e8", "--steps", "4", "--out", str(out), "--no-progress"]
    assert cli_main(argv) == 1
    captured = capsys.readouterr()
    assert "DIVERGED at step" in captured.out and "held-out acc" not in captured.out
    assert "1 of 1 run(s) diverged" in captured.err and "Traceback" not in captured.err
    (row,) = read_json(str(out / "summary.json"))
    assert row["status"] == "diverged" and row["final_eval_acc"] is None
    assert row["stop_reason"] == "diverged" and 1 <= row["diverged_step"] <= 4
    for name in ("summary.csv", "aggregate.csv"):
        with open(out / name) as f:
            (line,) = list(csv.DictReader(f))
        assert line.get("status", "diverged") == "diverged", name
        assert line.get("diverged", "1") == "1" and line.get("acc_mean", "") == "", name
        assert line.get("final_eval_acc", "") == "", name
    run_dir = out / row["run"]
    for name in ("metrics.json", "run.json"):
        read_json(str(run_dir / name))
    read_json(str(out / "experiment.json"))


def test_tables_keep_diverged_runs_out_of_the_accuracy_and_say_so(tmp_path):
    base = dict(task="reasoning", heads="1-1", depth=2, optimizer="sgd", learning_rate=0.1)
    base |= dict(chance=0.25, steps=10, seconds=1.0)
    rows = [
        dict(base, run="a", seed=0, status="ok", final_eval_acc=0.5, stop_reason="steps"),
        dict(base, run="b", seed=1, status="ok", final_eval_acc=0.75, stop_reason="steps"),
        dict(base, run="c", seed=2, status="diverged", final_eval_acc=None, stop_reason="diverged"),
    ]
    (agg,) = aggregate(rows)
    assert (agg["seeds"], agg["diverged"], agg["acc_mean"]) == (3, 1, 0.625)
    assert (agg["acc_min"], agg["acc_max"]) == (0.5, 0.75)
    table = markdown_table(rows).splitlines()[-1]
    assert "0.62 [0.50, 0.75]" in table and "3 (1 diverged)" in table and "diverged" in table
    (all_bad,) = aggregate([rows[2]])
    assert all_bad["acc_mean"] is None and all_bad["diverged"] == 1
    assert "| diverged |" in markdown_table([rows[2]])
    write_summary_csv(rows, str(tmp_path / "s.csv"))
    with open(tmp_path / "s.csv") as f:
        lines = list(csv.DictReader(f))
    assert [r["final_eval_acc"] for r in lines] == ["0.5", "0.75", ""]
    assert lines[2]["stop_reason"] == "diverged"
