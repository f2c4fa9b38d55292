"""The formal-language claims fail when what they check breaks: a recognizer with one weight
perturbed is refuted with its witness, a float forward that drifts from the exact evaluation leaves
the claim open, a committed experiment whose construction misses is refuted. (tests/test_claims.py
runs every claim at the quick tier; these feed each check something broken.)"""

import json

import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory.papers.formal_languages import claims, constructions
from transformer_theory.papers.formal_languages.tasks import BOS

CHECKS = {c.id: c.check for c in claims.CLAIMS}


def _with_value(params, layer, row, col, value):
    """``params`` with one entry of one layer's ``W_V`` replaced."""
    lp = params.layers[layer]
    w_v = lp.attn.w_v.at[0, row, col].set(value)
    layers = list(params.layers)
    layers[layer] = lp.replace(attn=lp.attn.replace(w_v=w_v))
    return params.replace(layers=tuple(layers))


def test_majority_without_its_tie_breaker_is_refuted_with_a_tie(monkeypatch):
    built = constructions.majority

    def broken(confidence=1.0, dtype=jnp.float64):
        return _with_value(built(confidence, dtype), 0, 3, BOS, 0.5)  # BOS writes +1/2

    monkeypatch.setattr(constructions, "majority", broken)
    ev = CHECKS["formal_languages.majority"]("quick")
    assert ev.status == "refuted", ev.figure
    # The first string, "0", is still rejected, but its margin is no longer the derived one.
    assert "margin differs" in ev.figure and ev.details["witness"]["string"] == [0]


def test_dyck1_without_the_final_depth_term_is_refuted(monkeypatch):
    built = constructions.dyck1

    def broken(confidence=1.0, dtype=jnp.float64):
        p = built(confidence, dtype)
        lp = p.layers[1]
        mlp = lp.mlp.replace(w2=jnp.zeros_like(lp.mlp.w2))  # no -|r_last|
        layers = (p.layers[0], lp.replace(mlp=mlp))
        return p.replace(layers=layers)

    monkeypatch.setattr(constructions, "dyck1", broken)
    ev = CHECKS["formal_languages.dyck1"]("quick")
    assert ev.status == "refuted" and "misclassified" in ev.figure, ev.figure
    s = ev.details["witness"]["string"]
    assert sum(1 if x == 0 else -1 for x in s) != 0  # unbalanced, yet accepted


def test_a_float_forward_that_drifts_from_the_exact_margins_leaves_the_row_open(monkeypatch):
    plain = constructions.decision_margins
    monkeypatch.setattr(
        constructions, "decision_margins", lambda params, strings: plain(params, strings) + 1e-6
    )
    ev = CHECKS["formal_languages.parity_no_layernorm"]("quick")
    assert ev.status == "open" and "float64_disagreement" in ev.details, ev.figure


def test_the_exact_evaluation_decides_layernorm_margins_by_squaring():
    model = claims._ExactModel(constructions.build("parity"))
    m = model.margin([BOS, 1, 1, 0])  # two ones: not a member
    assert m.sign() == -1 and m.a * m.a / m.q == 80
    assert abs(float(m.arb().mid()) + 4 * np.sqrt(5)) < 1e-12


def test_the_exact_evaluation_refuses_softmax_with_unequal_scores():
    p = constructions.build("parity")
    lp = p.layers[0]
    lp = lp.replace(attn=lp.attn.replace(w_qk=lp.attn.w_qk.at[0, 3, 3].set(1.0)))
    with pytest.raises(NotImplementedError, match="softmax"):
        claims._ExactModel(p.replace(layers=(lp, p.layers[1]))).margin([BOS, 1, 0, 1])


def _results(tmp_path, constructed_accuracy):
    out = tmp_path / "experiments" / "results"
    out.mkdir(parents=True)
    records = [
        {
            "language": "parity",
            "model": "leftmost-hard (trained, straight-through)",
            "seed": 0,
            "final_loss": 0.69,
            "accuracy": [0.5, 0.49],
        },
        {
            "language": "parity",
            "model": "constructed",
            "seed": None,
            "final_loss": None,
            "accuracy": [1.0, constructed_accuracy],
        },
    ]
    (out / "languages_generalization.json").write_text(json.dumps({"records": records}))


def test_hahn_training_reads_a_committed_run(monkeypatch, tmp_path):
    _results(tmp_path, 1.0)
    monkeypatch.setattr(claims, "_ROOT", str(tmp_path))
    ev = CHECKS["formal_languages.hahn_training"]("full")
    assert ev.status == "measured" and "committed run" in ev.figure
    assert "hard-attention 0.50" in ev.figure


def test_hahn_training_is_refuted_when_the_construction_misses(monkeypatch, tmp_path):
    _results(tmp_path, 0.97)
    monkeypatch.setattr(claims, "_ROOT", str(tmp_path))
    assert CHECKS["formal_languages.hahn_training"]("full").status == "refuted"


def test_the_float64_table_is_refuted_when_a_row_falls_below_its_derived_margin(monkeypatch):
    from transformer_theory.papers.formal_languages import study

    def fake(settings):
        entry = {"length": 4, "strings": 16, "exhaustive": True, "accuracy": 1.0}
        return [
            {
                "construction": "majority",
                "accuracy": 1.0,
                "strings_checked": 16,
                "min_margin": 0.1,  # the derived smallest is 1/5
                "by_length": [{**entry, "min_margin": 0.1}],
            }
        ]

    monkeypatch.setattr(study, "check_rows", fake)
    ev = CHECKS["formal_languages.table_float64"]("quick")
    assert ev.status == "refuted" and ev.details["max_shortfall_over_tolerance"] > 1
