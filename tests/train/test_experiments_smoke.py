"""Smoke tests: every shipped experiment config takes a training step and writes its outputs; the
train and plot commands work end to end; a user's config file runs by path."""

import dataclasses
import json
import os
import sys
import textwrap

import pytest

from transformer_theory import sweeps, tasks
from transformer_theory.cli import main as cli_main
from transformer_theory.papers.chen_zou2024.experiments import NAMED, named_config
from transformer_theory.sweeps import (
    QUICK,
    SETUPS,
    TASK_NAMES,
    ExperimentError,
    RunSpec,
    build_run,
    run_experiment,
)


@pytest.mark.parametrize("task", TASK_NAMES)
def test_experiments_fig2_each_task_takes_a_step(task, tmp_path):
    config = named_config("fig2_depth").replace(tasks=(task,), seeds=(0,), steps=1)
    config = config.replace(heads={task: ((1, 1),)})
    rows, figures = run_experiment(config, str(tmp_path), progress=False)
    assert [r["steps"] for r in rows] == [1]
    with open(tmp_path / config.runs()[0].name / "metrics.json") as f:
        m = json.load(f)
    assert [r["step"] for r in m["rows"]] == [0, 1] and m["meta"]["task"] == task
    assert os.path.exists(tmp_path / "aggregate.csv")
    assert figures == [str(tmp_path / "fig2_depth.png")] and os.path.exists(figures[0])
    assert 0.0 <= rows[0]["final_eval_acc"] <= 1.0


def test_experiments_shipped_configs_and_their_runs():
    for name in NAMED:
        config = named_config(name)
        assert config.name == name and config.runs()
    fig2 = named_config("fig2_depth")
    assert len(fig2.runs()) == 4 * 4 * 3
    assert [s.name for s in fig2.runs()[:2]] == [
        "memorization_heads1_seed0",
        "memorization_heads1_seed1",
    ]
    heads = named_config("fig4_7_heads")
    assert {s.heads for s in heads.runs() if s.task == "contextual"} == {
        (1, 1, 1),
        (2, 2, 2),
        (1, 1, 2),
        (2, 2, 1),
        (1, 1, 1, 1),
    }
    fig3 = named_config("fig3_attention_maps")
    assert fig3.replace(size="paper").setup("reasoning").task == tasks.InContextQA(100, 100, 2)
    assert fig3.setup("reasoning") is QUICK["reasoning"]
    with pytest.raises(ExperimentError, match="unknown experiment 'fig99'"):
        named_config("fig99")


def test_experiments_size_tables_give_each_run_its_setup():
    """One table per size; a run's model, data and optimizer come from its table's entry."""
    assert set(SETUPS) == {"quick", "paper"} and all(
        set(t) == set(TASK_NAMES) for t in SETUPS.values()
    )
    params, data, tc, meta = build_run(RunSpec("contextual", (1, 1, 1), 3, "quick"))
    setup = QUICK["contextual"]
    task = setup.task
    assert params.config.width == task.vocab_size + task.seq_len + 4  # Theorem 6: l + 2 spare
    assert (tc.steps, tc.batch_size, tc.seed, tc.optimizer) == (3000, 64, 3, "sgd")
    assert data.task == task and meta["chance"] == 1 / task.num_classes
    paper = RunSpec("reasoning", (1,), 0, "paper", steps=7, optimizer="adam", learning_rate=1e-3)
    tc = paper.train_config
    assert (tc.steps, tc.log_every, tc.checkpoint_every, tc.batch_size) == (7, 7, 7, 256)
    assert (tc.optimizer, tc.learning_rate) == ("adam", 1e-3)
    assert paper.name == "reasoning_heads1_seed0_adam_lr0.001"


