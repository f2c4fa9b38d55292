"""The shared guards: positivity refuses NaN/inf, the JSON writer is strict, the budget refuses."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from transformer_theory import budget, jsonio
from transformer_theory._validate import check_finite, check_positive


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), 0, -1, None, "3"])
def test_check_positive_refuses_nan_inf_and_nonpositive(bad):
    with pytest.raises(ValueError, match="beta"):
        check_positive("beta", bad)


def test_check_positive_accepts_and_options():
    check_positive("x", 1e-300)
    check_positive("x", np.float32(2))
    check_positive("x", 0, allow_zero=True)
    check_positive("x", float("inf"), allow_inf=True)
    with pytest.raises(ValueError):
        check_positive("x", float("nan"), allow_inf=True, allow_zero=True)


def test_check_finite():
    check_finite("a", np.ones(3))
    with pytest.raises(ValueError, match="a:"):
        check_finite("a", np.array([1.0, np.nan]))


def _strict(text):
    def refuse(name):
        raise ValueError(name)

    return json.loads(text, parse_constant=refuse)


def test_json_nonfinite_become_null_with_reason(tmp_path):
    rec = {"loss": float("nan"), "rows": [{"x": np.float32(np.inf)}, {"x": 1}], "a": np.arange(2)}
    path = jsonio.write_json(str(tmp_path / "r.json"), rec)
    with open(path) as f:
        got = _strict(f.read())
    assert got["loss"] is None and got["rows"][0]["x"] is None and got["a"] == [0, 1]
    assert got["nonfinite"] == {"loss": "nan", "rows[0].x": "inf"}
    assert jsonio.read_json(path) == got


def test_json_refuses_unknown_objects_without_touching_the_file(tmp_path):
    path = tmp_path / "r.json"
    jsonio.write_json(str(path), {"ok": 1})
    with pytest.raises(TypeError):
        jsonio.write_json(str(path), {"bad": object()})
    assert jsonio.read_json(str(path)) == {"ok": 1}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_read_json_refuses_nan_literal(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"a": NaN}')
    with pytest.raises(ValueError, match="NaN"):
        jsonio.read_json(str(p))


def test_budget_refuses_with_estimate(monkeypatch):
    monkeypatch.setenv("TT_MEMORY_BUDGET", "1G")
    assert budget.available_memory() == 2**30
    budget.check_memory(100 * 2**20, what="a table", option="--order")
    with pytest.raises(budget.BudgetError, match=r"--order: a table needs about 2\.0 GiB"):
        budget.check_memory(2 * 2**30, what="a table", option="--order")
    with pytest.raises(budget.BudgetError):
        budget.check_memory(math.inf, what="a table", option="--order")
    monkeypatch.setenv("TT_TIME_BUDGET", "60")
    with pytest.raises(budget.BudgetError, match="2 min"):
        budget.check_seconds(120, what="the scan", option="--scan-limit")
    with pytest.raises(ValueError, match="strings: .*1,000"):
        budget.check_count("strings", 1000, 10)


def test_available_memory_is_positive_without_override(monkeypatch):
    monkeypatch.delenv("TT_MEMORY_BUDGET", raising=False)
    assert budget.available_memory() > 0


def test_compiled_bytes_matches_the_buffers():
    import jax
    import jax.numpy as jnp

    x = jax.ShapeDtypeStruct((1024, 256), jnp.float32)
    got = budget.compiled_bytes(lambda a: a @ a.T, x)
    # argument 1 MiB + output 4 MiB at least; XLA may add temporaries, never less than that.
    assert got >= (1024 * 256 + 1024 * 1024) * 4
