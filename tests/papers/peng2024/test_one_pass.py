"""The trained one-pass experiment (Peng et al. 2024, Theorem 1, pair-token prompts): the
mode-guess error against a counter, the convergence rule, and the experiment's smoke run."""

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from transformer_theory.papers.peng2024 import _models_one_pass as one_pass
from transformer_theory.papers.peng2024 import _tasks as tasks

EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"


def _g_table(tokens, n):
    """g read from its entries ``n^2 + j n + g(j)`` (the specification)."""
    return {(int(t) - n * n) // n: int(t) % n for t in tokens[n : 2 * n]}


def test_mode_error_against_a_counter():
    n = 4
    tokens, answers = tasks.pair_sample(11, 300, n)
    wrong = 0
    for row, a in zip(tokens, answers):
        g = _g_table(row, n)
        counts = Counter(g.values())
        top = max(counts.values())
        guess = min(c for c, k in counts.items() if k == top)
        wrong += guess != a
    assert one_pass.mode_error(tokens, answers, n) == wrong / 300


def test_converged_rule():
    assert one_pass.converged([5.0] * 10 + [1.0] * 10)
    assert not one_pass.converged([5.0] * 18 + [1.0] * 2)
    assert one_pass.converged([3.0] * 18 + [0.005] * 2)
    assert not one_pass.converged([1.0])


def test_composition_one_pass_smoke(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "composition_one_pass", EXPERIMENTS / "composition_one_pass.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--smoke", "--out", str(tmp_path)]) == 0
    records = json.loads((tmp_path / "records.json").read_text())
    assert [(r["heads"], r["d"], r["p"]) for r in records] == [(2, 8, 32), (1, 1, 2)]
    for r in records:
        assert 0 <= r["error"] <= 1 and r["quantize"] == "messages"
        nlogn = 2.0
        assert r["R"] == pytest.approx(nlogn - r["heads"] * (r["d"] + 1) * r["p"])
    built = json.loads((tmp_path / "construction.json").read_text())
    assert built[0]["n"] == 2 and built[0]["bits"] == 3
    assert (tmp_path / "composition_one_pass.png").exists()


@pytest.mark.parametrize("script", ["composition_one_pass", "composition_bound"])
def test_a_negative_seed_is_one_line_and_exit_2_before_any_work(script, tmp_path, capsys):
    spec = importlib.util.spec_from_file_location(script, EXPERIMENTS / f"{script}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--smoke", "--set", "seed=-1", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: --seed: expected an int >= 0, got -1"
    assert not (tmp_path / "out").exists()  # checked before the output directory is made
