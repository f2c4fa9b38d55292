"""``train`` and ``plot`` refuse a user's mistake before any work: exit 2, one line naming the
argument or the file, no traceback, and nothing written (issue 9, items 8 and 9)."""

import json
import os
import shutil

import pytest

from tests.cli.test_bad_arguments import _run  # the shared bad-argument runner
from transformer_theory.cli import main


def _assert_one_line_exit_2(code, out, err, needle):
    assert code == 2, (code, out, err)
    assert "Traceback" not in err + out
    lines = err.strip().splitlines()
    assert needle in lines[-1], lines
    if not lines[-1].startswith("usage:") and "argument" not in lines[-1]:
        assert len(lines) == 1, lines  # UsageError: exactly one line


TRAIN = ["train", "--experiment", "fig2_depth", "--seeds", "0", "--tasks", "memorization"]


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--experiment", "nonsense"], "--experiment"),
        (["--tasks", "nonsense"], "--tasks"),
        (["--tasks", ","], "--tasks"),
        (["--steps", "0"], "--steps"),
        (["--steps", "-3"], "--steps"),
        (["--lr", "-1"], "--lr"),
        (["--lr", "nan"], "--lr"),
        (["--size", "huge"], "--size"),
        (["--seeds", "-1"], "--seeds"),
        (["--seeds", "0,0"], "--seeds"),
        (["--optimizer", "rmsprop"], "--optimizer"),
        (["--depths", "7"], "--depths"),  # fig2_depth's memorization has 1-4 layers
        (["--depths", "1,1"], "--depths"),
    ],
)
def test_train_bad_arguments_write_nothing(extra, needle, tmp_path, capsys):
    out = tmp_path / "out"
    base = ["train"] if extra[0] == "--experiment" else TRAIN
    argv = base + extra + ["--out", str(out), "--no-progress"]
    _assert_one_line_exit_2(*_run(argv, capsys), needle)
    assert not (out / "experiment.json").exists()
    assert not out.exists() or os.listdir(out) == []


