"""The Peng et al. 2024 claims fail when the bound or the measurement is broken."""

import math
from fractions import Fraction

from transformer_theory.papers.peng2024 import _checks as checks
from transformer_theory.papers.peng2024 import _theory as theory
from transformer_theory.papers.peng2024 import claims

CLAIMS = {c.id.split(".", 1)[1]: c for c in claims.CLAIMS}


def _run(name):
    """``(checked, verdict, status)`` of a row at the quick tier."""
    checked, verdict, status, _ = CLAIMS[name].run("quick")
    return checked, verdict, status


def test_the_bound_is_a_library_finding_in_rationals():
    row = CLAIMS["theorem1_bound"]
    assert row.printed is None  # the theorem itself is not proved by the library
    checked, verdict, status = _run("theorem1_bound")
    assert checked.arithmetic == "exact" and status == "finding"
    assert [16, 1, 2, 32] in checked.values["void_cells"]  # 3 * 32 = 96 >= 64
    assert [16, 1, 2, 2] not in checked.values["void_cells"]  # 3 * 2 = 6 < 64
    assert checks.exact_bound(16, 1, 2, 2) == Fraction(58, 192)


def test_records_read_from_disk_are_measured_at_most():
    checked, _, status = _run("theorem1_one_pass")
    assert checked.arithmetic in ("record", "training") and status in ("measured", "open")


def test_a_one_layer_model_below_the_bound_is_flagged(monkeypatch, tmp_path):
    from transformer_theory import jsonio

    def record(d, p, error):
        return {
            "n": 8,
            "heads": 1,
            "d": d,
            "p": p,
            "steps": 10,
            "error": error,
            "bound": 0.0,
            "chance_error": 7 / 8,
        }  # the check recomputes the bound

    path = str(tmp_path / "bound.json")
    monkeypatch.setattr(checks, "BOUND_RESULTS", path)
    # n = 8, H = 1, d = 1, p = 2: R = 24 - 4 = 20, bound 20 / 72 = 0.278
    jsonio.write_json(path, {"records": [record(16, 32, 0.02), record(1, 2, 0.5)]})
    _, verdict, status = _run("theorem1_trained")
    assert status == "measured" and "1 of 1 void" in verdict.figure, verdict.figure
    assert "0 of 1 R > 0 cells have a void cell of the same p" in verdict.figure
    # H = 1, d = 16, p = 2 at n = 8: 34 >= 24, void, and learned: the 2-bit R > 0 cell compares
    jsonio.write_json(path, {"records": [record(16, 2, 0.02), record(1, 2, 0.5)]})
    _, verdict, _ = _run("theorem1_trained")
    assert "1 of 1 R > 0 cells have a void cell of the same p" in verdict.figure
    jsonio.write_json(path, {"records": [record(16, 32, 0.02), record(1, 2, 0.2)]})
    _, verdict, status = _run("theorem1_trained")
    assert status == "open", verdict.figure
    assert math.isclose(theory.peng_error_bound(8, 1, 1, 2), 20 / 72)


def _cot_records():
    from transformer_theory.papers.peng2024 import _models_cot as cot

    return [
        {
            "n": 4,
            "functions": 2,
            "stride": s,
            "cot_steps": 2 // s,
            "heads": 1,
            "d": 8,
            "p": 8,
            "steps": 10,
            "accuracy": a,
            "token_accuracy": [a] * (2 // s),
            "cot_bound": cot.cot_bound(4, 1, 8, 8),
        }
        for s, a in ((1, 1.0), (2, 0.5))
    ]


def test_theorem2_recomputes_the_committed_summary(monkeypatch, tmp_path):
    from transformer_theory import jsonio

    records = _cot_records()
    path = str(tmp_path / "cot.json")
    monkeypatch.setattr(checks, "COT_RESULTS", path)
    summary = theory.steps_needed(records, 0.9)
    assert summary[0]["steps_needed"] == 2
    jsonio.write_json(path, {"records": records, "summary": summary, "target": 0.9})
    assert _run("theorem2")[2] == "measured"
    # a summary that claims one step where the records say two is caught
    jsonio.write_json(
        path, {"records": records, "summary": [summary[0] | {"steps_needed": 1}], "target": 0.9}
    )
    assert _run("theorem2")[2] == "open"
    # so is a record whose sqrt(n / (H d p)) was computed with the wrong formula
    records[1]["cot_bound"] = (4 / (8 * 8)) ** 0.5 * 2
    jsonio.write_json(
        path, {"records": records, "summary": theory.steps_needed(records, 0.9), "target": 0.9}
    )
    assert _run("theorem2")[2] == "open"
