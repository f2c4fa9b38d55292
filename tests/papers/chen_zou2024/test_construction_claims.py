"""The construction claims of the ledger (``papers/chen_zou2024/_construction_claims.py``)
derive their
status from what they compute: a broken model is refuted with a witness, not reported proved.

``tests/test_claims.py`` runs every claim at the quick tier; this file feeds the checks broken
models (the builders monkeypatched to perturb one weight) and broken inputs.
"""

import dataclasses
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory import constructions
from transformer_theory.papers.chen_zou2024 import _construction_claims as cz
from transformer_theory.params import AttentionParams, LayerParams
from transformer_theory.tasks import InContextQA, InContextTemplateMatching, all_templates

jax.config.update("jax_enable_x64", True)


def _claim(name):
    return next(c for c in cz.CLAIMS if c.id == f"chen_zou2024.{name}")


def test_theorem3_with_swapped_answer_rows_is_refuted_with_a_witness(monkeypatch):
    good = constructions.theorem3

    def broken(task, **kw):
        p = good(task, **kw)
        w_o = np.asarray(p.w_o).copy()
        w_o[[0, 1]] = w_o[[1, 0]]  # answers 0 and 1 exchanged
        return dataclasses.replace(p, w_o=jnp.asarray(w_o))

    monkeypatch.setattr(constructions, "theorem3", broken)
    ev = _claim("theorem3_reasoning").check("quick")
    assert ev.status == "refuted"
    assert ev.details["min_margin"] == -3.0
    tokens = np.asarray(ev.details["witness_tokens"])
    assert ev.details["witness_label"] in (0, 1) and tokens.shape == (8,)
    # The corrected claim of the printed classifier reads the same check: no longer 'corrected'.
    assert _claim("theorem3_printed_classifier").check("quick").status != "corrected"


def test_theorem6_with_a_halved_layer3_value_misses_the_promised_margin(monkeypatch):
    """Halving W_V^(3) keeps every answer right but the margin drops to 1/(2l) < 1/l: the claim
    (margin >= 1/l) is refuted, exactly."""
    good = constructions.theorem6

    def broken(task, **kw):
        p = good(task, **kw)
        last = p.layers[-1]
        attn = AttentionParams(w_v=last.attn.w_v * 0.5, w_qk=last.attn.w_qk)
        return dataclasses.replace(p, layers=(*p.layers[:-1], LayerParams(attn=attn)))

    monkeypatch.setattr(constructions, "theorem6", broken)
    ev = _claim("theorem6_contextual").check("quick")
    assert ev.status == "refuted"
    assert Fraction(ev.details["min_margin_exact"]) == Fraction(1, 4)


def test_theorem5_with_a_perturbed_classifier_is_refuted(monkeypatch):
    good = constructions.theorem5

    def broken(task, **kw):
        p = good(task, **kw)
        w_o = np.asarray(p.w_o).copy()
        w_o[0] = w_o[1]  # templates 0 and 1 now tie
        return dataclasses.replace(p, w_o=jnp.asarray(w_o))

    monkeypatch.setattr(constructions, "theorem5", broken)
    ev = _claim("theorem5_single_head").check("quick")
    assert ev.status == "refuted" and ev.details["min_margin"] <= 0


def test_exact_pass_matches_float64_and_refuses_non_dyadic_attention():
    task = InContextTemplateMatching(3, 3, all_templates(2), 2)
    params = constructions.theorem6(task)
    tokens, labels = task.all()
    ex = cz._exact_margins(params, np.asarray(tokens)[:300], np.asarray(labels)[:300])
    assert ex["min_margin"] == Fraction(1, 2) and ex["denominator"] == 4  # eq. 2's 1/(2l)
    noisy = dataclasses.replace(
        params,
        layers=(
            LayerParams(
                attn=AttentionParams(
                    w_v=params.layers[0].attn.w_v * (1 + 2**-45), w_qk=params.layers[0].attn.w_qk
                )
            ),
            *params.layers[1:],
        ),
    )
    with pytest.raises(ArithmeticError, match="dyadic"):
        cz._exact_margins(noisy, np.asarray(tokens)[:10], np.asarray(labels)[:10])


def test_exact_margins_of_a_dyadic_classifier_equal_fraction_arithmetic():
    """A W_O with entries 2^-60 and 1e-300 (a huge common exponent): the exact pass gives the
    same minimum margin as Fraction arithmetic on the library's (integer) float64 streams."""
    from transformer_theory.constructions._common import last_streams

    task = InContextQA(2, 2, 1)
    params = constructions.theorem3(task)
    w_o = np.asarray(params.w_o) * 2.0**-60
    w_o[0, 0] = 1e-300
    w_o[1, 5] = -3.5
    params = dataclasses.replace(params, w_o=jnp.asarray(w_o))
    tokens, labels = (np.asarray(a) for a in task.all())
    ex = cz._exact_margins(params, tokens, labels)
    streams = last_streams(params, tokens)
    want = None
    for h, y in zip(streams, labels):
        logits = [
            sum(Fraction(float(w)) * Fraction(float(v)) for w, v in zip(row, h)) for row in w_o
        ]
        m = logits[y] - max(v for c, v in enumerate(logits) if c != y)
        want = m if want is None else min(want, m)
    assert ex["min_margin"] == want


def test_figure2_claims_say_open_without_the_results_file(monkeypatch, tmp_path):
    monkeypatch.setattr(cz, "_FIG2_CSV", tmp_path / "missing.csv")
    ev = _claim("fig2_reasoning").check("quick")
    assert ev.status == "open"
