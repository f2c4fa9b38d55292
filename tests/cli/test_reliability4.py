"""Issue 48 (reliability round 4): the probes of its list that are not the RASP compiler's, each
as it was found (a silent wrong answer, a traceback, a write outside ``--out`` or through a link,
Ctrl-C), each stopped before any long work.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from tests.cli.test_reliability import _fake_claims, _one_line_exit_2, _run
from transformer_theory import jsonio

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# --------------------------------------------------------------------------- claims


def test_select_reads_a_string_as_one_glob():
    from transformer_theory.claims import all_claims, select

    rows = all_claims()
    want = [r.id for r in rows if r.id.startswith("chen_zou2024.def")]
    assert want and len(want) < len(rows)
    assert [r.id for r in select(rows, ids="chen_zou2024.def*")] == want
    assert [r.id for r in select(rows, ids=["chen_zou2024.def*"])] == want
    assert select(rows, ids="c") == []  # one pattern "c", not the character glob of every id
    with pytest.raises(ValueError, match="^ids:"):
        select(rows, ids=[3])
    with pytest.raises(ValueError, match="^ids:"):  # TypeError: 'int' object is not iterable
        select(rows, ids=5)
    # a misspelt or empty paper selected nothing, silently (run_claims checked no claim)
    for paper in ("", "nosuch", 5):
        with pytest.raises(ValueError, match="^paper:.*chen_zou2024"):
            select(rows, paper=paper)
    assert select(rows, paper="sanford2023") and select(iter(rows), paper="sanford2023")


def _kept_record(tmp_path, monkeypatch, capsys, **damage):
    """A finished fake run of two claims whose first record is then damaged by ``damage``."""
    _fake_claims(monkeypatch, [None, None])
    assert _run(["claims", "--out", tmp_path], capsys)[0] == 0
    path = tmp_path / "claims.json"
    record = json.loads(path.read_text())
    record["records"][0].update(damage)
    path.write_text(json.dumps(record))


@pytest.mark.parametrize(
    "damage",
    [
        {"seconds": "abc"},
        {"seconds": None},
        {"seconds": float("-1")},
        {"status": 12345},
        {"status": "sure"},
        {"figure": None},
        {"details": []},
        {"expected": "maybe"},
    ],
    ids=lambda d: "-".join(f"{k}={v}" for k, v in d.items()),
)
def test_a_damaged_kept_record_is_checked_again_not_kept(damage, tmp_path, capsys, monkeypatch):
    _kept_record(tmp_path, monkeypatch, capsys, **damage)
    code, out, err = _run(["claims", "--resume", "--out", tmp_path], capsys)
    assert code == 0, (code, out, err)  # no invented regression, no traceback
    assert "Traceback" not in out + err
    assert "resuming: 1 claim(s)" in out
    records = json.loads((tmp_path / "claims.json").read_text())["records"]
    assert [r["id"] for r in records] == ["test.c0", "test.c1"]
    assert records[0]["status"] == "example" and isinstance(records[0]["seconds"], float)


def test_claims_previous_json_that_is_a_directory_is_refused_before_any_claim(
    tmp_path, capsys, monkeypatch
):
    ran = []
    _fake_claims(monkeypatch, [lambda: ran.append(1) or "fine"])
    (tmp_path / "claims.json").write_text('{"records": []}')
    (tmp_path / "claims.previous.json").mkdir()
    code, out, err = _run(["claims", "--out", tmp_path], capsys)
    _one_line_exit_2(code, out, err, "claims.previous.json")
    assert not ran and (tmp_path / "claims.json").read_text() == '{"records": []}'


@pytest.mark.parametrize("paper", ["", " ", "nosuch"])
def test_an_empty_or_unknown_paper_is_named_with_the_known_ones(paper, tmp_path, capsys):
    code, out, err = _run(["claims", "--paper", paper, "--out", tmp_path / "o"], capsys)
    last = _one_line_exit_2(code, out, err, "--paper")
    assert "no claims registered" not in last
    assert "chen_zou2024" in last and "sanford2023" in last
    assert not (tmp_path / "o").exists()


# --------------------------------------------------------------------------- --out ''


@pytest.mark.parametrize(
    "argv",
    [
        ["claims", "--id", "nosuch.*"],
        ["verify", "--quick"],
        ["experiment", "composition_bound"],
        ["train", "--experiment", "fig2_paper", "--size", "smoke", "--seeds", "0"],
        ["collapse"],
    ],
    ids=lambda a: a[0],
)
def test_an_empty_out_is_refused(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _fake_claims(monkeypatch, [None])
    if argv[0] == "claims":
        argv = ["claims"]
    code, out, err = _run([*argv, "--out", ""], capsys)
    _one_line_exit_2(code, out, err, "--out")
    assert os.listdir(tmp_path) == []  # neither the current directory nor the default


# --------------------------------------------------------------------------- before any work


def test_certify_on_json_nested_200000_deep_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    code, out, err = _run(["certify", path, "--out", tmp_path / "o"], capsys)
    _one_line_exit_2(code, out, err, "nested too deeply")
    with pytest.raises(ValueError, match="nested too deeply"):
        jsonio.read_json(str(path))


@pytest.mark.parametrize("seed", ["18446744073709551616", "9223372036854775808"])
def test_demo_seed_beyond_a_prng_key_is_one_line(seed, capsys):
    code, out, err = _run(["demo", "--seed", seed], capsys)
    _one_line_exit_2(code, out, err, "--seed")


@pytest.mark.parametrize(
    "argv",
    [
        # an OverflowError traceback once the seed reached jax.random.key (after work began)
        ["construct", "--seed"],
        ["efficient-attention", "--seed"],
        ["train", "--experiment", "fig2_depth", "--tasks", "memorization", "--seeds"],
        # the same seed, refused by the settings of the commands that would reach a key later
        ["verify", "--quick", "--seed"],
        ["languages", "--seed"],
        ["sanford", "--seed"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_seed_beyond_a_prng_key_is_one_line_before_work(argv, tmp_path, capsys):
    out = tmp_path / "o"
    code, o, err = _run([*argv, str(2**64), "--out", out], capsys)
    _one_line_exit_2(code, o, err, argv[-1])
    assert "2**63 - 1" in err and not out.exists()


def test_verify_quick_refuses_a_random_set_count_it_would_ignore(tmp_path, capsys):
    code, out, err = _run(
        ["verify", "--quick", "--random-sets", "1000000000", "--out", tmp_path / "o"], capsys
    )
    _one_line_exit_2(code, out, err, "--random-sets")
    code, out, err = _run(
        ["verify", "--quick", "--datasets", "icqa", "--out", tmp_path / "o"], capsys
    )
    _one_line_exit_2(code, out, err, "--datasets")
    assert not (tmp_path / "o").exists()


# --------------------------------------------------------------------------- atomic, link-safe


def _writers(path):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([0, 1])
    return {
        "text": lambda: jsonio.write_text(path, "new"),
        "json": lambda: jsonio.write_json(path, {"a": 1}),
        "csv": lambda: jsonio.write_csv(path, [{"a": 1}]),
        "bytes": lambda: jsonio.write_bytes(path, b"new"),
        "npz": lambda: jsonio.write_npz(path, {"a": np.arange(3)}),
        "figure": lambda: jsonio.write_figure(fig, path),
    }


WRITERS = ["text", "json", "csv", "bytes", "npz", "figure"]


@pytest.mark.parametrize("kind", WRITERS)
def test_a_planted_link_is_replaced_never_written_through(kind, tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    target = out / ("f.png" if kind == "figure" else f"f.{kind}")
    target.symlink_to(victim)
    _writers(str(target))[kind]()
    assert victim.read_text() == "precious"
    assert not target.is_symlink() and target.stat().st_size > 0


@pytest.mark.parametrize("kind", WRITERS)
def test_a_full_disk_leaves_the_old_file_whole_and_no_temporary(kind, tmp_path, monkeypatch):
    target = tmp_path / ("f.png" if kind == "figure" else f"f.{kind}")
    target.write_bytes(b"old whole file")
    real = os.fsync

    def full(fd):  # the data does not fit: what a full disk says at the latest
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as err:
        _writers(str(target))[kind]()
    assert err.value.errno == errno.ENOSPC
    monkeypatch.setattr(os, "fsync", real)
    assert target.read_bytes() == b"old whole file"
    assert os.listdir(tmp_path) == [target.name]


def test_an_npz_written_atomically_reads_back(tmp_path):
    from transformer_theory import saveload

    path = saveload.save_dataset(tmp_path / "d.npz", [[0, 1], [1, 0]], [0, 1], 2)
    data = saveload.load_dataset(path)
    assert data.tokens_BxN.tolist() == [[0, 1], [1, 0]] and data.labels_B.tolist() == [0, 1]
    assert sorted(os.listdir(tmp_path)) == ["d.npz"]


# --------------------------------------------------------------------------- heads on trained runs


@pytest.fixture(scope="module")
def translation_run(tmp_path_factory):
    from tests.papers.conti2024.test_heads import untrained_translation_run

    return untrained_translation_run(str(tmp_path_factory.mktemp("encdec")))


def test_heads_on_a_corrupted_checkpoint_prints_its_one_line_and_nothing_after(
    translation_run, tmp_path
):
    # Orbax's restore raised on the first unreadable array and closed its event loop while
    # TensorStore still completed the other reads: each then printed "RuntimeError: Event loop
    # is closed" with a traceback, after the one-line refusal (30 of them for this model).
    import shutil

    from tests.papers.conti2024.test_heads import corrupt

    run = str(tmp_path / "run")
    shutil.copytree(translation_run, run)
    corrupt(run, "data_deleted")
    proc = subprocess.run(
        [sys.executable, "-m", "transformer_theory", "heads", run, "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "Event loop" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and run in lines[0] and "cannot be read" in lines[0], proc.stderr


def test_a_failed_restore_drops_only_the_closed_loop_callbacks(monkeypatch):
    from transformer_theory.train import checkpoint

    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored afterwards
    checkpoint._drop_closed_loop_callbacks()
    checkpoint._drop_closed_loop_callbacks()  # once: not a chain of wrappers
    hook = sys.unraisablehook
    assert hook is not seen.append and getattr(hook, "drops_closed_loop_callbacks", False)

    class Unraisable:
        def __init__(self, err):
            self.exc_value = err

    hook(Unraisable(RuntimeError("Event loop is closed")))
    other = Unraisable(RuntimeError("something else"))
    hook(other)
    hook(Unraisable(ValueError("Event loop is closed")))
    assert [u.exc_value.args[0] for u in seen] == ["something else", "Event loop is closed"]


def test_a_failed_restore_drops_the_closed_loop_errors_printed_through_excepthook(monkeypatch):
    """A TensorStore thread may print the same error with PyErr_Print (sys.excepthook)."""
    from transformer_theory.train import checkpoint

    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: None)
    monkeypatch.setattr(sys, "excepthook", lambda kind, err, tb: seen.append(err))
    checkpoint._drop_closed_loop_callbacks()
    checkpoint._drop_closed_loop_callbacks()
    hook = sys.excepthook
    assert getattr(hook, "drops_closed_loop_callbacks", False)
    hook(RuntimeError, RuntimeError("Event loop is closed"), None)
    hook(RuntimeError, RuntimeError("something else"), None)
    hook(KeyError, KeyError("Event loop is closed"), None)
    assert [type(e).__name__ for e in seen] == ["RuntimeError", "KeyError"]


def test_heads_on_an_unfinished_run_says_so(translation_run, tmp_path, capsys):
    # A run cut short (Ctrl-C at step 1 of 40) was classified as if trained, without a word.
    import shutil

    from transformer_theory.train import runner

    run = str(tmp_path / "run")
    shutil.copytree(translation_run, run)
    rows = [dict(step=1, train_loss=1.0, train_acc=0.5, eval_loss=1.0, eval_acc=0.5, seconds=1)]
    runner.write_metrics(run, rows, {}, target_steps=40, finished=False)  # as at a checkpoint
    code, out, err = _run(["heads", run, "--out", tmp_path / "o", "--examples", "2"], capsys)
    assert code == 0, err
    assert "unfinished" in err and "1 of 40 steps" in err and run in err, err
    runner.write_metrics(run, rows, {}, target_steps=1, finished=True)  # as a finished run
    code, out, err = _run(["heads", run, "--out", tmp_path / "o2", "--examples", "2"], capsys)
    assert code == 0 and "unfinished" not in err, err


def test_heads_with_more_examples_than_held_out_inputs_says_how_many_it_read(
    translation_run, tmp_path, capsys
):
    # --examples 2**70 classified the heads on the held-out inputs there were, without a word.
    code, out, err = _run(
        ["heads", translation_run, "--out", tmp_path / "o", "--examples", str(2**70)], capsys
    )
    assert code == 0, err
    notes = [line for line in err.splitlines() if "fewer than --examples" in line]
    assert len(notes) == 1 and f"--examples {2**70}" in notes[0], err
    read = int(notes[0].split(" holds ")[1].split()[0])
    assert 0 < read < 2**70
    code, out, err = _run(
        ["heads", translation_run, "--out", tmp_path / "o2", "--examples", str(read)], capsys
    )
    assert code == 0 and "fewer than --examples" not in err, err


# --------------------------------------------------------------------------- Ctrl-C


def _interrupted(argv, out, *, ignore_sigint=False, delay=3.0):
    """Start the command in a fresh interpreter (SIGINT ignored, as in a background job, if
    ``ignore_sigint``), send SIGINT ``delay`` seconds after it made ``out`` (its work has
    begun), return (exit code, stderr)."""
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONUNBUFFERED="1")
    handler = "SIG_IGN" if ignore_sigint else "default_int_handler"  # not the suite's own
    start = (
        f"import runpy, signal, sys; signal.signal(signal.SIGINT, signal.{handler}); "
        f"sys.argv = ['transformer-theory', *{[*argv, '--out', str(out)]!r}]; "
        "runpy.run_module('transformer_theory', run_name='__main__')"
    )
    proc = subprocess.Popen(  # no preexec_fn: a fork of this multithreaded JAX process
        [sys.executable, "-c", start],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 240
    while not os.path.isdir(out) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=240)
    return proc.returncode, err


@pytest.mark.parametrize(
    "argv, ignore_sigint",
    [(["collapse", "--no-progress"], True)],
    ids=["collapse-started-with-sigint-ignored"],
)
def test_ctrl_c_mid_run_is_exit_130_and_one_line(argv, ignore_sigint, tmp_path):
    code, err = _interrupted(argv, tmp_path / "o", ignore_sigint=ignore_sigint)
    assert code == 130, (code, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0], err


def test_ctrl_c_while_the_commands_load_is_exit_130_and_one_line(tmp_path):
    script = textwrap.dedent(
        """
        import signal, sys
        from transformer_theory.cli import _main
        real = _main._load_commands
        def load(*args, **kwargs):
            signal.raise_signal(signal.SIGINT)  # Ctrl-C while the command modules import
            return real(*args, **kwargs)
        _main._load_commands = load
        sys.argv = ["transformer-theory", "demo"]
        sys.exit(_main.main())
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=300,
    )
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize(
    "module",
    [
        "barbero2024.experiments.collapse_tasks",
        "formal_languages.experiments.dyck_k",
        "peng2024.experiments.composition_cot",
        "peng2024.experiments.composition_depth",
        "peng2024.experiments.composition_one_layer",
        "peng2024.experiments.composition_one_pass",
        "sanford2023.experiments.match_width",
        "sanford2023.experiments.qsa_bits_attention",
        "sanford2023.experiments.qsa_separation",
        "svete_cotterell2024.experiments.ngram_learnability",
    ],
)
@pytest.mark.parametrize("seed", [2**64, -1])
def test_an_experiments_seed_is_refused_by_its_settings(module, seed):
    # `--set seed=18446744073709551616` ended in jax.random.key's OverflowError and
    # `--set seed=-1` in NumPy's ValueError, each a traceback after the work had begun
    import dataclasses
    import importlib

    experiment = importlib.import_module(f"transformer_theory.papers.{module}")
    config = experiment.get_config("smoke")
    with pytest.raises(ValueError, match="^seed:"):
        dataclasses.replace(config, seed=seed)
