"""Smoke tests of ``transformer-theory certify FILE``: verdict, bound, JSON output, exit status 2 on
bad input."""

import json
import subprocess
import sys

import numpy as np

from transformer_theory.cli import main
from transformer_theory.jsonio import read_json

# §13.1's toy set (a=0, b=1, x=2, y=3, "="=4), labels x -> 0, y -> 1.
TOY = {
    "tokens": [
        [0, 4, 2, 1, 4, 3, 0, 4],
        [0, 4, 3, 1, 4, 2, 1, 4],
        [0, 4, 3, 1, 4, 2, 0, 4],
        [0, 4, 2, 1, 4, 3, 1, 4],
    ],
    "labels": [0, 0, 1, 1],
    "vocab_size": 5,
}


def test_certify_toy_set_prints_verdict_and_three_quarters(tmp_path, capsys):
    f = tmp_path / "toy.json"
    f.write_text(json.dumps(TOY))
    rc = main(["certify", str(f), "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "IMPOSSIBLE for relu_any_heads" in out and "IMPOSSIBLE for softmax_one_head" in out
    assert "at most 3/4" in out
    rec = json.loads((tmp_path / "out" / "certify.json").read_text())
    assert [r["certificate"]["family"] for r in rec["results"]] == [
        "relu_any_heads",
        "softmax_one_head",
    ]
    for r in rec["results"]:
        assert r["certificate"]["verdict"] == "impossible" and r["certificate"]["verified_exactly"]
        assert r["bound"]["upper_bound_fraction"] == "3/4" and r["bound"]["exact"]
        assert r["bound"]["family"] == r["certificate"]["family"]
    assert rec["dataset"]["num_examples"] == 4


def test_certify_separable_npz_has_no_certificate(tmp_path, capsys):
    tokens = np.array([[a, b, 3] for a in range(3) for b in range(3)])
    f = tmp_path / "sep.npz"
    np.savez(f, tokens=tokens, labels=tokens[:, 0])
    rc = main(
        [
            "certify",
            str(f),
            "--family",
            "relu_any_heads",
            "--bound",
            "sound",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "no certificate" in out and "proves nothing" in out and "9/9" in out
    rec = json.loads((tmp_path / "certify.json").read_text())
    assert rec["results"][0]["certificate"]["verdict"] == "no certificate"
    assert rec["dataset"]["vocab_size_inferred"]


def test_malformed_file_exits_2_with_message(tmp_path, capsys):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps({**TOY, "labels": [0, 1]}))
    assert main(["certify", str(f), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "'labels' has 2 entries but 'tokens' has 4 sequences" in err
    assert not (tmp_path / "certify.json").exists()
    assert main(["certify", str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_console_exit_status_in_a_subprocess(tmp_path):
    f = tmp_path / "bad.npz"
    np.savez(f, tokens=np.zeros(3, int), labels=np.zeros(3, int))
    p = subprocess.run(
        [sys.executable, "-m", "transformer_theory", "certify", str(f)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2 and "array 'tokens' must be 2-D" in p.stderr


def test_duplicate_sequences_with_two_labels_are_named_first(tmp_path, capsys):
    data = {"tokens": [[0, 1, 2], [1, 0, 2], [0, 1, 2]], "labels": [0, 1, 1], "vocab_size": 3}
    f = tmp_path / "dup.json"
    f.write_text(json.dumps(data))
    assert main(["certify", str(f), "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    first = next(line for line in out.splitlines() if "IMPOSSIBLE" in line)
    assert first.startswith("[any model, any depth]") and "rows [0, 2]" in first
    rec = json.loads((tmp_path / "o" / "certify.json").read_text())
    assert rec["contradictions"] == [[0, 2]]


def test_time_limit_covers_the_whole_command(tmp_path, capsys, monkeypatch):
    """The limit used to start after loading: a slow load ran past it. Loading that takes longer
    than the limit leaves every group undecided, and the command still reports and exits 0."""
    import time

    from transformer_theory import saveload

    f = tmp_path / "toy.json"
    f.write_text(json.dumps(TOY))
    slow = saveload.load_dataset

    def slow_load(path):
        time.sleep(0.3)
        return slow(path)

    monkeypatch.setattr(saveload, "load_dataset", slow_load)
    argv = ["certify", str(f), "--time-limit", "0.2", "--out", str(tmp_path / "o")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "1 of 1 last-token group(s) undecided" in out and "IMPOSSIBLE" not in out
    rec = json.loads((tmp_path / "o" / "certify.json").read_text())
    assert rec["results"][0]["certificate"]["groups"][0]["status"] == "undecided"
    assert not rec["results"][0]["bound"]["exact"]


def test_certify_refuses_a_file_too_large_for_memory(tmp_path, monkeypatch, capsys):
    """The file's size gives the loader's memory before anything is parsed (TT_MEMORY_BUDGET sets
    the line, so the refusal is the same on every machine)."""
    f = tmp_path / "big.json"
    f.write_text(json.dumps(TOY) + " " * 200_000)  # ~200 kB: ~2 MB to load by the estimate
    monkeypatch.setenv("TT_MEMORY_BUDGET", "1M")
    out = tmp_path / "out"
    assert main(["certify", str(f), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("transformer-theory certify: error: FILE:"), err
    assert "memory" in err[0] and not (out / "certify.json").exists()
    monkeypatch.setenv("TT_MEMORY_BUDGET", "1G")
    assert main(["certify", str(f), "--bound", "none", "--out", str(out)]) == 0
    rec = read_json(str(out / "certify.json"))  # strict JSON
    assert rec["dataset"]["num_examples"] == 4


def test_certify_json_is_the_typed_record(tmp_path, capsys):
    from transformer_theory import verify_outputs
    from transformer_theory.jsonio import read_record, to_jsonable

    f = tmp_path / "toy.json"
    f.write_text(json.dumps(TOY))
    assert main(["certify", str(f), "--bound", "none", "--out", str(tmp_path)]) == 0
    path = tmp_path / "certify.json"
    rec = read_record(str(path), verify_outputs.CertifyRecord)
    assert rec.dataset.num_examples == 4 and rec.dataset.last_tokens == (4,)
    assert [r.bound for r in rec.results] == [None, None]  # --bound none: no key "bound"
    assert to_jsonable(rec)[0] == read_json(str(path))
    assert all("bound" not in r for r in read_json(str(path))["results"])


def test_the_study_runs_without_the_command(tmp_path):
    """``verify_outputs.run_certify``: the contradictions first, each family as it finishes, one
    shared bound, ``certify.json`` the record it returns."""
    from transformer_theory import verify_outputs
    from transformer_theory.saveload import load_dataset

    path = tmp_path / "d.json"
    tokens = [[0, 1, 2], [0, 1, 2], [1, 0, 2], [2, 2, 1], [1, 1, 1], [0, 2, 1]]
    path.write_text(json.dumps(dict(tokens=tokens, labels=[0, 1, 1, 0, 1, 0], vocab_size=3)))
    events = []
    record = verify_outputs.run_certify(
        load_dataset(str(path)),
        str(tmp_path),
        file=str(path),
        families=("relu_any_heads", "softmax_one_head"),
        on_contradictions=lambda groups: events.append(("groups", [list(g) for g in groups])),
        on_family=lambda done: events.append(("family", done.family, done.bound)),
    )
    assert events[0] == ("groups", [[0, 1]])  # rows 0 and 1: one sequence, two labels
    assert [e[1] for e in events[1:]] == ["relu_any_heads", "softmax_one_head"]
    assert events[1][2] is events[2][2]  # one relaxation, one bound for both families
    assert record.contradictions == ((0, 1),)
    assert [r.certificate["verdict"] for r in record.results] == ["impossible", "impossible"]
    assert read_json(str(tmp_path / "certify.json"))["contradictions"] == [[0, 1]]
