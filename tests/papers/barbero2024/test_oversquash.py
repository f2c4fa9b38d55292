"""Over-squashing: exact Jacobians against finite differences, the analytic layer Jacobian against
``jax.jacrev``, the certified bound holding, path products and path counts against NumPy."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from tests.papers.barbero2024 import _reference
from transformer_theory.core.forward import forward_trace
from transformer_theory.core.layers import attention_layer
from transformer_theory.core.positional import embed_long
from transformer_theory.papers.barbero2024 import _theory_oversquash as oversquash

TOKENS = np.array([1, 0, 2, 1, 3, 1])


def model(positional="rope", depth=2, heads=2, **changes):
    return _reference.random_model(positional, depth, heads, width=10, scale=2.0, **changes)


def embedding(params, tokens=TOKENS):
    return embed_long(params.config, tokens, dtype=jnp.float64)


def test_jacobian_matches_finite_differences():
    params = model("rope")
    emb = embedding(params)
    sens = np.asarray(jax.jit(oversquash.sensitivities)(params, emb))
    f = jax.jit(lambda e: oversquash._last_outputs(params, e)[-1])
    step = 1e-5
    n, width = emb.shape
    for i in range(n):
        cols = []
        for d in range(width):
            bump = jnp.zeros_like(emb).at[i, d].set(step)
            cols.append((f(emb + bump) - f(emb - bump)) / (2 * step))
        fd = np.stack([np.asarray(c) for c in cols], axis=1)
        # central differences: truncation ~ step^2 * f''' ~ 1e-10, rounding ~ eps / step ~ 1e-11
        assert_close(sens[-1, i], np.linalg.norm(fd, 2), rtol=1e-6, atol=1e-8)


# Three layers that between them exercise every term: RoPE, ALiBi with an absolute code, W_QK
# (Chen & Zou 2024's form), summed heads, GELU, no norm1 / norm2, bidirectional attention.
VARIANTS = [
    dict(positional="rope", head_mean=False, mlp_activation="gelu"),
    dict(positional="sinusoidal", relative="alibi", heads=3, qk_dim=None),
    dict(positional="none", causal=False, norm1=None, norm2=None),
]


@pytest.mark.parametrize(
    "variant", VARIANTS, ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items())
)
def test_analytic_layer_jacobian_is_the_autodiff_one(variant):
    variant = dict(variant)
    params = model(variant.pop("positional"), depth=1, heads=variant.pop("heads", 2), **variant)
    cfg = params.config
    h = embedding(params)
    trace = forward_trace(params, h)
    layer = params.layers[0]
    auto = jax.jit(jax.jacrev(lambda x: attention_layer(layer, x, cfg)[0]))(h)
    analytic = jax.jit(oversquash.layer_jacobian, static_argnums=2)(
        layer, h, cfg, trace.attention[0]
    )
    # a few dozen float64 products of O(1..10) entries
    assert_close(analytic, auto, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("positional", ["rope", "sinusoidal+alibi"])
def test_bound_holds(positional):
    if positional == "rope":
        params = model("rope", depth=2)
    else:  # an absolute code in the stream and a relative bias in the scores, one model
        params = model("sinusoidal", depth=2, relative="alibi")
    sens_fn, bound_fn = jax.jit(oversquash.sensitivities), jax.jit(oversquash.sensitivity_bound)
    for tokens in (TOKENS, np.array([1, 1, 1, 1, 1, 0])):
        emb = embedding(params, tokens)
        sens = np.asarray(sens_fn(params, emb))
        b = bound_fn(params, emb)
        edge, att = np.asarray(b["edge_LxN"]), np.asarray(b["attention_LxN"])
        # the bound is exact arithmetic on exact Jacobians: only float64 rounding separates them
        assert np.all(sens <= edge * (1 + 1e-10)), (sens / edge).max()
        assert np.all(edge <= att * (1 + 1e-10))
        # and it is not vacuous: within a few orders of magnitude of the measured sensitivities
        assert np.max(sens / edge) > 1e-3


def test_bound_uses_the_softmax_derivative():
    # Drop the softmax derivative (treat the attention weights as constants, g = 0): the edge
    # constants shrink and the "bound" fails on this model -- the derivative term is needed.
    params = model("rope", depth=2)
    emb = embedding(params)
    sens = np.asarray(jax.jit(oversquash.sensitivities)(params, emb))
    original = oversquash._score_gradients
    try:
        oversquash._score_gradients = lambda *a: tuple(jnp.zeros_like(x) for x in original(*a))
        b = oversquash.sensitivity_bound(params, emb)
    finally:
        oversquash._score_gradients = original
    assert np.any(sens > np.asarray(b["edge_LxN"]) * (1 + 1e-6))


def test_attention_paths_are_matrix_products():
    params = model("rope", depth=2)
    emb = embedding(params)
    lam = np.asarray(oversquash.attention_matrices(params, emb))
    paths = np.asarray(oversquash.attention_paths(jnp.asarray(lam)))
    acc = np.eye(lam.shape[1])
    for layer in range(lam.shape[0]):
        acc = lam[layer] @ acc
        assert_close(paths[layer], acc)
    assert_close(lam.sum(-1), np.ones(lam.shape[:2]))  # row-stochastic
    assert np.all(np.triu(lam, 1) == 0)  # causal: lower-triangular


def test_causal_path_counts_are_powers_of_the_causal_graph():
    for n in range(1, 8):
        t = np.tril(np.ones((n, n), dtype=object))
        for depth in range(1, 5):
            power = np.linalg.matrix_power(t, depth)
            assert oversquash.causal_path_counts(n, depth) == [int(x) for x in power[-1]]
    # exact beyond float precision: C(2000 + 19, 19) has 45 digits
    big = oversquash.causal_path_counts(2001, 20)[0]
    assert big == math.comb(2019, 19) and big > 10**44


def test_record_and_errors():
    params = model("rope")
    rec = oversquash.oversquash_record(params, embedding(params))
    assert rec["bound_holds"] and len(rec["sensitivity"]) == 2 and rec["length"] == len(TOKENS)
    assert [int(c) for c in rec["path_count"]] == oversquash.causal_path_counts(len(TOKENS), 2)
    with pytest.raises(ValueError, match="params"):
        relu = params.replace(config=params.config.replace(attention="relu"))
        oversquash.sensitivity_bound(relu, embedding(params))
    with pytest.raises(ValueError, match="embedding_NxD"):
        oversquash.sensitivities(params, jnp.zeros((4, 3)))