@pytest.mark.parametrize(
    "change, field",
    [
        (dict(size="huge"), "size"),
        (dict(tasks=("nonsense",)), "tasks"),
        (dict(seeds=()), "seeds"),
        (dict(seeds=(0, 0)), "seeds"),
        (dict(seeds=(-1,)), "seeds"),
        (dict(steps=0), "steps"),
        (dict(learning_rate=-1.0), "learning_rate"),
        (dict(learning_rate=float("nan")), "learning_rate"),
        (dict(optimizer="rmsprop"), "optimizer"),
        (dict(init="zeros"), "init"),
        (dict(depths=(9,)), "depths"),
        (dict(depths=()), "depths"),
        (dict(analysis="bars"), "analysis"),
        (dict(heads={"reasoning": [()]}), "heads"),
        (dict(heads={"reasoning": [(0, 1)]}), "heads"),
        (dict(heads={"sorting": [(1,)]}), "heads"),
        (dict(heads={}), "heads"),
        (dict(name="../x"), "name"),
    ],
)
def test_experiments_config_errors_name_the_field(change, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        named_config("fig2_depth").replace(**change)


def test_experiments_depths_select_runs_and_are_recorded(tmp_path):
    """``--depths 2 4`` keeps only the 2- and 4-layer heads configurations; experiment.json records
    it, so ``plot`` rebuilds the same run list."""
    config = named_config("fig2_paper").replace(tasks=("reasoning",), depths=(2, 4), seeds=(0,))
    assert [s.heads for s in config.runs()] == [(1, 1), (1, 1, 1, 1)]
    out = str(tmp_path / "d")
    argv = ["train", "--experiment", "fig2_paper", "--size", "smoke", "--tasks", "memorization"]
    argv += ["--depths", "1", "--seeds", "0", "--steps", "2", "--no-progress", "--out", out]
    assert cli_main(argv) == 0
    with open(os.path.join(out, "experiment.json")) as f:
        record = json.load(f)
    assert record["overrides"]["depths"] == [1]
    assert record["runs"] == ["memorization_heads1_seed0"]


def test_experiments_attention_maps_needs_its_run():
    with pytest.raises(ValueError, match="analysis"):
        named_config("fig3_attention_maps").replace(heads={"reasoning": [(1,)]})


def test_experiments_cli_train_and_plot_fig3(tmp_path):
    out = str(tmp_path / "fig3")
    argv = ["train", "--experiment", "fig3_attention_maps", "--seeds", "0", "--steps", "2"]
    assert cli_main(argv + ["--out", out, "--no-progress"]) == 0
    for name in ("fig3_attention_maps.png", "fig3_attention.json", "experiment.json"):
        assert os.path.exists(os.path.join(out, name)), name
    with open(os.path.join(out, "fig3_attention.json")) as f:
        info = json.load(f)
    # Theorem 3's construction answers both inputs and its layer 1 attends only on the copy blocks.
    for text, row in info.items():
        assert row["constructed_prediction"] == row["answer"], text
        assert row["constructed_layer1_share_on_copy"] == 1.0
    os.remove(os.path.join(out, "fig3_attention_maps.png"))
    os.remove(os.path.join(out, "fig3_attention.json"))
    assert cli_main(["plot", out]) == 0  # redrawn from the run's checkpoint
    with open(os.path.join(out, "fig3_attention.json")) as f:
        assert json.load(f) == info


def test_experiments_cli_optimizer_override_reaches_the_run(tmp_path):
    """``--optimizer adam --lr 0.01`` changes the run's TrainSettings and its directory name (so it
    never resumes an SGD run's checkpoint)."""
    out = str(tmp_path / "fig2")
    argv = ["train", "--experiment", "fig2_depth", "--tasks", "memorization", "--seeds", "0"]
    argv += ["--steps", "1", "--no-progress", "--optimizer", "adam", "--lr", "0.01", "--out", out]
    assert cli_main(argv) == 0
    with open(os.path.join(out, "memorization_heads1_seed0_adam_lr0.01", "metrics.json")) as f:
        tc = json.load(f)["meta"]["train_config"]
    assert (tc["optimizer"], tc["learning_rate"], tc["steps"]) == ("adam", 0.01, 1)
    with open(os.path.join(out, "experiment.json")) as f:
        record = json.load(f)
    assert record["source"] == "transformer_theory.papers.chen_zou2024.experiments.fig2_depth"
    assert record["overrides"]["optimizer"] == "adam" and record["overrides"]["seeds"] == [0]


def test_experiments_user_config_file_and_seed_lists(tmp_path, monkeypatch, capsys):
    """``--config FILE`` (a module with get_config(), run by path, nothing added to sys.path), with
    its own size table; ``--seeds 0,1`` and ``--seeds 0 1`` agree."""
    (tmp_path / "sweep.py").write_text(
        textwrap.dedent(
            """
            from transformer_theory import tasks
            from transformer_theory.sweeps import QUICK, ExperimentSettings

            def get_config():
                tiny = {"reasoning": QUICK["reasoning"].replace(task=tasks.InContextQA(3, 3, 2))}
                return ExperimentSettings(
                    name="tiny_sweep",
                    heads={"reasoning": [(1,), (2,)]},
                    size="tiny",
                    setups={"tiny": tiny},
                    steps=2,
                )
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    path_before = list(sys.path)
    assert cli_main(["train", "--config", "sweep.py", "--seeds", "0,1", "--no-progress"]) == 0
    assert sys.path == path_before
    out = tmp_path / "results" / "tiny_sweep_tiny"
    with open(out / "summary.json") as f:
        assert [r["run"] for r in json.load(f)] == [
            "reasoning_heads1_seed0",
            "reasoning_heads1_seed1",
            "reasoning_heads2_seed0",
            "reasoning_heads2_seed1",
        ]
    with open(out / "reasoning_heads2_seed1" / "run.json") as f:
        assert json.load(f)["settings"]["task_instance"] == "InContextQA(n_q=3, n_a=3, k=2)"
    capsys.readouterr()
    # the same runs again (space-separated seeds): nothing to train, the same summary
    assert cli_main(["train", "--config", "sweep.py", "--seeds", "0", "1", "--no-progress"]) == 0
    assert "4 run(s) done" in capsys.readouterr().out
    assert cli_main(["plot", str(out)]) == 0
    assert (out / "tiny_sweep.png").exists()
    assert sweeps.read_record(str(out))[0].size == "tiny"


def test_the_sweep_keeps_the_parameters_its_last_checkpoint_holds(tmp_path):
    # run_experiment draws Figure 3 from what the sweep kept; plot redraws from the checkpoint
    import jax
    import numpy as np

    from transformer_theory.sweeps.runs import sweep, trained_params

    config = named_config("fig3_attention_maps").replace(seeds=(0,), steps=2)
    spec = config.drawn_run
    rows, kept = sweep(config.run_specs, str(tmp_path), progress=False, keep=spec)
    assert [r["steps"] for r in rows] == [2] * len(rows)
    restored = trained_params(spec, str(tmp_path))
    for a, b in zip(jax.tree.leaves(kept), jax.tree.leaves(restored), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))  # bit for bit: a copy
    assert sweep(config.run_specs, str(tmp_path), progress=False)[1] is None
    other = dataclasses.replace(spec, seed=99)
    with pytest.raises(ValueError, match="keep"):
        sweep(config.run_specs, str(tmp_path), progress=False, keep=other)
