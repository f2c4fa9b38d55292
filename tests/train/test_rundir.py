"""A run directory belongs to one run: a resume with other settings is refused (naming them), a
finished run continues to a larger step count bit for bit, and never goes back (issue 9, item 2)."""

import json
import os

import jax
import numpy as np
import pytest

from transformer_theory import tasks
from transformer_theory.cli import main as cli_main
from transformer_theory.train import (
    DataSettings,
    RunDirectoryError,
    TaskData,
    TrainSettings,
    paper_init,
    train,
)


def _setup(k=2, seed=0):
    task = tasks.InContextQA(3, 3, k)
    params = paper_init(jax.random.key(seed), task.model_config(heads=(1, 1)), task, w_v="identity")
    data = TaskData(task, jax.random.key(2), DataSettings(holdout=0.25))
    return params, data


TC = TrainSettings(
    steps=12, batch_size=8, learning_rate=0.01, optimizer="adam", log_every=4, checkpoint_every=4
)


def _strip(rows):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def _same_params(a, b):
    return all(
        np.array_equal(np.asarray(x), np.asarray(y))
        for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b))
    )


def test_rundir_refuses_other_settings_and_names_them(tmp_path):
    params, data = _setup()
    run = str(tmp_path / "run")
    train(params, data, TC, run, meta={"size": "quick"}, progress=False)
    before = open(os.path.join(run, "metrics.json")).read()
    cases = [
        (dict(config=TC.replace(learning_rate=0.02)), "train.learning_rate"),
        (dict(config=TC.replace(optimizer="sgd")), "train.optimizer"),
        (dict(config=TC.replace(batch_size=4)), "train.batch_size"),
        (dict(config=TC.replace(seed=1)), "train.seed"),
        (dict(meta={"size": "paper"}), "size"),
        (dict(params=_setup(seed=1)[0]), "initial_params_sha256"),  # same settings, other init
        (dict(data=TaskData(data.task, jax.random.key(3), data.config)), "heldout_sha256"),
        (
            dict(data=TaskData(data.task, jax.random.key(2), DataSettings(holdout=0.5))),
            "data.holdout",
        ),
    ]
    for change, setting in cases:
        args = dict(params=params, data=data, config=TC, meta={"size": "quick"}) | change
        with pytest.raises(RunDirectoryError, match=setting) as err:
            train(
                args["params"], args["data"], args["config"], run, meta=args["meta"], progress=False
            )
        assert err.value.setting == setting
    # Another task: its model does not fit the first run's at all; still refused by name.
    other_params, other_data = _setup(k=3)
    with pytest.raises(RunDirectoryError, match="task_instance"):
        train(other_params, other_data, TC, run, meta={"size": "quick"}, progress=False)
    assert open(os.path.join(run, "metrics.json")).read() == before  # nothing relabelled


def test_rundir_continues_to_n_bit_for_bit_and_never_goes_back(tmp_path):
    params, data = _setup()
    fresh = train(params, data, TC.replace(steps=20), str(tmp_path / "fresh"), progress=False)
    run = str(tmp_path / "run")
    short = train(params, data, TC, run, progress=False)
    assert short.steps_done == 12
    longer = train(params, data, TC.replace(steps=20), run, progress=False)
    assert longer.steps_done == 20
    assert _same_params(fresh.params, longer.params)
    assert _strip(fresh.metrics) == _strip(longer.metrics)
    with open(os.path.join(run, "metrics.json")) as f:
        assert json.load(f)["meta"]["train_config"]["steps"] == 20
    # Fewer steps than the directory holds: refused, and the directory is untouched.
    with pytest.raises(RunDirectoryError, match="holds 20 steps, more than the 8") as err:
        train(params, data, TC.replace(steps=8), run, progress=False)
    assert err.value.setting == "steps"
    # Logging and checkpoint intervals are not settings: the same run, re-entered, is unchanged.
    again = train(
        params, data, TC.replace(steps=20, log_every=5, checkpoint_every=10), run, progress=False
    )
    assert _same_params(again.params, fresh.params)


def test_rundir_legacy_and_unreadable_records_are_refused(tmp_path):
    params, data = _setup()
    run = tmp_path / "run"
    train(params, data, TC, str(run), progress=False)
    (run / "run.json").write_bytes(b"\x00\xff binary")
    with pytest.raises(RunDirectoryError, match="run.json: not a JSON"):
        train(params, data, TC, str(run), progress=False)
    (run / "run.json").unlink()  # a directory written before runs recorded their settings
    with pytest.raises(RunDirectoryError, match="no run.json"):
        train(params, data, TC, str(run), progress=False)


def _cli(argv):
    return cli_main(argv + ["--no-progress"])


def test_rundir_cli_refuses_paper_size_and_fewer_steps_into_a_quick_run(tmp_path, capsys):
    """The two reproductions of issue 9, item 2, at smoke size: a quick run, then the same
    command with ``--size paper``, then with fewer steps. Both exit 2 naming the setting and
    leave every file as it was; a larger step count continues."""
    out = str(tmp_path / "T")
    base = ["train", "--experiment", "fig2_depth", "--seeds", "0", "--tasks", "memorization"]
    assert _cli(base + ["--steps", "4", "--out", out]) == 0
    run = os.path.join(out, "memorization_heads1_seed0")
    files = {
        n: open(os.path.join(out, n), "rb").read() for n in ("experiment.json", "summary.json")
    }
    metrics = open(os.path.join(run, "metrics.json"), "rb").read()
    capsys.readouterr()

    assert _cli(base + ["--size", "paper", "--steps", "1", "--out", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("transformer-theory train: error: --out:")
    assert "size: 'quick' there, 'paper' requested" in err[0]

    assert _cli(base + ["--steps", "2", "--out", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--steps:" in err[0] and "holds 4 steps, more than the 2" in err[0]

    for name, content in files.items():
        assert open(os.path.join(out, name), "rb").read() == content, name
    assert open(os.path.join(run, "metrics.json"), "rb").read() == metrics

    assert _cli(base + ["--steps", "6", "--out", out]) == 0
    with open(os.path.join(run, "metrics.json")) as f:
        assert [r["step"] for r in json.load(f)["rows"]] == [0, 4, 6]


def test_rundir_cli_refuses_another_setting_into_an_experiment_directory(tmp_path, capsys):
    """``--lr 0.1`` then ``--lr 0.5`` into one output directory: the runs have other names, so no
    run directory objected, and experiment.json / summary.json then listed only the second run
    (the first one's record was lost). Refused now, naming the flag; nothing is rewritten."""
    out = str(tmp_path / "E")
    base = ["train", "--experiment", "fig2_depth", "--seeds", "0", "--tasks", "memorization"]
    base += ["--depths", "1", "--steps", "1", "--out", out]
    assert _cli(base + ["--lr", "0.1"]) == 0
    names = ("experiment.json", "summary.json")
    files = {n: open(os.path.join(out, n), "rb").read() for n in names}
    capsys.readouterr()
    for extra, flag in (
        (["--lr", "0.5"], "--lr"),
        (["--lr", "0.1", "--optimizer", "adam"], "--optimizer"),
        (["--lr", "0.1", "--seeds", "1"], "--seeds"),
    ):
        assert _cli(base + extra) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"transformer-theory train: error: {flag}:"), err
        assert "use another output directory" in err[0]
    for name, content in files.items():
        assert open(os.path.join(out, name), "rb").read() == content, name
    assert sorted(os.listdir(out)).count("memorization_heads1_seed0_lr0.5") == 0
