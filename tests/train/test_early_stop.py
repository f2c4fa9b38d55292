"""Early stopping: the two rules on hand-written metric rows, a stopped run that stays stopped on
resume, and the fig2_paper smoke sweep with its summary CSV and README table."""

import csv
import json
import os

import pytest

from transformer_theory.papers.chen_zou2024.experiments import named_config
from transformer_theory.sweeps import run_experiment, tables
from transformer_theory.sweeps.runs import execute
from transformer_theory.train import EarlyStop


def _rows(accs, every=10):
    return [dict(step=i * every, eval_acc=a) for i, a in enumerate(accs)]


def test_early_stop_accuracy_needs_patience_consecutive_evaluations():
    stop = EarlyStop(threshold=0.99, patience=3)
    assert stop.reason(_rows([0.0, 1.0, 1.0])) is None
    assert stop.reason(_rows([0.0, 1.0, 0.98, 1.0, 1.0])) is None
    assert stop.reason(_rows([0.0, 1.0, 0.99, 1.0])) == "accuracy"
    assert stop.reason(_rows([1.0, 1.0, 1.0])) is None  # step 0 is the initial model, not counted


def test_early_stop_plateau_counts_steps_since_the_first_best():
    stop = EarlyStop(patience=3, plateau_steps=30)
    assert stop.reason(_rows([0.1, 0.5, 0.5, 0.5])) is None  # best at step 10, now step 30
    assert stop.reason(_rows([0.1, 0.5, 0.5, 0.5, 0.4])) == "plateau"
    assert stop.reason(_rows([0.1, 0.5, 0.5, 0.5, 0.6])) is None
    assert EarlyStop(patience=3).reason(_rows([0.1] * 50)) is None  # plateau rule off


@pytest.mark.parametrize(
    "kwargs", [dict(threshold=0.0), dict(threshold=1.5), dict(patience=0), dict(plateau_steps=0)]
)
def test_early_stop_bad_arguments_raise(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        EarlyStop(**kwargs)


def test_fig2_paper_smoke_stops_resumes_and_tabulates(tmp_path):
    config = named_config("fig2_paper").replace(size="smoke", seeds=(0,))
    assert len(named_config("fig2_paper").runs()) == 48
    config = config.replace(heads={"memorization": ((1,),)}, tasks=("memorization",))
    rows, _ = run_experiment(config, str(tmp_path), progress=False)
    (row,) = rows
    # The smoke setup stops on a 10-step plateau; memorization does not move in 10 Adam steps.
    assert row["stop_reason"] == "plateau" and row["steps"] == 10 < 20
    assert (row["optimizer"], row["learning_rate"]) == ("adam", 1e-3)
    # Running it again reads the stopped run back: no step is trained.
    again = execute(config.runs()[0], str(tmp_path), progress=False)
    assert again["steps"] == 10 and again["stop_reason"] == "plateau"
    assert again["final_eval_acc"] == row["final_eval_acc"]
    # ... and reports the seconds its training took, not the read's.
    with open(tmp_path / again["run"] / "metrics.json") as f:
        trained_s = json.load(f)["rows"][-1]["seconds"]
    assert again["seconds"] == round(trained_s, 2) > 0
    path = tmp_path / "summary.csv"
    tables.write_summary_csv(tables.read_summary(str(tmp_path)), str(path))
    with open(path) as f:
        (line,) = list(csv.DictReader(f))
    assert line["task"] == "memorization" and line["stop_reason"] == "plateau"
    table = tables.markdown_table(rows).splitlines()
    assert len(table) == 3 and "| memorization | 1 | adam 0.001 |" in table[2]
    with pytest.raises(ValueError, match="out"):
        tables.read_summary(str(tmp_path / "missing"))


def test_read_summaries_joins_split_sweeps_in_task_order(tmp_path):
    def write(out, rows):
        os.makedirs(out)
        with open(os.path.join(out, "summary.json"), "w") as f:
            json.dump(rows, f)

    def row(task, depth, seed):
        return dict(run=f"{task}_{depth}_{seed}", task=task, depth=depth, seed=seed)

    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    write(a, [row("contextual", 1, 1), row("contextual", 1, 0)])
    write(b, [row("reasoning", 2, 0), row("memorization", 3, 0), row("reasoning", 1, 0)])
    got = [(r["task"], r["depth"], r["seed"]) for r in tables.read_summaries([a, b])]
    assert got == [
        ("memorization", 3, 0),
        ("reasoning", 1, 0),
        ("reasoning", 2, 0),
        ("contextual", 1, 0),
        ("contextual", 1, 1),
    ]
    with pytest.raises(ValueError, match="outs: run contextual_1_1"):
        tables.read_summaries([a, b, a])
