"""``transformer-theory construct``: prints the table, writes construct.json, exit code reflects the
check."""

import json

from transformer_theory.cli import main


def test_the_study_runs_without_the_command(tmp_path, monkeypatch):
    """``constructions.study.run``: the budget checked, every row built and checked, the record
    written and returned; a broken construction shows in the record."""
    import dataclasses

    import pytest

    from transformer_theory import budget
    from transformer_theory.constructions import reasoning, study
    from transformer_theory.constructions.sizes import ConstructSettings
    from transformer_theory.jsonio import read_json

    s = ConstructSettings(theorem=(3,), n_q=2, n_a=2, k=1)
    record = study.run(s, str(tmp_path))
    assert [r.theorem for r in record.rows] == ["3"] and record.rows[0].exact
    written = read_json(str(tmp_path / "construct.json"))
    assert written["rows"][0]["examples"] == record.rows[0].examples == 4
    built = reasoning.theorem3

    def broken(task, **kw):  # the answer read from the wrong place: the check must fail
        params = built(task, **kw)
        return dataclasses.replace(params, w_o=params.w_o[::-1])

    monkeypatch.setattr(study, "theorem3", broken)  # what plan() builds with
    assert not study.run(s, str(tmp_path / "broken")).rows[0].exact
    with pytest.raises(budget.BudgetError, match="^alphabet, n_a, ictm_template_length, k:"):
        study.run(ConstructSettings(theorem=(6,), n_a=200, k=60), str(tmp_path / "big"))
    assert not (tmp_path / "big").exists()  # refused before anything is written


def test_construct_cli_writes_table(tmp_path, capsys):
    rc = main(
        [
            "construct",
            "--theorem",
            "3",
            "5",
            "--n-q",
            "2",
            "--n-a",
            "2",
            "-k",
            "1",
            "--alphabet",
            "3",
            "--template-length",
            "2",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert "min margin" in out and "InContextQA" in out
    data = json.loads((tmp_path / "construct.json").read_text())
    rows = {r["theorem"]: r for r in data["rows"]}
    assert set(rows) == {"3", "5 (1 head)", "5 (n heads)"}
    assert (
        rows["3"]["examples"] == 2 * 2 * 1
        and rows["3"]["accuracy"] == 1.0
        and rows["3"]["min_margin"] == 3.0
    )
    # construct.json is the typed record, field for field
    from transformer_theory.constructions.study import ConstructRecord
    from transformer_theory.jsonio import read_record, to_jsonable

    record = read_record(str(tmp_path / "construct.json"), ConstructRecord)
    assert to_jsonable(record)[0] == data and all(r.exact for r in record.rows)
    assert rows["5 (n heads)"]["heads"] == "1/3" and rows["5 (1 head)"]["width"] == 4 + 3
    assert all(r["mode"] == "exhaustive" and r["min_margin"] > 0 for r in data["rows"])


def test_construct_cli_sampled_and_bad_sizes(tmp_path, capsys):
    rc = main(
        [
            "construct",
            "--theorem",
            "3",
            "--n-q",
            "4",
            "--n-a",
            "4",
            "-k",
            "2",
            "--samples",
            "50",
            "--out",
            str(tmp_path),
        ]
    )
    assert rc == 0
    (row,) = json.loads((tmp_path / "construct.json").read_text())["rows"]
    assert (row["mode"], row["examples"]) == ("sampled", 50)
    # k larger than the number of answers cannot form a context: a clear error, exit code 2.
    rc = main(
        [
            "construct",
            "--theorem",
            "3",
            "--n-q",
            "2",
            "--n-a",
            "2",
            "-k",
            "3",
            "--out",
            str(tmp_path),
        ]
    )
    assert rc == 2 and "error:" in capsys.readouterr().err


def test_paper_sizes_experiment_smoke(tmp_path, capsys):
    """``experiments/constructions_paper_sizes.py --smoke``: every row exact, JSON written."""
    import importlib.util
    import pathlib

    path = (
        pathlib.Path(__file__).resolve().parents[2] / "experiments" / "constructions_paper_sizes.py"
    )
    spec = importlib.util.spec_from_file_location("constructions_paper_sizes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--smoke", "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "construct_all.json").read_text())["rows"]
    assert [r["theorem"] for r in rows] == ["3", "5 (1 head)", "5 (n heads)", "6", "1", "3"]
    assert rows[-1]["mode"] == "exhaustive" and rows[0]["mode"] == "sampled"
    assert all(r["accuracy"] == 1.0 and r["min_margin"] > 0 for r in rows)


def test_construct_refuses_by_the_shared_memory_and_time_budget(tmp_path, monkeypatch, capsys):
    """The memory check reads budget.available_memory (TT_MEMORY_BUDGET), not the physical
    memory; the exhaustive check's time is estimated from the sizes and refused past
    TT_TIME_BUDGET, naming --samples. Both before anything is built."""
    out = tmp_path / "c"
    monkeypatch.setenv("TT_MEMORY_BUDGET", "1K")
    assert main(["construct", "--theorem", "3", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--n-q, --n-a, -k: theorem 3" in err[0] and "memory" in err[0]
    monkeypatch.delenv("TT_MEMORY_BUDGET")
    monkeypatch.setenv("TT_TIME_BUDGET", "10")
    # 1,555,200 examples: about 3 minutes on the development machine
    argv = ["construct", "--theorem", "3", "--n-q", "10", "--n-a", "10", "-k", "3"]
    assert main(argv + ["--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "would take about" in err[0] and "--samples" in err[0], err
    assert not (out / "construct.json").exists()
