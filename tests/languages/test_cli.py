"""Smoke test of `transformer-theory languages`: records, plots and exit code on a tiny run."""

import json

from transformer_theory.cli import main


def test_languages_command_writes_records_and_plots(tmp_path):
    out = tmp_path / "o"
    # One row, one length: every length of every row is one compile, the suite's scarce time;
    # the recognizers and the PARITY sweep are checked in test_constructions.py.
    argv = ["languages", "--out", str(out), "--max-len", "1", "--exhaustive-up-to", "1"]
    argv += ["--rows", "majority", "--parity-lengths", "none"]
    assert main(argv) == 0
    (row,) = json.loads((out / "languages.json").read_text())
    assert row["construction"] == "majority" and row["language"] == "majority"
    # 2 (#1 - #0 - 1/2) / n on the string "1" with BOS, n = 2 (float64 rounding only).
    assert row["accuracy"] == 1.0 and abs(row["min_margin"] - 0.5) < 1e-12
    assert row["lengths_checked"] == [1] and row["exhaustive_up_to"] == 1
    assert {"attention", "positional", "strings_checked"} <= set(row)
    assert json.loads((out / "parity_precision.json").read_text()) == []
    assert (out / "languages_margin.png").stat().st_size > 0
