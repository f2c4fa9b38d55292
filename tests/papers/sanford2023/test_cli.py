"""Smoke test of ``transformer-theory sanford``: records with the promised fields, plots, exit 0."""

import json

from transformer_theory.cli import main


def test_sanford_command_writes_records_and_plots(tmp_path):
    argv = ["sanford", "--task", "qsa,match2", "--n", "3", "--q", "1", "--samples", "200"]
    assert main(argv + ["--out", str(tmp_path)]) == 0
    records = json.loads((tmp_path / "sanford.json").read_text())
    assert {r["task"] for r in records} == {"qsa", "match2"}
    for r in records:
        assert {"task", "N", "examples", "exhaustive"} <= set(r)
        assert ("q" in r and r["max_error"] <= r["epsilon"]) or r["accuracy"] == 1.0
    assert (tmp_path / "qsa_m_min.png").exists() and (tmp_path / "match2_precision.png").exists()
