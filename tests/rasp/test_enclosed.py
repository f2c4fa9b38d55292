"""RASP checked through the exact engine: the enclosed check agrees with the float one on a small
program, and a perturbed weight is caught with its input."""

from __future__ import annotations

import jax
import pytest

from tests.rasp.test_mutants import negate_output_writer
from transformer_theory import rasp
from transformer_theory.rasp import _library

jax.config.update("jax_enable_x64", True)


def _compiled(name="reverse", vocab="ab", n=3):
    prog, v = _library.get_program(name, vocab)
    return rasp.compile(prog, v, n, rasp.PROGRAMS[name].causal)


def test_enclosed_agrees_with_float_and_certifies_every_decision():
    c = _compiled()
    f = rasp.check(c)
    e = rasp.check(c, arithmetic="enclosed")
    assert e["arithmetic"] == "enclosed" and f["arithmetic"] == "float"
    assert e["agree"] and f["agree"] and not e["internal_disagreements"]
    assert e["inputs_checked"] == f["inputs_checked"] == 14
    # the certified lower end sits at the float margin, within rounding
    assert 0.5 < e["min_margin"] <= f["min_margin"] + 1e-12
    assert abs(e["min_margin"] - f["min_margin"]) < 1e-9


def test_a_perturbed_output_weight_is_caught_with_its_input():
    c = _compiled()
    rec = rasp.check(negate_output_writer(c), arithmetic="enclosed")
    assert not rec["agree"] and rec["min_margin"] < 0
    d = rec["disagreements"][0]
    assert d["node"] == c.output.label and isinstance(d["input"], list) and d["margin"] < 0


def test_enclosed_refuses_a_float32_dtype():
    with pytest.raises(ValueError, match="float64"):
        rasp.check(_compiled(), dtype="float32", arithmetic="enclosed")
