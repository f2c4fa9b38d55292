"""README's comparison with tracr states what the committed differential record holds."""

from __future__ import annotations

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
RECORD = ROOT / "experiments" / "results" / "rasp_tracr_differential.json"


def test_readme_quotes_the_differential_record():
    readme = (ROOT / "README.md").read_text()
    row = next(line for line in readme.splitlines() if "against tracr" in line)
    programs = json.loads(RECORD.read_text())["programs"]
    want = {
        "programs": len(programs),
        "inputs": sum(p["inputs"] for p in programs),
        "ours": sum(p["ours"]["disagree"] for p in programs),
        "tracr": sum(p["tracr"]["disagree"] for p in programs),
        "fewer": sum(p["layers"]["ours"] < p["layers"]["tracr"] for p in programs),
    }
    assert sum(p["layers"]["ours"] > p["layers"]["tracr"] for p in programs) == 0
    assert all(p["tracr"]["at_none"] == p["tracr"]["disagree"] for p in programs)
    m = re.search(
        r"on (\d+) of its own programs \(([\d,]+) inputs.*?: (\d+) wrong positions here, "
        r"([\d,]+) in tracr.*?fewer on (\d+)",
        row,
    )
    assert m, row
    got = [int(g.replace(",", "")) for g in m.groups()]
    assert got == [want[k] for k in ("programs", "inputs", "ours", "tracr", "fewer")]
    failures = json.loads(RECORD.read_text())["failure_lengths"]
    for name in ("length", "reverse"):
        assert failures[name]["tracr"]["float32"]["first_failure"] == 10
