"""The functional forward pass equals Chen & Zou 2024, eq. 2 written in the paper's column
convention.

The reference below is an independent float64 NumPy transcription of eq. 2-3 with H: (d', n),
tokens as columns: H1 = H0 + (1/m) sum_i W_V_i H0 relu(H0^T W_QK_i H0), o = W_O H1[:, n-1].
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory import ModelConfig, forward, init_params
from transformer_theory.core import forward_trace


def paper_forward(tokens, vocab, width, w_qk, w_v, w_o, act="relu"):
    n = len(tokens)
    H = np.zeros((width, n))
    for i, t in enumerate(tokens):
        H[t, i] = 1.0
        H[vocab + i, i] = 1.0
    for Wqk_l, Wv_l in zip(w_qk, w_v):
        m = len(Wqk_l)
        acc = np.zeros_like(H)
        for Wqk, Wv in zip(Wqk_l, Wv_l):
            S = H.T @ Wqk @ H  # S[j, k]: key j, query (output column) k
            if act == "relu":
                A = np.maximum(S, 0.0)
            else:
                E = np.exp(S - S.max(axis=0, keepdims=True))
                A = E / E.sum(axis=0, keepdims=True)
            acc += Wv @ H @ A
        H = H + acc / m
    return w_o @ H[:, -1]


@pytest.mark.parametrize("act", ["relu", "softmax"])
@pytest.mark.parametrize("heads", [(1,), (3,), (2, 1)])
def test_forward_matches_paper_eq2(act, heads):
    vocab, n, width = 5, 4, 11
    cfg = ModelConfig(
        vocab_size=vocab, seq_len=n, width=width, num_classes=3, heads=heads, attention=act
    )
    params = init_params(jax.random.PRNGKey(1), cfg, dtype=jnp.float64)
    rng = np.random.default_rng(0)
    f = jax.jit(forward)
    for _ in range(5):
        tokens = rng.integers(0, vocab, size=n)
        ref = paper_forward(
            tokens,
            vocab,
            width,
            [np.asarray(l.attn.w_qk) for l in params.layers],
            [np.asarray(l.attn.w_v) for l in params.layers],
            np.asarray(params.w_o),
            act,
        )
        assert_close(f(params, jnp.asarray(tokens)), ref)


def test_forward_float32_close_to_float64():
    cfg = ModelConfig(vocab_size=4, seq_len=5, width=10, num_classes=4, heads=(2, 2))
    p64 = init_params(jax.random.PRNGKey(2), cfg, dtype=jnp.float64)
    p32 = jax.tree.map(lambda x: x.astype(jnp.float32), p64)
    toks = jnp.array([0, 3, 1, 2, 3])
    assert forward(p32, toks).dtype == jnp.float32
    assert_close(forward(p32, toks), forward(p64, toks), dtype="float32", rtol=1e-4, atol=1e-4)


def test_trace_shapes():
    cfg = ModelConfig(vocab_size=4, seq_len=5, width=10, num_classes=4, heads=(2, 3))
    p = init_params(jax.random.PRNGKey(0), cfg)
    tr = forward_trace(p, jnp.array([0, 1, 2, 3, 0]))
    assert tr.streams_LxNxD.shape == (3, 5, 10)
    assert [a.shape for a in tr.attention] == [(2, 5, 5), (3, 5, 5)]


def test_vmap_over_models_and_sequences():
    from transformer_theory import init_params_batch

    cfg = ModelConfig(vocab_size=3, seq_len=3, width=6, num_classes=2, heads=(2,))
    batch = init_params_batch(jax.random.PRNGKey(0), cfg, 7, dtype=jnp.float64)
    toks = jnp.array([[0, 1, 2], [1, 0, 2]])
    out = jax.jit(jax.vmap(jax.vmap(forward, in_axes=(None, 0)), in_axes=(0, None)))(batch, toks)
    assert out.shape == (7, 2, 2)
    one = jax.tree.map(lambda x: x[3], batch)
    assert_close(out[3, 1], forward(one, toks[1]))


def test_bad_inputs_raise_value_error_naming_argument():
    with pytest.raises(ValueError, match="width"):
        ModelConfig(vocab_size=5, seq_len=4, width=8, num_classes=2)
    with pytest.raises(ValueError, match="heads"):
        ModelConfig(vocab_size=5, seq_len=4, width=9, num_classes=2, heads=(0,))
    with pytest.raises(ValueError, match="attention"):
        ModelConfig(vocab_size=5, seq_len=4, width=9, num_classes=2, attention="cosine")
    cfg = ModelConfig(vocab_size=3, seq_len=3, width=6, num_classes=2)
    p = init_params(jax.random.PRNGKey(0), cfg)
    with pytest.raises(ValueError, match="tokens_N"):
        forward(p, jnp.array([0, 1, 5]))
    with pytest.raises(ValueError, match="inputs"):
        forward(p, jnp.zeros((3, 7)))
    with pytest.raises(ValueError, match="params"):
        forward(jax.tree.map(lambda x: x[None], p), jnp.array([0, 1, 2]))