def test_train_out_is_a_file_or_unwritable(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    for out, needle in ((str(f), "exists and is not a directory"), ("/proc/foo", "cannot write")):
        code, o, e = _run(TRAIN + ["--steps", "1", "--out", out, "--no-progress"], capsys)
        _assert_one_line_exit_2(code, o, e, "--out")
        assert needle in e
    assert f.read_text() == "x"


@pytest.mark.parametrize(
    "content, needle",
    [
        ("", "no such file"),
        ("x = 1\n", "defines no get_config()"),
        ("def get_config():\n    return {'name': 'x'}\n", "returned dict"),
        ("def get_config(:\n", "SyntaxError"),
        ("import no_such_module_here\n", "ModuleNotFoundError"),
        (
            "from transformer_theory.sweeps import ExperimentSettings\n"
            "def get_config():\n"
            "    return ExperimentSettings(name='x', heads={'sorting': [(1,)]})\n",
            "heads: unknown task 'sorting'",
        ),
    ],
)
def test_train_bad_config_file(content, needle, tmp_path, capsys):
    path = tmp_path / "cfg.py"
    if content:
        path.write_text(content)
    code, out, err = _run(["train", "--config", str(path), "--out", str(tmp_path / "o")], capsys)
    _assert_one_line_exit_2(code, out, err, "--config")
    assert needle in err
    assert not (tmp_path / "o").exists()


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny finished experiment directory, shared by the plot cases (each works on a copy)."""
    out = tmp_path_factory.mktemp("plot") / "run"
    argv = TRAIN + ["--steps", "2", "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    return out


@pytest.mark.parametrize(
    "corrupt, needle",
    [
        (lambda d: (d / "experiment.json").write_bytes(b"\x89PNG\x00\xff"), "not a JSON file"),
        (lambda d: (d / "experiment.json").write_text("[1, 2]"), "expected an object"),
        (lambda d: (d / "experiment.json").write_text("{"), "not a JSON file"),
        (
            lambda d: (d / "experiment.json").write_text(
                json.dumps({"experiment": "fig99", "source": "fig99", "overrides": {}})
            ),
            "unknown experiment 'fig99'",
        ),
        (
            lambda d: (d / "experiment.json").write_text(
                json.dumps({"experiment": "x", "source": "/nowhere/x.py", "overrides": {}})
            ),
            "no such file",
        ),
        (
            lambda d: (d / "memorization_heads1_seed0" / "metrics.json").write_text("{"),
            "metrics.json: not a JSON",
        ),
        (
            lambda d: (d / "memorization_heads1_seed0" / "metrics.json").write_text('{"rows": 3}'),
            "metrics.json: expected an object",
        ),
        (lambda d: (d / "experiment.json").unlink(), "has no experiment.json"),
    ],
)
def test_plot_bad_directory(corrupt, needle, trained, tmp_path, capsys):
    d = shutil.copytree(trained, tmp_path / "copy")
    corrupt(d)
    code, out, err = _run(["plot", str(d)], capsys)
    _assert_one_line_exit_2(code, out, err, "DIR:")
    assert needle in err


def test_plot_missing_directory(tmp_path, capsys):
    code, out, err = _run(["plot", str(tmp_path / "nowhere")], capsys)
    _assert_one_line_exit_2(code, out, err, "not a directory")


def test_large_initial_losses_are_explained_where_they_are_printed():
    from transformer_theory.sweeps.tables import initial_loss_note

    # 100 ln(64) = 416: a run starting at 1e11 is explained, one at 5.5 is not
    assert initial_loss_note([{"initial_eval_loss": 5.5, "chance": 1 / 64}]) is None
    out = initial_loss_note(
        [{"initial_eval_loss": 1.67e11, "chance": 1 / 64}, {"initial_eval_loss": 5.5, "chance": 1}]
    )
    assert "1.67e+11" in out and "initialization" in out and "1 run(s)" in out


# ------------------------------------------------------------------ issue 48: names, disk, files
ESCAPING_CONFIG = """
from transformer_theory import tasks
from transformer_theory.sweeps import QUICK, ExperimentSettings

def get_config():
    setup = QUICK["reasoning"].replace(task=tasks.InContextQA(3, 3, 2))
    return ExperimentSettings(
        name={name!r}, heads={{{task!r}: [(1,)]}}, size={size!r},
        setups={{{size!r}: {{{task!r}: setup}}}}, steps=2,
    )
"""


@pytest.mark.parametrize(
    "name, task, size, field",
    [
        ("x", "../../escaped", "tiny", "heads"),
        ("x", "/tmp/abs", "tiny", "heads"),
        ("x", ".hidden", "tiny", "heads"),
        ("x", "reasoning", "../up", "size"),
        ("../x", "reasoning", "tiny", "name"),
    ],
)
def test_a_config_name_that_would_leave_out_is_refused(name, task, size, field, tmp_path, capsys):
    path = tmp_path / "cfg.py"
    path.write_text(ESCAPING_CONFIG.format(name=name, task=task, size=size))
    out = tmp_path / "a" / "b" / "o"
    code, o, e = _run(["train", "--config", str(path), "--out", str(out), "--no-progress"], capsys)
    _assert_one_line_exit_2(code, o, e, "--config")
    assert f"{field}: expected letters" in e
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["cfg.py"]  # nothing written anywhere


SMOKE = ["train", "--experiment", "fig2_paper", "--size", "smoke", "--seeds", "0"]


def test_resume_with_checkpoints_replaced_by_a_file_is_one_line(tmp_path, capsys):
    argv = [*SMOKE, "--tasks", "reasoning", "--steps", "2", "--no-progress"]
    out = tmp_path / "o"
    assert main([*argv, "--out", str(out)]) == 0
    capsys.readouterr()
    run = next(p for p in out.iterdir() if (p / "checkpoints").is_dir())
    shutil.rmtree(run / "checkpoints")
    (run / "checkpoints").write_text("not a directory")
    code, o, e = _run([*argv, "--steps", "3", "--out", str(out)], capsys)
    _assert_one_line_exit_2(code, o, e, "--out")
    assert "checkpoints is not a directory" in e


@pytest.mark.parametrize("wrapped", [False, True], ids=["oserror", "tensorstore-text"])
def test_a_full_disk_during_training_is_one_line_and_exit_1(wrapped, tmp_path, capsys, monkeypatch):
    import errno

    import orbax.checkpoint as ocp

    def full(self, step, *args, **kwargs):
        if wrapped:  # what TensorStore raises through Orbax: no errno, the text only
            raise ValueError("Error writing local file: No space left on device [OS error: 28]")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "checkpoints")

    monkeypatch.setattr(ocp.CheckpointManager, "save", full)
    argv = [*SMOKE, "--tasks", "reasoning", "--steps", "2", "--no-progress"]
    code, o, e = _run([*argv, "--out", str(tmp_path / "o")], capsys)
    assert code == 1, (code, o, e)
    assert "Traceback" not in o + e
    assert "no space left" in e.strip().splitlines()[-1]
