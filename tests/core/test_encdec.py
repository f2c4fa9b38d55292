"""Conti's Post-LN encoder and decoder blocks against a float64 NumPy transcription.

The reference follows Conti 2024, §1.2.2 with the paper's shapes: Q^h(x) = W_{h,q}^T x with
W_{h,q} in R^{d x k}; u'_i = sum_h W_{c,h}^T sum_j alpha^h_ij V^h(x_j); LayerNorm of eq. 2 with
(sigma + eps); then §1.2.5: masked self-attention (eq. 10), cross-attention (queries from the
decoder, keys/values from the encoder), feed-forward, each followed by residual + LayerNorm.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory.core import encdec

# Jit everything the tests call: eager op-by-op dispatch is the slow part on a shared 2-core box.
init_enc = jax.jit(encdec.init_encoder_block, static_argnums=(1, 2, 3, 4), static_argnames="dtype")
init_dec = jax.jit(encdec.init_decoder_block, static_argnums=(1, 2, 3, 4), static_argnames="dtype")
encoder_block = jax.jit(encdec.encoder_block, static_argnames=("norm", "eps", "activation"))


def np_ln(z, g, b, eps):
    mu = z.mean(-1, keepdims=True)
    sigma = np.sqrt(((z - mu) ** 2).mean(-1, keepdims=True))
    return g * (z - mu) / (sigma + eps) + b


def np_mha(p, X, Z, causal=False):
    H, d, k = p.w_q.shape
    out = np.zeros((X.shape[0], d))
    for h in range(H):
        Wq, Wk, Wv, Wc = (np.asarray(a[h]) for a in (p.w_q, p.w_k, p.w_v, p.w_c))
        for i in range(X.shape[0]):
            s = np.array([(Wq.T @ X[i]) @ (Wk.T @ Z[j]) / np.sqrt(k) for j in range(Z.shape[0])])
            if causal:
                s[i + 1 :] = -np.inf  # eq. 10: M has -inf above the diagonal
            a = np.exp(s - s.max())
            a /= a.sum()
            out[i] += Wc.T @ sum(a[j] * (Wv.T @ Z[j]) for j in range(Z.shape[0]))
    return out


def np_ffn(f, u):
    W1, b1, W2, b2 = (np.asarray(a) for a in (f.w1, f.b1, f.w2, f.b2))
    return np.stack([W2 @ np.maximum(W1 @ x + b1, 0) + b2 for x in u])


def norm_args(n):
    return np.asarray(n.scale), np.asarray(n.bias)


def np_encoder(p, X, eps=1e-6):
    u = np_ln(X + np_mha(p.attn, X, X), *norm_args(p.norm1), eps)
    return np_ln(u + np_ffn(p.ffn, u), *norm_args(p.norm2), eps)


def np_decoder(p, Y, Z, eps=1e-6):
    u = np_ln(Y + np_mha(p.self_attn, Y, Y, causal=True), *norm_args(p.norm1), eps)
    u2 = np_ln(u + np_mha(p.cross_attn, u, Z), *norm_args(p.norm2), eps)
    return np_ln(u2 + np_ffn(p.ffn, u2), *norm_args(p.norm3), eps)


@pytest.mark.parametrize("name,dtype", [("float64", jnp.float64), ("float32", jnp.float32)])
def test_encoder_and_decoder_blocks_match_numpy(name, dtype):
    key = jax.random.PRNGKey(0)
    d, H, m = 8, 2, 16
    enc = init_enc(jax.random.fold_in(key, 1), d, H, m, dtype=jnp.float64)
    dec = init_dec(jax.random.fold_in(key, 2), d, H, m, dtype=jnp.float64)
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(6, d)), rng.normal(size=(4, d))
    Z_ref = np_encoder(enc, X)
    out_ref = np_decoder(dec, Y, Z_ref)
    cast = lambda t: jax.tree.map(lambda a: a.astype(dtype), t)  # noqa: E731
    Z, w = jax.jit(encdec.encoder_block)(cast(enc), jnp.asarray(X, dtype))
    # float32: two LayerNorms divide by sigma ~ 1 and the inputs are O(1): 1e-5 relative suffices.
    assert_close(Z, Z_ref, dtype=name, atol=1e-4 if name == "float32" else None)
    assert w.shape == (H, 6, 6)
    out, (ws, wc) = jax.jit(encdec.decoder_block)(
        cast(dec), jnp.asarray(Y, dtype), jnp.asarray(Z_ref, dtype)
    )
    assert_close(out, out_ref, dtype=name, atol=1e-4 if name == "float32" else None)
    assert ws.shape == (H, 4, 4) and wc.shape == (H, 4, 6)
    np.testing.assert_array_equal(np.triu(np.asarray(ws), 1), 0.0)
    # (The stacks encode/decode are checked through greedy decoding below.)


def test_encoder_block_sqrt_layernorm_option():
    """norm="layernorm" swaps eq. 2's (sigma + eps) for sqrt(var + eps); the two differ for eps >
    0."""
    enc = init_enc(jax.random.PRNGKey(3), 4, 1, 8, dtype=jnp.float64)
    X = jnp.asarray(np.random.default_rng(1).normal(size=(3, 4)))
    a = encoder_block(enc, X, eps=0.5)[0]
    b = encoder_block(enc, X, norm="layernorm", eps=0.5)[0]
    assert np.abs(np.asarray(a) - np.asarray(b)).max() > 1e-3
    assert_close(
        encoder_block(enc, X, eps=0.0)[0], encoder_block(enc, X, norm="layernorm", eps=0.0)[0]
    )


def test_decoder_is_causal_in_its_own_inputs_by_jacobian():
    """Decoder output i does not depend on decoder inputs j > i (eq. 10), but does on all encoder
    rows."""
    dec = init_dec(jax.random.PRNGKey(4), 6, 3, 8, 2, dtype=jnp.float64)
    rng = np.random.default_rng(2)
    Y, Z = jnp.asarray(rng.normal(size=(5, 6))), jnp.asarray(rng.normal(size=(3, 6)))
    jy, jz = jax.jit(jax.jacobian(lambda y, z: encdec.decoder_block(dec, y, z)[0], argnums=(0, 1)))(
        Y, Z
    )
    jy, jz = np.asarray(jy), np.asarray(jz)  # (5, 6, 5, 6), (5, 6, 3, 6)
    for i in range(5):
        np.testing.assert_array_equal(jy[i, :, i + 1 :], 0.0)
        assert np.abs(jy[i, :, : i + 1]).max() > 0
        assert np.abs(jz[i]).max() > 0


def test_cross_mask_and_encoder_padding_mask():
    enc = init_enc(jax.random.PRNGKey(5), 4, 2, 8, dtype=jnp.float64)
    X = jnp.asarray(np.random.default_rng(3).normal(size=(5, 4)))
    valid = jnp.array([True, True, True, False, False])
    mask = valid[None, :] & jnp.ones((5, 1), bool)
    Zm = encoder_block(enc, X, mask)[0]
    # Padding keys do not influence the real positions: equal to running on the 3 real tokens.
    assert_close(Zm[:3], encoder_block(enc, X[:3])[0])


def test_encdec_bad_inputs():
    with pytest.raises(ValueError, match="num_heads"):
        encdec.init_encoder_block(jax.random.PRNGKey(0), 6, 4, 8)
    with pytest.raises(ValueError, match="ffn_hidden"):
        encdec.init_decoder_block(jax.random.PRNGKey(0), 6, 2, 0)
    enc = init_enc(jax.random.PRNGKey(0), 4, 2, 8)
    with pytest.raises(ValueError, match="x_QxD"):
        encoder_block(enc, jnp.zeros((3, 5)))
    with pytest.raises(ValueError, match="norm"):
        encoder_block(enc, jnp.zeros((3, 4)), norm="batchnorm")
    dec = init_dec(jax.random.PRNGKey(0), 4, 2, 8)
    with pytest.raises(ValueError, match="z_KxD"):
        jax.jit(encdec.decoder_block)(dec, jnp.zeros((3, 4)), jnp.zeros((2, 3)))
    with pytest.raises(ValueError, match="self_mask_TxT"):
        jax.jit(encdec.decoder_block)(
            dec, jnp.zeros((3, 4)), jnp.zeros((2, 4)), jnp.ones((2, 2), bool)
        )


def np_sinusoidal(n, d):
    return np.array(
        [
            [
                np.sin(t / 10000 ** (2 * (i // 2) / d))
                if i % 2 == 0
                else np.cos(t / 10000 ** (2 * (i // 2) / d))
                for i in range(d)
            ]
            for t in range(n)
        ]
    )


def test_seq2seq_embed_matches_conti2024():
    rng = np.random.default_rng(4)
    W = rng.normal(size=(5, 6))
    toks = np.array([4, 0, 2])
    assert_close(
        encdec.seq2seq_embed(jnp.asarray(W), jnp.asarray(toks)),
        W[toks] * np.sqrt(6) + np_sinusoidal(3, 6),
    )


def test_greedy_decode_equals_numpy_autoregression():
    """The fixed-buffer decoder (one compile) equals autoregression on growing prefixes, computed
    with the NumPy blocks above (embedding X W^E sqrt(d) + sinusoidal P, output Y P)."""
    params = encdec.init_seq2seq(jax.random.PRNGKey(6), 7, 8, 2, 12, 1, dtype=jnp.float64)
    src = np.array([1, 5, 2, 6, 3])
    bos, length = 0, 4
    got = np.asarray(
        jax.jit(encdec.greedy_decode, static_argnums=(2, 3))(params, jnp.asarray(src), bos, length)
    )
    W, Pout = np.asarray(params.embed), np.asarray(params.w_p)
    emb = lambda t: W[t] * np.sqrt(8) + np_sinusoidal(len(t), 8)  # noqa: E731
    Z = np_encoder(params.encoder[0], emb(src))
    prefix = [bos]
    for _ in range(length):
        y = np_decoder(params.decoder[0], emb(np.array(prefix)), Z)
        prefix.append(int(np.argmax(y[-1] @ Pout)))
    np.testing.assert_array_equal(got, prefix[1:])
    assert got.dtype == np.int32
    with pytest.raises(ValueError, match="bos"):
        encdec.greedy_decode(params, jnp.asarray(src), 9, 3)
    with pytest.raises(ValueError, match="src_N"):
        encdec.greedy_decode(params, jnp.array([0, 7]), 0, 3)
    with pytest.raises(ValueError, match="width"):
        encdec.init_seq2seq(jax.random.PRNGKey(0), 5, 7, 1, 4)
