"""Mutants of the exact engine's enclosure rows (transformer_theory.claims.engine): break an
operation's enclosure (drop its radius, round an input through float32) and its row must no
longer be reproduced."""

from __future__ import annotations

import numpy as np
import pytest

from tests.mutants import mutant, status_of
from transformer_theory import exact
from transformer_theory.claims import engine

E = "exact."


def _pointwise(fn):
    """``fn`` with the radius of its ball dropped: a point, no longer an enclosure."""
    return lambda *a: fn(*a).mid()


def _in_floats(fn):
    """``fn`` computed in float64 and returned as an exact point: an engine that silently
    computes in floats."""
    import flint

    return lambda *a: flint.arb(float(fn(*a).mid()))


@mutant(E + "ball_exp")
def test_an_exp_without_its_radius_is_seen(monkeypatch):
    monkeypatch.setattr(exact._Balls, "exp", _pointwise(exact._Balls.exp))
    assert status_of("exact.ball_exp") == "unreproduced"


@mutant(E + "ball_exp", E + "ball_softmax")
def test_an_exp_in_floats_is_seen(monkeypatch):
    monkeypatch.setattr(exact._Balls, "exp", _in_floats(exact._Balls.exp))
    assert status_of("exact.ball_exp") == "unreproduced"
    assert status_of("exact.ball_softmax") == "unreproduced"


@mutant(E + "ball_rsqrt", E + "ball_layernorm", E + "ball_rmsnorm")
def test_an_rsqrt_without_its_radius_is_seen(monkeypatch):
    monkeypatch.setattr(exact._Balls, "rsqrt", _pointwise(exact._Balls.rsqrt))
    for row in ("ball_rsqrt", "ball_layernorm", "ball_rmsnorm"):
        assert status_of(E + row) == "unreproduced", row


@mutant(E + "ball_sqrt")
def test_a_sqrt_without_its_radius_is_seen(monkeypatch):
    monkeypatch.setattr(exact._Balls, "sqrt_int", _pointwise(exact._Balls.sqrt_int))
    assert status_of("exact.ball_sqrt") == "unreproduced"


@mutant(E + "ball_gelu")
def test_a_gelu_without_its_radius_is_seen(monkeypatch):
    monkeypatch.setattr(exact._Balls, "gelu", _pointwise(exact._Balls.gelu))
    assert status_of("exact.ball_gelu") == "unreproduced"


@mutant(E + "ball_division", E + "ball_softmax", E + "ball_layernorm_sigma")
def test_a_division_without_its_radius_is_seen(monkeypatch):
    monkeypatch.setattr(exact._Balls, "div", _pointwise(exact._Balls.div))
    for row in ("ball_division", "ball_softmax", "ball_layernorm_sigma"):
        assert status_of(E + row) == "unreproduced", row


@mutant(E + "ball_log")
def test_a_log_without_its_radius_is_seen(monkeypatch):
    monkeypatch.setattr(exact._Balls, "log", _pointwise(exact._Balls.log))
    assert status_of("exact.ball_log") == "unreproduced"


@mutant(E + "ball_sqrt")
def test_a_real_sqrt_without_its_radius_is_seen(monkeypatch):
    monkeypatch.setattr(exact._Balls, "sqrt", _pointwise(exact._Balls.sqrt))
    assert status_of("exact.ball_sqrt") == "unreproduced"


@mutant(E + "ball_layernorm_sigma", E + "ball_layernorm")
def test_inputs_rounded_through_float32_are_seen(monkeypatch):
    import flint

    monkeypatch.setattr(exact._Balls, "scalar", lambda self, x: flint.arb(float(np.float32(x))))
    assert status_of("exact.ball_layernorm_sigma") == "unreproduced"
    assert status_of("exact.ball_layernorm") == "unreproduced"


def test_containment_is_decided_in_rationals():
    from fractions import Fraction

    import flint

    third = flint.arb(1) / 3
    lo, hi = engine.endpoints(third)
    assert lo < Fraction(1, 3) < hi
    assert engine.contains(third, Fraction(1, 3), Fraction(1, 3))
    assert not engine.contains(third.mid(), Fraction(1, 3), Fraction(1, 3))
    assert not engine.contains(flint.arb("nan"), Fraction(0), Fraction(0))


@pytest.mark.parametrize("row", engine.CLAIMS, ids=[r.id for r in engine.CLAIMS])
def test_each_engine_row_is_a_finding_of_samples(row):
    assert row.quantifier == "continuum" and row.printed is None


def test_an_exact_ball_of_an_exact_value_is_an_enclosure():
    # sqrt 16 = 4 is exact in arb (radius 0) and in decimal: the reference is the point, so a
    # point ball is right there (the full tier's perfect squares once read as misses)
    from fractions import Fraction

    import flint

    lo, hi = engine._sqrt_iv(Fraction(16))
    assert lo == hi == 4
    assert engine.contains(flint.arb(16).sqrt(), lo, hi)
    lo, hi = engine._sqrt_iv(Fraction(2))
    assert lo < hi and engine.contains(flint.arb(2).sqrt(), lo, hi)


# ------------------------------------------------ a broken engine moves every row it enclosed

#: Cheap rows whose checks enclose in the engine's balls (a score, a unit's error, a Jacobian).
_ENCLOSED_ROWS = (
    "svete_cotterell2024.score_maximized_at_target",
    "sanford2023.qsa_upper",
    "conti2024.softmax_saturation",
)


@mutant(*_ENCLOSED_ROWS)
@pytest.mark.parametrize("op", ["exp", "log", "div", "sqrt", "rsqrt"])
def test_an_operation_without_its_radius_fails_every_enclosed_row(monkeypatch, op):
    # the rows' own witnesses (a float64 value inside its ball, widened by its rounding) cannot
    # see a point where a ball should be: the engine's own rows do, and the rule reads them
    monkeypatch.setattr(exact._Balls, op, _pointwise(getattr(exact._Balls, op)))
    from transformer_theory.claims import runner

    for claim_id in _ENCLOSED_ROWS:
        (row,) = [c for c in runner.all_claims() if c.id == claim_id]
        record = runner._check(row, "quick")
        assert record.status == "failed", (claim_id, record.figure)
        assert "engine is unsound" in record.reason, record.reason


def test_faults_are_checked_again_once_an_operation_is_replaced(monkeypatch):
    assert engine.faults() == ()
    with monkeypatch.context() as m:
        m.setattr(exact._Balls, "log", _pointwise(exact._Balls.log))
        assert engine.faults() == ("log",)
    assert engine.faults() == ()


def test_an_exact_check_does_not_rest_on_the_balls(monkeypatch):
    # rationals have no radius to drop: a broken ball exp leaves an exact row where it was
    monkeypatch.setattr(exact._Balls, "exp", _pointwise(exact._Balls.exp))
    assert status_of("formal_languages.majority", exhaustive=3, sampled=(), samples=1) == (
        "bounded"
    )


def test_every_ball_operation_is_one_the_engine_checks_itself_on():
    # an operation added to the ball arithmetic without a row of its own would go unchecked;
    # comparisons and constants carry no radius of their own
    ops = {
        m for m in vars(exact._Balls) if not m.startswith("_") and callable(vars(exact._Balls)[m])
    }
    assert ops - {"greater", "equal", "one", "zeros"} <= set(engine._ENGINE_PARTS)
    checked = {"exp", "log", "div", "sqrt", "rsqrt", "sqrt_int", "gelu"}
    assert checked <= ops
