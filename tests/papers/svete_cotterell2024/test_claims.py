"""Svete & Cotterell 2024's selection margin (:func:`._checks.selection_margin`) says nothing
certified about a construction whose keys are swapped (the mutants in ``test_mutants.py`` break
each row; ``tests/test_claims.py`` covers the statuses of the intact models)."""

import jax.numpy as jnp
import numpy as np

from transformer_theory.papers.svete_cotterell2024 import _checks as checks
from transformer_theory.papers.svete_cotterell2024 import _constructions as cn


def swap_keys(params):
    """3.1 with head 1's query and key pairs swapped: ``(W_QK h_j) . h_i`` peaks at the future key
    ``t + 1`` (masked), so among the visible keys it attends to ``t`` instead of ``t - 1``."""
    layer = params.layers[0]
    qk = np.asarray(layer.attn.w_qk).copy()
    qk[1] = qk[1].T
    attn = layer.attn.replace(w_qk=jnp.asarray(qk))
    return params.replace(layers=(layer.replace(attn=attn), *params.layers[1:]))


def test_a_perturbed_margin_is_not_certified():
    lm = checks._lm(0, 2, 3, 0.2)
    params = cn.build(lm, "3.1", max_len=6)
    assert checks.selection_margin(params, "3.1", 6)["ok"]
    margin = checks.selection_margin(swap_keys(params), "3.1", 6)
    assert not margin["ok"] and margin["min_lead_lower_bound"] < 0
