"""Chen & Zou 2024's verifier claims (``papers/chen_zou2024/_verifier_claims.py``) notice
what breaks them.

``tests/test_claims.py`` checks every claim reaches its expected status; these check the
converse: fed a model outside a proposition's scope, a wrong coefficient vector, a library whose
float outputs disagree with the ball evaluator, or a witness search that finds nothing, the checks
return a different status (or raise), so a regression shows.
"""

import dataclasses

import numpy as np
import pytest

from transformer_theory.papers.chen_zou2024 import _verifier_claims as verifier
from transformer_theory.theory import checks, suite


@pytest.fixture(autouse=True)
def _fresh_caches():
    verifier._enclosures.cache_clear()
    verifier._suite_datasets.cache_clear()
    verifier._verdicts.cache_clear()
    yield
    verifier._enclosures.cache_clear()
    verifier._suite_datasets.cache_clear()
    verifier._verdicts.cache_clear()


def test_ball_midpoints_match_the_library_and_the_residual_is_certified():
    ev = verifier._certify_prop("10", "quick")
    assert ev.status == "certified"
    assert ev.details["midpoint_gap_to_library_float64"] <= 1e-12
    assert 0 < ev.details["max_residual_upper_bound"] <= verifier.CERTIFY_BOUND


def test_a_model_outside_the_scope_refutes_prop10(monkeypatch):
    """Three softmax heads in place of one: each head has its own Z, the ball excludes 0."""
    real = checks.random_models

    def three_heads(family, *args, **kwargs):
        if family.name == "softmax-1h":
            family = checks.FAMILIES["softmax-3h"]
        return real(family, *args, **kwargs)

    monkeypatch.setattr(checks, "random_models", three_heads)
    ev = verifier._certify_prop("10", "quick")
    assert ev.status == "refuted"
    assert ev.details["witness"]["family"] == "softmax-1h"
    assert ev.details["witness"]["residual_lower"] > 1e-3


def test_a_coefficient_vector_that_is_no_dependence_refutes_prop8(monkeypatch):
    real = suite.build_datasets

    def broken(names, *args, **kwargs):
        out = real(names, *args, **kwargs)
        first = out[0].sets[0]
        lam = np.array(first.lam_B, dtype=object)
        lam[0] += 1  # (2, 1, -1, -1): not a dependence of the paper's example
        out[0].sets[0] = dataclasses.replace(first, lam_B=lam)
        return out

    monkeypatch.setattr(suite, "build_datasets", broken)
    assert verifier._certify_prop("8", "quick").status == "refuted"


def test_the_ball_evaluator_must_agree_with_the_library(monkeypatch):
    real = checks.model_outputs_general

    def drifted(params_M, tokens):
        s, o, z = real(params_M, tokens)
        return s + 1e-6, o, z

    monkeypatch.setattr(checks, "model_outputs_general", drifted)
    with pytest.raises(RuntimeError, match="midpoints differ"):
        verifier._certify_prop("7", "quick")


def test_no_witness_means_no_refutation(monkeypatch):
    from transformer_theory.theory import witness

    real = witness.search_witness

    def nothing(*args, **kwargs):
        rec = real(*args, **kwargs)
        return dataclasses.replace(rec, found=False, params=None)

    monkeypatch.setattr(witness, "search_witness", nothing)
    assert verifier._section16_multihead("quick").status == "verified"
