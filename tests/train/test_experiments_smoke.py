"""Smoke tests: every experiment config takes a training step and writes its outputs; the train and
plot CLI commands work end to end on a tiny config."""

import json
import os

import pytest

from transformer_theory.cli import main as cli_main
from transformer_theory.cli.train import import_experiments

experiments = import_experiments()
from experiments import _common as C  # noqa: E402


@pytest.mark.parametrize("task", C.TASK_NAMES)
def test_experiments_fig2_each_task_takes_a_step(task, tmp_path):
    mod = experiments.get("fig2_depth")
    specs = [s for s in mod.runs("quick", seeds=(0,), tasks=(task,), steps=1) if len(s.heads) == 2]
    rows = C.sweep("fig2_depth", specs, str(tmp_path), progress=False)
    assert [r["steps"] for r in rows] == [1]
    with open(tmp_path / specs[0].name / "metrics.json") as f:
        m = json.load(f)
    assert [r["step"] for r in m["rows"]] == [0, 1] and m["meta"]["task"] == task
    assert os.path.exists(tmp_path / "aggregate.csv")
    assert 0.0 <= rows[0]["final_eval_acc"] <= 1.0


def test_experiments_fig4_7_and_registry(tmp_path):
    mod = experiments.get("fig4_7_heads")
    specs = mod.runs("quick", seeds=(0,), steps=1)
    assert {s.heads for s in specs if s.task == "contextual"} == set(mod.HEADS["contextual"])
    one = [s for s in specs if s.task == "memorization" and s.heads == (2, 2)]
    C.sweep("fig4_7_heads", one, str(tmp_path), progress=False)
    assert mod.plot(str(tmp_path))[0].endswith(".png") and os.path.exists(
        tmp_path / "fig4_7_heads.png"
    )
    with pytest.raises(ValueError, match="experiment"):
        experiments.get("fig99")
    with pytest.raises(ValueError, match="size"):
        C.task_setup("reasoning", "huge")


def test_experiments_cli_train_and_plot_fig3(tmp_path):
    out = str(tmp_path / "fig3")
    assert (
        cli_main(
            [
                "train",
                "--experiment",
                "fig3_attention_maps",
                "--seeds",
                "0",
                "--steps",
                "2",
                "--out",
                out,
                "--no-progress",
            ]
        )
        == 0
    )
    for name in (
        "fig3_attention_maps.png",
        "fig3_attention.json",
        "trained_params.npz",
        "experiment.json",
    ):
        assert os.path.exists(os.path.join(out, name)), name
    with open(os.path.join(out, "fig3_attention.json")) as f:
        info = json.load(f)
    # Theorem 3's construction answers both inputs and its layer 1 attends only on the copy blocks.
    for text, row in info.items():
        assert row["constructed_prediction"] == row["answer"], text
        assert row["constructed_layer1_share_on_copy"] == 1.0
    os.remove(os.path.join(out, "fig3_attention_maps.png"))
    assert cli_main(["plot", out]) == 0
    assert os.path.exists(os.path.join(out, "fig3_attention_maps.png"))


def test_experiments_cli_optimizer_override_reaches_the_run(tmp_path):
    """``--optimizer adam --lr 0.01`` changes the run's TrainConfig and its directory name (so it
    never
    resumes an SGD run's checkpoint); a non-positive learning rate is refused by name."""
    out = str(tmp_path / "fig2")
    argv = [
        "train",
        "--experiment",
        "fig2_depth",
        "--tasks",
        "memorization",
        "--seeds",
        "0",
        "--steps",
        "1",
        "--no-progress",
    ]
    assert cli_main(argv + ["--optimizer", "adam", "--lr", "0.01", "--out", out]) == 0
    with open(os.path.join(out, "memorization_heads1_seed0_adam_lr0.01", "metrics.json")) as f:
        meta = json.load(f)["meta"]
    assert (meta["optimizer"], meta["learning_rate"]) == ("adam", 0.01)
    params, data, tc, _ = C.build_run(
        C.RunSpec("memorization", (1,), 0, steps=1, optimizer="adam", learning_rate=0.01)
    )
    assert (tc.optimizer, tc.learning_rate, tc.steps) == ("adam", 0.01, 1)
    with pytest.raises(ValueError, match="learning_rate"):
        C.build_run(C.RunSpec("memorization", (1,), 0, learning_rate=-1.0))
