"""Barbero et al. 2024's claims turn on what the checks find: fed a broken model, formula or bound,
each returns a status other than its expected one (tests/test_claims.py checks the statuses on the
library as it is)."""

from __future__ import annotations

import jax
import pytest

from transformer_theory.papers.barbero2024 import claims, collapse, models, oversquash

BY_ID = {c.id: c for c in claims.CLAIMS}


def test_every_claim_is_barbero_and_the_open_ones_say_why():
    assert all(c.id.startswith("barbero2024.") for c in claims.CLAIMS)
    for c in claims.CLAIMS:
        if c.expected == "open":
            assert "not" in c.check("quick").figure


def test_wrong_path_counts_are_refuted(monkeypatch):
    right = oversquash.causal_path_counts
    # an off-by-one in the binomial's depth: the count of one layer fewer
    monkeypatch.setattr(
        oversquash,
        "causal_path_counts",
        lambda n, d: right(n, max(d - 1, 1)) if d > 2 else right(n, d),
    )
    ev = BY_ID["barbero2024.path_counts"].check("quick")
    assert ev.status == "refuted" and ev.details["witness"]


def test_a_wrong_derived_limit_is_refuted(monkeypatch):
    right = collapse.one_layer_limit
    monkeypatch.setattr(collapse, "one_layer_limit", lambda p, **k: 1.05 * right(p, **k))
    ev = BY_ID["barbero2024.collapse_limit_one_layer"].check("quick")
    assert ev.status == "refuted", ev.figure


def test_a_model_that_does_not_collapse_at_rate_one_over_n_is_refuted(monkeypatch):
    # the builder hands back an ALiBi model where the claim asks for one without positions
    build = claims._model
    monkeypatch.setattr(claims, "_model", lambda d, pos, **k: build(d, "alibi", **k))
    ev = BY_ID["barbero2024.collapse_rate_no_position"].check("quick")
    assert ev.status == "refuted", ev.figure


@pytest.mark.parametrize("claim", ["barbero2024.oversquash_bound"])
def test_a_bound_without_the_softmax_derivative_is_refuted(monkeypatch, claim):
    # Drop the softmax derivative (score gradients zero): the edge constants shrink and the
    # sensitivities exceed the "bound"; a fresh jit so no compiled bound is reused.
    original = oversquash._score_gradients
    monkeypatch.setattr(
        oversquash,
        "_score_gradients",
        lambda *a: tuple(jax.numpy.zeros_like(x) for x in original(*a)),
    )
    monkeypatch.setattr(
        oversquash, "_bound", jax.jit(lambda p, e: oversquash.sensitivity_bound(p, e))
    )
    ev = BY_ID[claim].check("quick")
    assert ev.status == "refuted", ev.figure


def test_the_models_are_readmes():
    p = claims._model(1, "none")
    assert p.config == models.causal_pre_ln_config(1, 1, "none", width=32)
