"""Issue 40 (reliability round 3): environment budgets, a directory in use, a full disk, the
mode of written files, time estimates before a run, Ctrl-C and resume of ``claims``.

Each test runs the command in-process (``cli.main``) and stops it before any long work.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import stat

import pytest

from transformer_theory import budget, jsonio
from transformer_theory.cli import _common, main


def _run(argv, capsys):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as err:
        code = err.code
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_exit_2(code, out, err, needle):
    assert code == 2, (code, out, err)
    assert "Traceback" not in err + out
    last = err.strip().splitlines()[-1]
    assert needle in last, last
    return last


# --------------------------------------------------------------------------- environment budgets


@pytest.mark.parametrize(
    "var, value",
    [
        ("TT_MEMORY_BUDGET", "abc"),
        ("TT_MEMORY_BUDGET", "nan"),
        ("TT_MEMORY_BUDGET", "0"),
        ("TT_MEMORY_BUDGET", "-4G"),
        ("TT_TIME_BUDGET", "nan"),
        ("TT_TIME_BUDGET", "0"),
        ("TT_TIME_BUDGET", "-1"),
        ("TT_TIME_BUDGET", "abc"),
        ("TT_TIME_BUDGET", "inf"),
    ],
)
@pytest.mark.parametrize("command", ["ngram", "languages", "efficient-attention", "collapse"])
def test_bad_environment_budget_is_a_usage_error_naming_the_variable(
    command, var, value, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv(var, value)
    last = _one_line_exit_2(*_run([command, "--out", tmp_path / "o"], capsys), var)
    assert "--width" not in last  # collapse blamed --width for a bad TT_MEMORY_BUDGET
    assert not (tmp_path / "o").exists()  # refused before the output directory


def test_budget_functions_raise_a_value_error_naming_the_variable(monkeypatch):
    monkeypatch.setenv("TT_TIME_BUDGET", "abc")
    with pytest.raises(budget.BudgetSettingError, match="TT_TIME_BUDGET"):
        budget.time_budget()
    monkeypatch.setenv("TT_MEMORY_BUDGET", "abc")
    with pytest.raises(ValueError, match="TT_MEMORY_BUDGET"):
        budget.available_memory()
    monkeypatch.setenv("TT_MEMORY_BUDGET", "2G")
    monkeypatch.setenv("TT_TIME_BUDGET", "30")
    assert budget.available_memory() == 2 * 2**30 and budget.time_budget() == 30.0
    budget.check_environment()
    monkeypatch.setenv("TT_TIME_BUDGET", "")  # set but empty: unset, as before
    assert budget.time_budget() == budget.DEFAULT_TIME_BUDGET_S


# --------------------------------------------------------------------------- a directory in use


def test_a_directory_in_use_by_another_run_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    fd = os.open(out / _common.LOCK_NAME, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another run holds it
        os.write(fd, b"4242\n")
        code, o, e = _run(["collapse", "--max-len", "8", "--out", out], capsys)
        last = _one_line_exit_2(code, o, e, "--out")
        assert "in use by another run" in last and "4242" in last
    finally:
        os.close(fd)
    assert not (out / "collapse.json").exists()


def test_the_lock_is_held_for_the_run_and_released_after(tmp_path):
    path = _common.prepare_out_dir(str(tmp_path / "o"))
    try:
        fd = os.open(os.path.join(path, _common.LOCK_NAME), os.O_RDWR)
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.close(fd)
        assert _common.prepare_out_dir(path) == path  # the same run may prepare it again
    finally:
        _common.release_out_dirs()
    fd = os.open(os.path.join(path, _common.LOCK_NAME), os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free once released
    os.close(fd)


# --------------------------------------------------------------------------- a full disk


def test_a_full_disk_is_one_line_and_a_nonzero_exit(tmp_path, capsys, monkeypatch):
    data = tmp_path / "d.json"
    data.write_text(json.dumps({"tokens": [[0, 1], [1, 0]], "labels": [0, 1], "vocab_size": 2}))

    def full(path, text, *, suffix=".txt"):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    monkeypatch.setattr(jsonio, "write_text", full)
    code, out, err = _run(["certify", data, "--out", tmp_path / "o"], capsys)
    assert code == 1, (code, out, err)
    assert "Traceback" not in err + out
    last = err.strip().splitlines()[-1]
    assert "no space left" in last and "certify.json" in last


# --------------------------------------------------------------------------- file modes


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_respect_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        json_path = jsonio.write_json(str(tmp_path / "r.json"), {"a": 1})
        csv_path = jsonio.write_csv(str(tmp_path / "r.csv"), [{"a": 1}])
    finally:
        os.umask(old)
    for path in (json_path, csv_path):
        assert stat.S_IMODE(os.stat(path).st_mode) == mode


# --------------------------------------------------------------------------- estimates first


def test_time_budget_refuses_a_long_experiment_before_it_starts(tmp_path, capsys, monkeypatch):
    import types

    from transformer_theory.cli import experiment

    ran = []
    module = types.SimpleNamespace(
        SIZES=("smoke", "default"), get_config=lambda size: size, run=lambda *a, **k: ran.append(a)
    )  # composition_one_pass's sizes, without importing its training code
    monkeypatch.setattr(experiment, "discover", lambda: {"composition_one_pass": ("p", module)})
    monkeypatch.setattr(experiment, "study_of", lambda config_module: config_module)
    monkeypatch.setenv("TT_TIME_BUDGET", "60")  # above smoke's 10 s, below the default's
    argv = ["experiment", "composition_one_pass", "--size", "default", "--out", tmp_path / "o"]
    last = _one_line_exit_2(*_run(argv, capsys), "--size")
    assert "23 min" in last and "TT_TIME_BUDGET" in last
    assert not (tmp_path / "o").exists() and not ran
    argv[3] = "smoke"  # the smoke size is not refused
    assert _run(argv, capsys)[0] == 0 and len(ran) == 1


def _verify_budget():
    from transformer_theory.theory import suite
    from transformer_theory.theory._verify_settings import VerifySettings

    suite.check_budget(VerifySettings(models=10**8).resolved())


def _construct_budget():
    from transformer_theory.constructions import study
    from transformer_theory.constructions.sizes import ConstructSettings

    study.check_budget(ConstructSettings(theorem=(6,), n_a=200, k=60))


@pytest.mark.parametrize(
    "argv, library, fields, options",
    [  # the library's refusal names the fields; the command shows their options
        (
            ["verify", "--models", "100000000"],
            _verify_budget,
            "templates/chunk_size/models",
            "--templates/--chunk-size/--models",
        ),
        (
            ["construct", "--theorem", "6", "--n-a", "200", "-k", "60"],
            _construct_budget,
            "alphabet, n_a, ictm_template_length, k",
            "--alphabet, --n-a, --ictm-template-length, -k",
        ),
    ],
)
def test_a_size_the_library_refuses_names_fields_and_the_command_options(
    argv, library, fields, options, tmp_path, capsys
):
    with pytest.raises(budget.BudgetError) as err:
        library()
    assert str(err.value).startswith(fields + ":") and "--" not in str(err.value)
    assert str(err.value).endswith("lower " + fields)
    last = _one_line_exit_2(*_run([*argv, "--out", str(tmp_path / "o")], capsys), options)
    assert last.endswith("lower " + options), last


def test_time_budget_refusing_a_training_sweep_names_steps(tmp_path, capsys, monkeypatch):
    from transformer_theory import budget
    from transformer_theory.papers.chen_zou2024.experiments import named_config
    from transformer_theory.sweeps import run_experiment

    monkeypatch.setenv("TT_TIME_BUDGET", "1")
    config = named_config("fig2_depth")
    with pytest.raises(budget.BudgetError, match="^steps: .*; lower steps$"):
        run_experiment(config, str(tmp_path / "lib"), progress=False)  # refused before training
    assert not (tmp_path / "lib" / "summary.json").exists()
    argv = ["train", "--experiment", "fig2_depth", "--out", str(tmp_path / "o")]
    last = _one_line_exit_2(*_run(argv, capsys), "--steps")
    assert last.endswith("lower --steps"), last


def test_time_budget_refuses_the_full_claims_tier_before_it_starts(tmp_path, capsys, monkeypatch):
    from transformer_theory.claims import all_claims

    monkeypatch.setenv("TT_TIME_BUDGET", "1")
    last = _one_line_exit_2(
        *_run(["claims", "--tier", "full", "--out", tmp_path], capsys), "--tier"
    )
    assert f"{len(all_claims())} claim(s)" in last and re.search(r"about [0-9.]+ (min|h)\b", last)
    assert not (tmp_path / "claims.json").exists()


# --------------------------------------------------------------------------- claims: Ctrl-C, resume


def _fake_claims(monkeypatch, checks):
    """Rows whose checks are ``check()`` -> the figure (``None``: "fine")."""
    from transformer_theory.ledger import Checked, Continuum, Row, Verdict

    models = Continuum("every real weight")

    def as_check(fn):
        def check():
            return Checked(
                "float", models.instance("seed 0"), {"figure": fn()}, tolerance="0 (exact)"
            )

        return check

    fake = [
        Row(
            id=f"test.c{i}",
            paper="T",
            place="§1",
            statement="s",
            domain=models,
            check=as_check(fn or (lambda: "fine")),
            judge=lambda c: Verdict(True, c.values["figure"]),
            sizes={"quick": {}},
            expected="example",
            printed="p",
        )
        for i, fn in enumerate(checks)
    ]
    monkeypatch.setattr("transformer_theory.claims.runner.all_claims", lambda *a, **k: fake)
    monkeypatch.setattr("transformer_theory.claims.all_claims", lambda *a, **k: fake)
    return fake


def test_ctrl_c_swallowed_inside_a_check_still_ends_claims_with_exit_130(
    tmp_path, capsys, monkeypatch
):
    import signal

    def swallowed():  # a JAX callback turns the KeyboardInterrupt into an error of its call
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            pass
        raise RuntimeError("XlaRuntimeError: KeyboardInterrupt in the callback")

    ran = []

    def later():
        ran.append(1)
        return "fine"

    _fake_claims(monkeypatch, [None, swallowed, later])
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when the suite runs as a background job
    code, out, err = _run(["claims", "--out", tmp_path], capsys)
    assert code == 130, (code, out, err)
    assert "--resume" in err.strip().splitlines()[-1]
    assert not ran  # stopped after the interrupted claim
    records = json.loads((tmp_path / "claims.json").read_text())["records"]
    assert [r["id"] for r in records] == ["test.c0"]  # the cut-short claim is not recorded
    assert signal.getsignal(signal.SIGINT) is before  # the handler installed before, restored


def test_claims_resume_keeps_the_finished_records_of_the_same_tier(tmp_path, capsys, monkeypatch):
    calls = []

    def counted(i):
        def check():
            calls.append(i)
            return f"run {len(calls)}"

        return check

    _fake_claims(monkeypatch, [counted(0), counted(1), counted(2)])
    assert _run(["claims", "--id", "test.c0", "--id", "test.c1", "--out", tmp_path], capsys)[0] == 0
    assert calls == [0, 1]
    code, out, err = _run(["claims", "--resume", "--out", tmp_path], capsys)
    assert code == 0, (code, out, err)
    assert calls == [0, 1, 2] and "resuming: 2 claim(s)" in out
    records = json.loads((tmp_path / "claims.json").read_text())["records"]
    assert [r["id"] for r in records] == ["test.c0", "test.c1", "test.c2"]
    assert [r["figure"] for r in records] == ["run 1", "run 2", "run 3"]
    # another tier's records are not kept
    assert _run(["claims", "--resume", "--tier", "full", "--out", tmp_path], capsys)[0] == 0
    assert calls == [0, 1, 2, 0, 1, 2]


def test_a_claims_rerun_keeps_the_earlier_records_beside_it(tmp_path, capsys, monkeypatch):
    _fake_claims(monkeypatch, [None, None])
    assert _run(["claims", "--out", tmp_path], capsys)[0] == 0
    earlier = json.loads((tmp_path / "claims.json").read_text())["records"]
    code, out, _ = _run(["claims", "--id", "test.c1", "--out", tmp_path], capsys)
    assert code == 0 and "claims.previous.json" in out
    kept = json.loads((tmp_path / "claims.previous.json").read_text())["records"]
    assert [r["id"] for r in kept] == [r["id"] for r in earlier] == ["test.c0", "test.c1"]


# --------------------------------------------------------------------------- options never ignored

IGNORED = [
    (["sanford", "--task", "disj", "--n", "4,8"], "--n"),
    (["sanford", "--task", "disj", "--eps", "0.2"], "--eps"),
    (["sanford", "--task", "disj", "--window", "3"], "--window"),
    (["sanford", "--task", "disj", "--q", "2,2"], "--q"),  # ran q = 2 twice
    (["sanford", "--task", "qsa", "--n", "8,8"], "--n"),
    (["ngram", "--space", "--order", "4"], "--order"),
    (["ngram", "--space", "--precision", "float32"], "--precision"),
    (["ngram", "--space", "--max-len", "4"], "--max-len"),
    (["efficient-attention", "--jl", "--max-len", "512"], "--max-len"),
    (["efficient-attention", "--jl", "--variants", "dense"], "--variants"),
    (["efficient-attention", "--jl", "--dim", "8"], "--dim"),
    (["collapse", "--seeds", "1180591620717411303424"], "--seeds"),  # was an OverflowError
    (["collapse", "--seeds", "4294967296"], "--seeds"),
]


@pytest.mark.parametrize("argv, needle", IGNORED, ids=[" ".join(a) for a, _ in IGNORED])
def test_an_option_the_command_would_ignore_is_refused(argv, needle, tmp_path, capsys):
    code, out, err = _run([*argv, "--out", tmp_path / "o"], capsys)
    last = _one_line_exit_2(code, out, err, needle)
    assert not (tmp_path / "o").exists(), last


def test_disj_q_beyond_the_limit_is_refused_with_its_estimate(tmp_path, capsys):
    argv = ["sanford", "--task", "disj", "--q", "20", "--out", tmp_path / "o"]
    last = _one_line_exit_2(*_run(argv, capsys), "--q")
    assert f"{4**20:,} pairs" in last and "q <= 6" in last


def test_defaults_given_again_are_not_refused():
    from transformer_theory.cli import _common, build_parser
    from transformer_theory.cli import _load_commands as load

    parser = build_parser(load())
    args = parser.parse_args(["efficient-attention", "--jl", "--max-len", "16384", "--seed", "3"])
    sub = next(a for a in parser._actions if a.dest == "command").choices["efficient-attention"]
    assert _common.changed_options(sub, args) == {"--jl", "--seed"}
