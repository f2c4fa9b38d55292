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
        r"on (\d+) of its own programs \((\d+) comparisons.*?; ([\d,]+) inputs.*?: (\d+) wrong "
        r"positions here, ([\d,]+) in tracr.*?fewer on (\d+)",
        row,
    )
    assert m, row
    got = [int(g.replace(",", "")) for g in m.groups()]
    assert got == [want[k] for k in ("programs", "comparisons", "inputs", "ours", "tracr", "fewer")]
    # the conditions a tracr author would ask for: every wrong position of tracr's is a None
    # of its interpreter, and the failure length is at its default constant
    assert "where tracr's own interpreter says None" in row and "mlp_exactness=100" in row
    failures = json.loads(RECORD.read_text())["failure_lengths"]
    for name in ("length", "reverse"):
        assert failures[name]["tracr"]["float32"]["first_failure"] == 10
        assert "mlp_exactness 100" in failures[name]["tracr"]["float32"]["constants"]
