"""Issue 40: a run directory whose files were damaged (a corrupted checkpoint, a truncated
``metrics.json``) is refused in one line naming the directory, on resume, instead of an orbax
traceback or an uncaught ``RunDirectoryError``."""

import os

import pytest

from tests.train.test_runner import CONFIG, toy_run
from transformer_theory.cli import main
from transformer_theory.train import rundir


def _damage(path):
    for root, _, files in os.walk(path):
        for name in files:
            with open(os.path.join(root, name), "w") as f:
                f.write("garbage")


def test_a_corrupted_checkpoint_is_a_run_directory_error_naming_it(tmp_path):
    out = str(tmp_path / "run")
    toy_run(out, CONFIG, stop_after=7)  # checkpoint 5 on disk
    _damage(os.path.join(out, "checkpoints"))
    with pytest.raises(rundir.RunDirectoryError, match="checkpoint .* cannot be read") as err:
        toy_run(out, CONFIG)
    assert out in str(err.value) and "\n" not in str(err.value)


def test_a_truncated_metrics_file_is_a_run_directory_error(tmp_path):
    out = str(tmp_path / "run")
    toy_run(out, CONFIG, stop_after=7)
    path = os.path.join(out, rundir.METRICS_FILE)
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text[:40])
    with pytest.raises(rundir.RunDirectoryError, match="metrics"):
        toy_run(out, CONFIG)


def test_train_reports_a_damaged_run_directory_in_one_line(tmp_path, capsys, monkeypatch):
    from transformer_theory.cli import train

    def damaged(*args, **kwargs):
        raise rundir.RunDirectoryError(f"{tmp_path}/o/run: checkpoint 5 cannot be read (...)")

    monkeypatch.setattr(train, "run_experiment", damaged)
    argv = ["train", "--experiment", "fig2_paper", "--size", "smoke", "--seeds", "0"]
    code = main([*argv, "--tasks", "reasoning", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "--out:" in err.strip().splitlines()[-1] and "cannot be read" in err
