"""Svete & Cotterell 2024's claims fail when the model they check is broken: a construction whose
attention weight is perturbed is no longer certified (tests/test_claims.py covers the statuses
of the intact models)."""

import jax.numpy as jnp
import numpy as np

from transformer_theory.papers.svete_cotterell2024 import claims as sc_claims
from transformer_theory.papers.svete_cotterell2024 import constructions as cn


def _claim(name):
    return next(c for c in sc_claims.CLAIMS if c.id == f"svete_cotterell2024.{name}")


def _swap_keys(params):
    """3.1 with head 1's query and key pairs swapped: ``(W_QK h_j) . h_i`` peaks at the future key
    ``t + 1`` (masked), so among the visible keys it attends to ``t`` instead of ``t - 1``."""
    layer = params.layers[0]
    qk = np.asarray(layer.attn.w_qk).copy()
    qk[1] = qk[1].T
    attn = layer.attn.replace(w_qk=jnp.asarray(qk))
    return params.replace(layers=(layer.replace(attn=attn), *params.layers[1:]))


def test_a_perturbed_theorem31_is_not_certified(monkeypatch):
    sc_claims._equivalence.cache_clear()
    real = cn.build

    def broken(lm, construction="3.1", **kw):
        return _swap_keys(real(lm, construction, **kw))

    monkeypatch.setattr(cn, "build", broken)
    try:
        evidence = _claim("theorem31").check("quick")
    finally:
        sc_claims._equivalence.cache_clear()
    assert evidence.status != "certified", evidence.figure
    assert evidence.status == "refuted"


def test_a_perturbed_margin_is_not_certified():
    lm = sc_claims._lm("quick")
    params = cn.build(lm, "3.1", max_len=6)
    assert sc_claims._selection_margin(params, "3.1", 6)["ok"]
    margin = sc_claims._selection_margin(_swap_keys(params), "3.1", 6)
    assert not margin["ok"] and margin["min_lead_lower_bound"] < 0
