"""Smoke test of ``transformer-theory verify`` (the default command) in its quick mode."""

import csv
import dataclasses
import itertools
import json
import os

import pytest

from transformer_theory.cli import main
from transformer_theory.cli.verify import template_counts
from transformer_theory.jsonio import read_json
from transformer_theory.theory import checks


def test_default_command_quick_writes_outputs(tmp_path, capsys):
    out = str(tmp_path / "v")
    # no command name: verify is the default
    assert main(["--quick", "--icqa", "2,2,2", "--out", out]) == 0
    text = capsys.readouterr().out
    assert "max_resid" in text and "tolerance" in text and "0 in-scope failures" in text
    assert text.startswith("estimate: peak memory ~")  # the cost, printed before the work
    for ext in ("json", "csv", "png"):
        assert os.path.getsize(os.path.join(out, f"verify.{ext}")) > 0
    records = read_json(os.path.join(out, "verify.json"))  # strict: a NaN literal raises
    props = [r for r in records if r["kind"] == "proposition"]
    assert {r["family"] for r in props} == set(checks.FAMILIES)
    assert all(r["holds"] == r["expected"] for r in props)
    assert any(not r["expected"] for r in props)  # controls are reported too
    kinds = {r["kind"] for r in records}
    assert {"certificate", "accuracy_bound"} <= kinds
    bound = next(
        r for r in records if r["kind"] == "accuracy_bound" and r["dataset"] == "theorem2 toy set"
    )
    assert bound["upper_bound_fraction"] == "3/4"
    rows = list(csv.DictReader(open(os.path.join(out, "verify.csv"))))
    assert len(rows) == len(props) and "max_residual" in rows[0]


def test_exit_status_nonzero_when_an_in_scope_relation_fails(tmp_path, monkeypatch, capsys):
    # Declare a control (MLP after attention) in scope: its relation does not hold -> exit 1.
    monkeypatch.setattr(checks.Family, "in_scope", lambda self, prop: True)
    code = main(
        ["verify", "--quick", "--families", "relu-mlp", "--no-certificates", "--out", str(tmp_path)]
    )
    assert code == 1
    assert "FAILURE" in capsys.readouterr().err


def test_the_study_runs_without_the_command(tmp_path, monkeypatch):
    """``verify_outputs.run_verify``: what the command prints comes from its typed result."""
    from transformer_theory import verify_outputs
    from transformer_theory.theory import suite

    s = suite.VerifySettings(quick=True, families=("relu-1h", "relu-mlp")).resolved()
    s = dataclasses.replace(s, certificates=False)
    datasets = suite.build_datasets(s.datasets, num_random=s.random_sets, seed=s.seed)
    (tmp_path / "witness_old.npz").write_bytes(b"an earlier run's")
    run = verify_outputs.run_verify(s, datasets, str(tmp_path))
    assert not (tmp_path / "witness_old.npz").exists()  # the directory cleared first
    assert [os.path.basename(f) for f in run.files] == ["verify.json", "verify.csv", "verify.png"]
    assert {v.family for v in run.verdicts} == {"relu-1h", "relu-mlp"}
    assert run.failed == [] and not run.witness_failed and run.suite_records == ()
    assert len(read_json(str(tmp_path / "verify.json"))) == len(run.verdicts)
    # the control declared in scope: its relation fails and the result says so
    monkeypatch.setattr(checks.Family, "in_scope", lambda self, prop: True)
    failed = verify_outputs.run_verify(s, datasets, str(tmp_path)).failed
    assert failed and {v.family for v in failed} == {"relu-mlp"}


def test_bad_family_is_a_usage_error(tmp_path, capsys):
    assert main(["verify", "--families", "nope", "--out", str(tmp_path)]) == 2
    assert "nope" in capsys.readouterr().err


def test_a_second_run_into_the_same_out_leaves_only_its_own_files(tmp_path, capsys):
    """A first run's witness files used to stay beside a verify.json that no longer listed them."""
    out = tmp_path / "v"
    out.mkdir()
    stale = out / "witness_softmax__1_layer__2_heads.npz"  # as a witness run writes them
    stale.write_bytes(b"from an earlier run")
    (out / "verify.json").write_text("[]")
    (out / "notes.txt").write_text("the user's own file")
    argv = ["verify", "--quick", "--families", "relu-1h", "--no-certificates", "--out", str(out)]
    assert main(argv) == 0
    capsys.readouterr()
    assert not stale.exists()  # cleared: this run searched no witnesses
    assert (out / "notes.txt").read_text() == "the user's own file"  # not the run's: kept
    listed = {
        os.path.basename(r["params_path"])
        for r in json.load(open(out / "verify.json"))
        if r.get("params_path")
    }
    assert {p.name for p in out.glob("witness_*.npz")} == listed == set()


def test_template_counts_match_an_enumeration():
    """Bell(L) templates and the dataset's sequences, against every sequence of length L over A
    symbols grouped by its equality pattern (first occurrences numbered 0, 1, ...)."""
    for a, length in [(1, 1), (2, 2), (3, 3), (2, 4), (4, 3), (3, 5)]:
        patterns = set()
        for seq in itertools.product(range(a), repeat=length):
            first = {}
            patterns.add(tuple(first.setdefault(x, len(first)) for x in seq))
        bell, sequences = template_counts(a, length)
        assert sequences == a**length  # every sequence has exactly one pattern
        assert len(patterns) == sum(1 for p in patterns if max(p) < a)
        assert bell == {1: 1, 2: 2, 3: 5, 4: 15, 5: 52}[length]
        if a >= length:
            assert len(patterns) == bell


@pytest.mark.parametrize(
    "argv, env, needle",
    [
        # 4.2 million templates, 1.7e19 sequences: used to start enumerating with no estimate
        (["--templates", "40,12"], {}, "--templates: 40,12 has 1.68e+19 sequences"),
        # 823,543 sequences, 877 templates: Lemma 6's pair sets alone ~63 GB
        (["--datasets", "templates", "--templates", "7,7"], {"TT_MEMORY_BUDGET": "1G"}, "memory"),
        (
            ["--datasets", "templates", "--templates", "7,7"],
            {"TT_MEMORY_BUDGET": "1T", "TT_TIME_BUDGET": "60"},
            "would take about",
        ),
        (["--icqa", "9,9,4"], {}, "--icqa: 9,9,4 has"),
    ],
)
def test_verify_refuses_sizes_beyond_the_budget_before_any_work(
    argv, env, needle, tmp_path, monkeypatch, capsys
):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    out = tmp_path / "v"
    assert main(["verify", *argv, "--no-witnesses", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0], err
    assert "--templates" in err[0] or "--icqa" in err[0]
    assert not out.exists()  # refused before the output directory was made
