"""Every mask argument takes one type: a boolean "may attend" mask. Anything else raises.

An additive float mask ``M`` (0 where allowed, ``-inf`` where blocked) used to be cast with
``astype(bool)``, which reads ``0.`` as blocked and ``-inf`` as allowed: the causal mask became
anti-causal without a word. These tests fail on that cast.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory import ModelConfig, forward, init_params
from transformer_theory.core import attention, encdec, forward_trace, layers, linear, masks

N = 4


def _causal_bool():
    return jnp.asarray(np.tril(np.ones((N, N), bool)))


def _additive(mask_bool):
    return jnp.where(mask_bool, 0.0, -jnp.inf)


def _numpy_masked_softmax_attention(q, k, v, allowed):
    """float64 reference: ``softmax(q k^T / sqrt(E))`` over the allowed keys, times ``v``."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    s = q @ k.T / np.sqrt(q.shape[1])
    s = np.where(allowed, s, -np.inf)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return w @ v


def test_additive_float_mask_is_refused_not_inverted():
    q = jax.random.normal(jax.random.key(0), (N, 3), jnp.float32)
    v = jax.random.normal(jax.random.key(1), (N, 2), jnp.float32)
    causal = _causal_bool()
    with pytest.raises(ValueError, match=r"mask_QxK: expected a boolean mask.*M == 0"):
        attention.dot_product_attention(q, q, v, mask_QxK=_additive(causal))
    # The conversion the message gives is the causal mask, and the output is causal attention.
    out, w = attention.dot_product_attention(q, q, v, mask_QxK=_additive(causal) == 0)
    np.testing.assert_allclose(  # float32 attention of O(1) inputs: rounding ~1e-7
        np.asarray(out), _numpy_masked_softmax_attention(q, q, v, np.asarray(causal)), atol=1e-5
    )
    assert float(jnp.abs(jnp.triu(w, 1)).max()) == 0.0  # nothing above the diagonal


def _model_config():
    return ModelConfig(vocab_size=3, seq_len=N, width=3 + N + 2, num_classes=2)


def _every_mask_argument():
    """``(argument name, call(mask))`` for every public function of core/ that takes a mask."""
    key = jax.random.key(2)
    scores = jax.random.normal(key, (N, N))
    x = jax.random.normal(key, (N, 6))
    cfg = _model_config()
    params = init_params(key, cfg)
    stream = jax.random.normal(key, (N, cfg.width))
    mh = encdec.init_multi_head(key, 6, 2)
    enc = encdec.init_encoder_block(key, 6, 2, 8)
    dec = encdec.init_decoder_block(key, 6, 2, 8)
    return [
        ("mask_QxK", lambda m: attention.softmax_weights(scores, m)),
        ("mask_QxK", lambda m: attention.relu_weights(scores, m)),
        ("mask_QxK", lambda m: attention.softmax_normalizer(scores, m)),
        ("mask_QxK", lambda m: attention.attention_weights(scores, "hard_average", m)),
        ("mask_QxK", lambda m: attention.attention_weights(scores, "sparsemax", m)),
        ("mask_QxK", lambda m: attention.kernel_attention(x, x, x, None, None, m)),
        ("mask_QxK", lambda m: attention.dot_product_attention(x, x, x, m)),
        ("mask_NxN", lambda m: layers.attention_layer(params.layers[0], stream, cfg, m)),
        ("mask_NxN", lambda m: forward_trace(params, jnp.arange(N) % 3, m)),
        ("mask_NxN", lambda m: forward(params, jnp.arange(N) % 3, m)),
        ("mask_NxK", lambda m: linear.linear_attention_quadratic(x, x, x, mask_NxK=m)),
        ("mask_QxK", lambda m: encdec.multi_head_attention(mh, x, None, m)),
        ("mask_NxN", lambda m: encdec.encoder_block(enc, x, m)),
        ("self_mask_TxT", lambda m: encdec.decoder_block(dec, x, x, self_mask_TxT=m)),
        ("cross_mask_TxN", lambda m: encdec.decoder_block(dec, x, x, cross_mask_TxN=m)),
        ("mask_NxN", lambda m: masks.constrained_w_pp(m, 10.0)),
    ]


NUM_CALLS = 16


def test_the_list_covers_every_call():
    assert len(_every_mask_argument()) == NUM_CALLS


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.int32])
@pytest.mark.parametrize("index", range(NUM_CALLS))
def test_every_mask_argument_refuses_non_boolean(index, dtype):
    name, call = _every_mask_argument()[index]
    allowed = _causal_bool()
    call(allowed)  # the boolean mask works
    with pytest.raises(ValueError, match=rf"^{name}: expected a boolean mask"):
        call(allowed.astype(dtype))
    # Under jit the dtype is static: the same error, at trace time.
    with pytest.raises(ValueError, match=rf"^{name}: expected a boolean mask"):
        jax.jit(call)(allowed.astype(dtype))


def test_padding_mask_refuses_non_boolean_validity():
    with pytest.raises(ValueError, match=r"^valid_N: expected a boolean vector"):
        masks.padding_mask(jnp.asarray([1.0, 1.0, 0.0]))
    np.testing.assert_array_equal(
        masks.padding_mask(jnp.asarray([True, False])), [[True, False], [True, False]]
    )
