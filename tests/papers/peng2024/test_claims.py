"""The Peng et al. 2024 claims fail when the bound or the measurement is broken."""

import math

from transformer_theory.papers.peng2024 import claims, tasks

CLAIMS = {c.id.split(".", 1)[1]: c for c in claims.CLAIMS}


def test_a_bound_in_natural_logs_is_refuted(monkeypatch):
    def natural(n, heads, width, bits):
        nlogn = n * math.log(n)
        return max(0.0, (nlogn - heads * (width + 1) * bits) / (3 * nlogn))

    monkeypatch.setattr(tasks, "peng_error_bound", natural)
    evidence = CLAIMS["theorem1_bound"].check("quick")
    assert evidence.status == "refuted", evidence.figure


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
    monkeypatch.setattr(claims, "_BOUND_RESULTS", path)
    # n = 8, H = 1, d = 1, p = 2: R = 24 - 4 = 20, bound 20 / 72 = 0.278
    jsonio.write_json(path, {"records": [record(16, 32, 0.02), record(1, 2, 0.5)]})
    evidence = CLAIMS["theorem1_trained"].check("quick")
    assert evidence.status == "measured" and "1 of 1 void" in evidence.figure, evidence.figure
    assert "0 of 1 R > 0 cells have a void cell of the same p" in evidence.figure
    # H = 1, d = 16, p = 2 at n = 8: 34 >= 24, void, and learned: the 2-bit R > 0 cell compares
    jsonio.write_json(path, {"records": [record(16, 2, 0.02), record(1, 2, 0.5)]})
    evidence = CLAIMS["theorem1_trained"].check("quick")
    assert "1 of 1 R > 0 cells have a void cell of the same p" in evidence.figure
    jsonio.write_json(path, {"records": [record(16, 32, 0.02), record(1, 2, 0.2)]})
    evidence = CLAIMS["theorem1_trained"].check("quick")
    assert evidence.status == "open", evidence.figure
    assert math.isclose(tasks.peng_error_bound(8, 1, 1, 2), 20 / 72)


def _cot_records():
    from transformer_theory.papers.peng2024 import cot

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
    from transformer_theory.papers.peng2024 import cot

    records = _cot_records()
    path = str(tmp_path / "cot.json")
    monkeypatch.setattr(claims, "_COT_RESULTS", path)
    summary = cot.steps_needed(records, 0.9)
    assert summary[0]["steps_needed"] == 2
    jsonio.write_json(path, {"records": records, "summary": summary, "target": 0.9})
    assert CLAIMS["theorem2"].check("quick").status == "measured"
    # a summary that claims one step where the records say two is caught
    jsonio.write_json(
        path, {"records": records, "summary": [summary[0] | {"steps_needed": 1}], "target": 0.9}
    )
    assert CLAIMS["theorem2"].check("quick").status == "open"
    # so is a record whose sqrt(n / (H d p)) was computed with the wrong formula
    records[1]["cot_bound"] = (4 / (8 * 8)) ** 0.5 * 2
    jsonio.write_json(
        path, {"records": records, "summary": cot.steps_needed(records, 0.9), "target": 0.9}
    )
    assert CLAIMS["theorem2"].check("quick").status == "open"
