"""Conti 2024's claims derive their status from the library: a broken library function gives a
different status, never the expected one (tests/test_claims.py covers the expected statuses)."""

import jax.numpy as jnp
import numpy as np

from transformer_theory.core import attention, beam, linear
from transformer_theory.papers.conti2024 import claims, heads

BY_ID = {c.id: c for c in claims.CLAIMS}


def test_every_claim_is_conti2024s_and_exports_only_claims():
    assert claims.__all__ == ["CLAIMS"]
    assert all(c.id.startswith("conti2024.") and c.paper == "Conti 2024" for c in claims.CLAIMS)
    statuses = {c.expected for c in claims.CLAIMS}
    # every kind the thesis's statements call for (Linformer's JL claim, the last open one, is
    # now checked: corrected)
    assert {"corrected", "certified", "verified", "refuted", "measured"} <= statuses


def test_the_printed_jacobian_in_the_library_is_a_regression(monkeypatch):
    real = attention.softmax_jacobian

    def printed(s_K):  # the printed sign: -s_i (1 - s_i) on the diagonal of rows 2..n
        j = real(s_K)
        n = s_K.shape[0]
        flip = jnp.where(jnp.arange(n) > 0, -1.0, 1.0).astype(j.dtype)
        return j * jnp.where(jnp.eye(n, dtype=bool), flip[:, None], 1.0)

    monkeypatch.setattr(attention, "softmax_jacobian", printed)
    ev = BY_ID["conti2024.softmax_jacobian"].check("quick")
    assert ev.status == "refuted", ev.figure


def test_causal_linear_attention_that_looks_ahead_is_refuted(monkeypatch):
    real = linear.linear_attention

    def leaky(q, k, v, feature_map=None, *, causal=False):  # ignores the causal prefix
        return real(q, k, v, feature_map, causal=False)

    monkeypatch.setattr(linear, "linear_attention", leaky)
    ev = BY_ID["conti2024.causal_linear_attention"].check("quick")
    assert ev.status == "refuted", ev.figure


def test_a_classifier_that_always_says_positional_is_refuted(monkeypatch):
    real = heads.classify_map

    def always_positional(a, options=None):
        return dict(real(a, options or heads.HeadOptions()), kind="positional")

    monkeypatch.setattr(heads, "classify_map", always_positional)
    ev = BY_ID["conti2024.heads_synthetic"].check("quick")
    assert ev.status == "refuted"
    assert ev.details["misclassified"]


def test_a_beam_search_without_the_counterexample_is_not_refuted(monkeypatch):
    real = beam.beam_search

    def greedy_for_all(logprob_fn, bos, length, beam_size, vocab_size):  # every k returns beam 1
        return real(logprob_fn, bos, length, 1, vocab_size)

    monkeypatch.setattr(beam, "beam_search", greedy_for_all)
    ev = BY_ID["conti2024.beam_larger_never_worse"].check("quick")
    assert ev.status != "refuted", ev.figure


def test_a_scale_of_one_over_k_in_the_library_is_refuted(monkeypatch):
    monkeypatch.setattr(attention, "scale_scores", lambda s, k: s / np.float64(k))
    ev = BY_ID["conti2024.scale_sqrt_k"].check("quick")
    assert ev.status == "refuted"
    assert ev.details["witness"] == {"k": 4, "var_of_qk_over_k": "1/4"}
