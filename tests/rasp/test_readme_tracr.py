"""README's comparison with tracr states what the committed records hold (the differential run and
the table beside tracr), the docs show the table as the record has it, and the table's run
resumes."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD = ROOT / "experiments" / "results" / "rasp_tracr_differential.json"


def test_readme_quotes_the_differential_record():
    readme = (ROOT / "README.md").read_text()
    row = next(line for line in readme.splitlines() if "against tracr" in line)
    programs = json.loads(RECORD.read_text())["programs"]
    want = {
        # frac_prevs is compared twice (non-causal and causal): one program, two comparisons
        "programs": len({p["program"].removesuffix("_causal") for p in programs}),
        "comparisons": len(programs),
        "inputs": sum(p["inputs"] for p in programs),
        "ours": sum(p["ours"]["disagree"] for p in programs),
        "tracr": sum(p["tracr"]["disagree"] for p in programs),
        "fewer": sum(p["layers"]["ours"] < p["layers"]["tracr"] for p in programs),
    }
    assert sum(p["layers"]["ours"] > p["layers"]["tracr"] for p in programs) == 0
    assert all(p["tracr"]["at_none"] == p["tracr"]["disagree"] for p in programs)
    m = re.search(
        r"on (\d+) of its own programs \((\d+) comparisons.*?; ([\d,]+) inputs.*?: (\d+) "
        r"positions here.*?the ([\d,]+) positions where it says None.*?fewer on (\d+)",
        row,
    )
    assert m, row
    got = [int(g.replace(",", "")) for g in m.groups()]
    assert got == [want[k] for k in ("programs", "comparisons", "inputs", "ours", "tracr", "fewer")]
    # the conditions a tracr author would ask for: every wrong position of tracr's is a None
    # of its interpreter, and the failure length is at its default constant
    assert "agrees with tracr's interpreter wherever that gives a value" in row
    assert "mlp_exactness=100" in row
    failures = json.loads(RECORD.read_text())["failure_lengths"]
    for name in ("length", "reverse"):
        assert failures[name]["tracr"]["float32"]["first_failure"] == 10
        assert "mlp_exactness 100" in failures[name]["tracr"]["float32"]["constants"]


TABLE = ROOT / "experiments" / "results" / "rasp_table.json"


def _table():
    from transformer_theory import jsonio
    from transformer_theory.rasp._records import TracrTable

    return jsonio.read_record(str(TABLE), TracrTable)


def test_readme_quotes_the_table_run_at_both_tracr_constants():
    # "wrong from 10 tokens at mlp_exactness=100, right through 16 at 1000": both from the
    # table's run (tracr compiled for 16, seeded inputs of every length 1..16)
    readme = (ROOT / "README.md").read_text()
    row = next(line for line in readme.splitlines() if "against tracr" in line)
    rows = {r["program"]: r for r in json.loads(TABLE.read_text())["programs"]}
    for name in ("length", "reverse"):
        r = rows[name]
        assert r["tracr_default"]["max_seq_len"] == r["tracr_1000"]["max_seq_len"] == 16
        assert r["tracr_default"]["exact_through"] == 9  # wrong from 10 tokens
        assert r["tracr_1000"]["exact_through"] == 16
    assert "compiled for 16 are wrong from 10 tokens at its default `mlp_exactness=100`" in row
    assert "right through 16 at `mlp_exactness=1000`" in row and "rasp_table.json" in row


def test_docs_show_the_table_as_the_record_has_it():
    record = json.loads(TABLE.read_text())
    page = (ROOT / "docs" / "rasp.md").read_text()
    from transformer_theory.rasp import _study_tracr_table

    assert _study_tracr_table.markdown(_table()) in page
    # the run's conditions stated beside it
    assert record["produced_by"] in page and all(c in page for c in record["commits"])
    for name in record["missing"]:
        assert f"| {name} | not measured |" in page


def test_the_table_run_resumes_and_writes_each_row_as_it_finishes(tmp_path, monkeypatch):
    # a run stopped after two programs leaves a valid record naming the rest as missing; the next
    # run measures only those (tracr replaced by stand-ins: the bookkeeping is what is tested)
    import dataclasses

    from transformer_theory import jsonio
    from transformer_theory.rasp import _study_tracr_table as study
    from transformer_theory.rasp import _tracr
    from transformer_theory.rasp._records import TableRow
    from transformer_theory.rasp.experiments import tracr_table

    names = ["p1", "p2", "p3", "p4"]
    monkeypatch.setattr(_tracr, "TRACR_PROGRAMS", tuple(names))
    monkeypatch.setattr(_tracr, "tracr_programs", lambda n: {k: (k, ["a"], False) for k in names})
    measured, stop = [], ["p3"]

    def measure(name, tprog, vocab, causal, config):
        if name in stop:
            stop.clear()
            raise RuntimeError("stopped")  # the first run dies here
        measured.append(name)
        return TableRow(name, ("'a'",), False, compiled=False, refused="stand-in")

    monkeypatch.setattr(study, "measure", measure)
    out = str(tmp_path / "t.json")
    config = tracr_table.get_config("default")
    with pytest.raises(RuntimeError, match="stopped"):
        study.run(config, str(tmp_path), record_name="t.json")
    rec = jsonio.read_json(out)  # valid JSON after each row
    assert [r["program"] for r in rec["programs"]] == ["p1", "p2"]
    assert rec["missing"] == ["p3", "p4"]
    rec = study.run(config, str(tmp_path), record_name="t.json")
    assert measured == ["p1", "p2", "p3", "p4"]  # p1, p2 not measured again
    assert jsonio.read_json(out)["missing"] == [] and len(rec.programs) == 4
    assert all(r.commit and r.date for r in rec.programs)
    # only: those programs measured again, the rest kept
    study.run(dataclasses.replace(config, only=("p2",)), str(tmp_path), record_name="t.json")
    assert measured[4:] == ["p2"]
    # restart: nothing kept
    study.run(config, str(tmp_path), record_name="t.json", restart=True)
    assert measured[5:] == names
    # other settings: nothing is kept
    study.run(dataclasses.replace(config, samples=4), str(tmp_path), record_name="t.json")
    assert measured[9:] == names
    # an unknown program is refused before any work, naming the field
    with pytest.raises(ValueError, match="^only: unknown programs"):
        study.run(dataclasses.replace(config, only=("nope",)), str(tmp_path))
    assert measured[13:] == []


def test_the_table_script_reads_the_experiment_config(tmp_path, capsys):
    # the script's options are the experiment's fields; a refused value or an unknown program
    # is one line naming its option, exit 2, before any work (no tracr needed to refuse)
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "rasp_table", ROOT / "experiments" / "rasp_table.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    with pytest.raises(SystemExit) as exc:
        script.main(["--samples", "0", "--out", str(tmp_path / "t.json")])
    assert exc.value.code == 2 and "--samples" in capsys.readouterr().err
    assert script.main(["--only", "nope", "--out", str(tmp_path / "t.json")]) == 2
    assert capsys.readouterr().err.startswith("rasp_table.py: error: --only: unknown programs")
    assert not (tmp_path / "t.json").exists()
    assert script.main(["--print", str(TABLE)]) == 0
    assert capsys.readouterr().out.startswith("| program | layers ours / tracr (N = 5) |")
