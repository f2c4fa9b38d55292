"""The fast training forward pass equals the general dense one: logits, loss and gradients.

:func:`transformer_theory.nn.fast.batch_logits` rewrites the first layer as lookups and gathers,
the second through the first, the one before the last as its weights only and the last for the
last query only; that is the same function of the weights, so on the same
weights and batch its logits, cross-entropy and parameter gradients must equal the dense path's
(``core.forward`` vmapped) to float64 rounding. Tolerance 1e-10 relative: the two paths sum the
same ~width*N products in another order (float64 eps 2.2e-16 times a few hundred terms and the
magnitudes of these random models), far below any real difference (a dropped positional term
changes logits at 1e-1). A depth-1 and a depth-3 case are also checked against eq. 1-3 written in
NumPy here.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory.nn.fast import batch_logits, dense_logits, supports
from transformer_theory.params import ModelConfig, init_params
from transformer_theory.train.loop import cross_entropy

# Every branch of the fast path: depth 1 (lookup + last query), depth 2 (the first layer's weights
# feeding the last two layers), depth 3 (the second layer read through the first), depths 4-5
# (general all-query layers), several heads in each role, w_q/w_k (also in middle layers), causal
# softmax with scaling, summed heads, a final norm, a non-one-hot positional code.
CASES = [
    dict(heads=(2, 1, 3)),
    dict(heads=(2,), qk_dim=4, attention="softmax", causal=True, scale_scores=True),
    dict(heads=(1, 2), head_mean=False, final_norm="layernorm", positional="sinusoidal"),
    # middle layers with w_q/w_k, a causal mask and scaling (depth 4: two middle layers)
    dict(heads=(1, 2, 2, 1), qk_dim=4, attention="softmax", causal=True, scale_scores=True),
    # depth 5: a general all-query layer after the one read through the first
    dict(heads=(1, 2, 1, 2, 2), attention="softmax"),
]


def _model(kw, seed=0):
    cfg = ModelConfig(vocab_size=5, seq_len=6, width=16, num_classes=4, **kw)
    return init_params(jax.random.key(seed), cfg, dtype=jnp.float64)


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_fast_loss_and_gradients_equal_dense(kw):
    params = _model(kw)
    assert supports(params.config)
    tokens = jax.random.randint(jax.random.key(1), (7, 6), 0, 5)
    labels = jax.random.randint(jax.random.key(2), (7,), 0, 4)

    @jax.jit
    def both(p):
        def loss(q, fast):
            return cross_entropy(batch_logits(q, tokens, fast=fast), labels)

        return [jax.value_and_grad(loss)(p, f) for f in (True, False)]

    (lf, gf), (ld, gd) = both(params)
    assert abs(float(ld)) > 0.1  # a real loss, not a degenerate 0 = 0
    np.testing.assert_allclose(lf, ld, rtol=1e-10)
    for a, b in zip(jax.tree.leaves(gf), jax.tree.leaves(gd), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_one_layer_equals_numpy_eq_1_to_3():
    """Chen & Zou 2024, eq. 1-3 for one ReLU layer, written here in float64 NumPy."""
    params = _model(dict(heads=(2,)), seed=3)
    tokens = np.array(jax.random.randint(jax.random.key(4), (3, 6), 0, 5))
    a = params.layers[0].attn
    w_qk, w_v, w_o = (np.asarray(x) for x in (a.w_qk, a.w_v, params.w_o))
    want = []
    for seq in tokens:
        x = np.zeros((6, 16))
        x[np.arange(6), seq] = 1.0
        x[np.arange(6), 5 + np.arange(6)] = 1.0  # one-hot positions after the 5 token ids
        out = x[-1].copy()
        for h in range(2):
            s = x @ (w_qk[h] @ x[-1])
            out += np.maximum(s, 0.0) @ (x @ w_v[h].T) / 2  # unnormalized ReLU, mean of 2 heads
        want.append(w_o @ out)
    got = jax.jit(batch_logits)(params, jnp.asarray(tokens))
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_three_layers_equal_numpy_eq_1_to_3():
    """Chen & Zou 2024, eq. 1-3 for three ReLU layers (2, 1 and 2 heads), every query of the
    first two, written here in float64 NumPy: each branch of the fast path at once."""
    params = _model(dict(heads=(2, 1, 2)), seed=5)
    tokens = np.array(jax.random.randint(jax.random.key(6), (4, 6), 0, 5))
    want = []
    for seq in tokens:
        h = np.zeros((6, 16))
        h[np.arange(6), seq] = 1.0
        h[np.arange(6), 5 + np.arange(6)] = 1.0
        for layer in params.layers:
            w_qk, w_v = np.asarray(layer.attn.w_qk), np.asarray(layer.attn.w_v)
            heads = w_v.shape[0]
            # s_ij = (W_QK h_i) . h_j; out_i = h_i + mean_h sum_j relu(s_ij) W_V h_j
            h = (
                h
                + sum(np.maximum(h @ w_qk[k].T @ h.T, 0.0) @ (h @ w_v[k].T) for k in range(heads))
                / heads
            )
        want.append(np.asarray(params.w_o) @ h[-1])
    got = jax.jit(batch_logits)(params, jnp.asarray(tokens))
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_unsupported_configs_take_the_dense_path():
    params = _model(dict(heads=(1,), mlp_hidden=8))
    assert not supports(params.config)
    tokens = jnp.zeros((2, 6), jnp.int32)
    np.testing.assert_array_equal(
        jax.jit(batch_logits)(params, tokens), jax.jit(dense_logits)(params, tokens)
    )
    with pytest.raises(ValueError, match="tokens_BxN"):
        batch_logits(params, tokens[0])
