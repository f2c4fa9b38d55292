"""The NNX Transformer is a lossless view of ModelParams and computes exactly core.forward (Chen &
Zou 2024, eq. 1-3)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from tests.helpers import assert_close
from transformer_theory.nn import Transformer, from_params, to_params
from transformer_theory.params import ModelConfig, init_params

# Kept to three configs: each costs several seconds of eager compilation on a loaded 2-core machine.
CONFIGS = [
    ModelConfig(vocab_size=4, seq_len=5, width=11, num_classes=3, heads=(2, 1)),
    ModelConfig(
        vocab_size=4,
        seq_len=5,
        width=9,
        num_classes=2,
        heads=(2, 2),
        attention="softmax",
        norm1="layernorm",
        mlp_hidden=6,
        norm2="rmsnorm",
        final_norm="layernorm",
    ),
    ModelConfig(
        vocab_size=4, seq_len=6, width=10, num_classes=3, heads=(2,), qk_dim=4, relative="rope"
    ),
]


def _leaves_equal(a, b):
    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"heads{c.heads}")
def test_nn_round_trip_is_exact(config):
    params = init_params(jax.random.key(3), config, dtype=jnp.float64)
    module = from_params(params)
    back = to_params(module)
    assert back.config == params.config
    assert jax.tree.structure(back) == jax.tree.structure(params)
    _leaves_equal(back, params)
    # And the other way: a module drawn from rngs survives module -> params -> module.
    m1 = Transformer(config, rngs=nnx.Rngs(7), dtype=jnp.float64)
    m2 = from_params(to_params(m1))
    _leaves_equal(nnx.state(m1, nnx.Param), nnx.state(m2, nnx.Param))


def _numpy_forward_relu(params, tokens):
    """Independent float64 reference of Chen & Zou 2024, eq. 2-3 for plain ReLU configs (paper
    layout, H: (D, n))."""
    cfg = params.config
    d, n, D = cfg.vocab_size, cfg.seq_len, cfg.width
    H = np.zeros((D, n))
    H[tokens, np.arange(n)] = 1.0
    H[d + np.arange(n), np.arange(n)] = 1.0
    for layer in params.layers:
        wqk, wv = np.asarray(layer.attn.w_qk), np.asarray(layer.attn.w_v)
        m = wqk.shape[0]
        H = H + sum(wv[h] @ H @ np.maximum(H.T @ wqk[h] @ H, 0.0) for h in range(m)) / m
    return np.asarray(params.w_o) @ H[:, -1]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"heads{c.heads}")
def test_nn_forward_equals_core_and_reference(config):
    from transformer_theory.core.forward import forward

    params = init_params(jax.random.key(5), config, dtype=jnp.float64)
    module = from_params(params)
    tokens = jax.random.randint(jax.random.key(1), (6, config.seq_len), 0, config.vocab_size)
    got = nnx.jit(lambda m, t: m(t))(module, tokens)
    want = jax.jit(jax.vmap(lambda t: forward(params, t)))(tokens)
    # One implementation: both sides trace core.forward. Not asserted bitwise because XLA may fuse
    # the
    # two traced programs differently; float64 agreement to 1e-12 relative is what we rely on.
    assert_close(got, want, dtype="float64", rtol=1e-12, atol=1e-12)
    if (
        config.attention == "relu"
        and config.qk_dim is None
        and config.norm1 is None
        and config.mlp_hidden is None
    ):
        ref = np.stack([_numpy_forward_relu(params, np.asarray(t)) for t in tokens])
        assert_close(got, ref, dtype="float64")


def test_nn_functional_split_merge_preserves_outputs():
    config = CONFIGS[2]
    module = Transformer(config, rngs=nnx.Rngs(0))
    graphdef, state = nnx.split(module)
    tokens = jnp.array([[0, 1, 2, 3, 1]], jnp.int32)
    out = jax.jit(lambda s, t: nnx.merge(graphdef, s)(t))(state, tokens)
    # float32 model; jit vs eager may fuse differently, so agreement to float32 rounding.
    assert_close(out, module(tokens), dtype="float32")


def test_nn_errors_name_the_argument():
    config = CONFIGS[0]
    with pytest.raises(ValueError, match="rngs"):
        Transformer(config)
    with pytest.raises(ValueError, match="config"):
        Transformer("not a config", rngs=nnx.Rngs(0))
    other = init_params(jax.random.key(0), CONFIGS[1])
    with pytest.raises(ValueError, match="params"):
        Transformer(config, params=other)
    with pytest.raises(ValueError, match="params"):
        from_params("nope")
    with pytest.raises(ValueError, match="tokens_BxN"):
        Transformer(config, rngs=nnx.Rngs(0))(jnp.zeros((5,), jnp.int32))
