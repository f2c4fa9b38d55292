"""Positional codes (Conti 2024, eq. 1, Chen & Zou 2024, eq. 3; Svete & Cotterell 2024; ALiBi) and
norms (Conti 2024, eq. 2).

NumPy references written from the papers' formulas, elementwise.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory.core import norms, positional

DTYPES = [("float64", jnp.float64), ("float32", jnp.float32)]


def np_sinusoidal(n, d, base=10000.0):
    pe = np.zeros((n, d))
    for t in range(n):
        for i in range(d):
            k = i // 2
            w = 1.0 / base ** (2 * k / d)  # omega_k = 1 / N^(2k/d), Conti 2024, eq. 1
            pe[t, i] = math.sin(w * t) if i % 2 == 0 else math.cos(w * t)
    return pe


@pytest.mark.parametrize("name,dtype", DTYPES)
def test_sinusoidal_matches_eq1(name, dtype):
    for n, d, base in [(7, 6, 10000.0), (12, 4, 50.0), (1, 2, 10000.0)]:
        got = jax.jit(positional.sinusoidal, static_argnums=(0, 1, 2, 3))(n, d, base, dtype)
        assert got.dtype == dtype
        # float32: t / base^(2k/d) rounds at ~1e-7 relative, times t <= 11 -> ~1e-6 in sin/cos.
        assert_close(got, np_sinusoidal(n, d, base), dtype=name)


def test_sinusoidal_shift_is_a_fixed_linear_map():
    """Conti 2024: PE(t+s) = R(s) PE(t) with R(s) the same for every t (a block rotation)."""
    n, d = 30, 8
    pe = np_sinusoidal(n + 10, d)
    for s in (0, 1, 3, 10):
        R = np.asarray(positional.sinusoidal_shift(s, d, dtype=jnp.float64))
        assert_close(R @ R.T, np.eye(d))  # a rotation
        for t in range(n):
            assert_close(R @ pe[t], pe[t + s])
        # R(s) is also what least squares finds from the data alone: it is determined by (PE(t),
        # PE(t+s)).
        fit, *_ = np.linalg.lstsq(pe[:n], pe[s : n + s], rcond=None)
        assert_close(fit.T, R, atol=1e-9)  # lstsq on a well-conditioned 30 x 8 system


def test_sinusoidal_shift_literal_affine_form_fails():
    """Conti 2024 writes f(t+s)^(2k) = a sin(w_k t) + b with constants a, b. An affine fit of
    sin(w_k (t+s)) on sin(w_k t) alone leaves a residual of order 1; with cos(w_k t) added
    (the rotation) the residual is zero."""
    t = np.arange(40.0)
    w, s = 0.3, 2.0
    y = np.sin(w * (t + s))
    affine = np.stack([np.sin(w * t), np.ones_like(t)], 1)
    rot = np.stack([np.sin(w * t), np.cos(w * t)], 1)
    res_affine = np.linalg.lstsq(affine, y, rcond=None)[1][0]
    res_rot = np.linalg.lstsq(rot, y, rcond=None)[1]
    assert res_affine > 1.0
    assert (res_rot.size == 0) or res_rot[0] < 1e-20


def test_embed_tokens_chen_zou_eq3_and_other_codes():
    toks = np.array([2, 0, 1, 2])
    V_, n, width = 3, 4, 10
    ref = np.zeros((n, width))
    for i, t in enumerate(toks):
        ref[i, t] = 1.0
        ref[i, V_ + i] = 1.0
    assert_close(positional.embed_tokens(jnp.asarray(toks), V_, width, dtype=jnp.float64), ref)
    sv = np.array([[math.sqrt(1 / t), math.sqrt(1 - 1 / t)] for t in range(1, n + 1)])
    assert_close(positional.svete_cotterell(n, jnp.float64), sv)
    got = positional.embed_tokens(jnp.asarray(toks), V_, width, "sinusoidal", dtype=jnp.float64)
    assert_close(got[:, V_ : V_ + 4], np_sinusoidal(n, 4))
    assert_close(got[:, V_ + 4 :], 0.0)
    assert positional.embed_tokens(jnp.asarray(toks), V_, 3, "none").shape == (4, 3)
    with pytest.raises(ValueError, match="width"):
        positional.embed_tokens(jnp.asarray(toks), V_, 6)
    with pytest.raises(ValueError, match="tokens_N"):
        positional.embed_tokens(jnp.array([0, 3]), V_, 10)
    with pytest.raises(ValueError, match="positional"):
        positional.embed_tokens(jnp.asarray(toks), V_, 10, "learned")


def test_alibi_and_relative_positions():
    n = 5
    ref = np.array([[-0.25 * abs(i - j) for j in range(n)] for i in range(n)])
    assert_close(positional.alibi_bias(n, 0.25, jnp.float64), ref)
    assert_close(positional.alibi_slopes(4, jnp.float64), 2.0 ** -np.array([2.0, 4.0, 6.0, 8.0]))
    np.testing.assert_array_equal(
        positional.relative_positions(3, 4), [[i - j for j in range(4)] for i in range(3)]
    )
    with pytest.raises(ValueError, match="dim"):
        positional.sinusoidal_shift(1, 3)
    with pytest.raises(ValueError, match="x_NxK"):
        positional.rope(jnp.zeros((2, 3)), jnp.arange(2))


def np_layernorm_sigma(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    sigma = np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True))  # population std, Conti 2024, eq. 2
    return g * (x - mu) / (sigma + eps) + b


def np_layernorm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    return g * (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps) + b


def np_rms(x, g, b, eps):
    return g * x / np.sqrt((x**2).mean(-1, keepdims=True) + eps) + b


@pytest.mark.parametrize("name,dtype", DTYPES)
def test_norms_match_numpy(name, dtype):
    rng = np.random.default_rng(0)
    x, g, b = rng.normal(size=(5, 6)) * 3 + 1, rng.normal(size=6), rng.normal(size=6)
    xj, gj, bj = (jnp.asarray(a, dtype) for a in (x, g, b))
    for fn, ref in (
        (norms.layer_norm, np_layernorm),
        (norms.layer_norm_sigma, np_layernorm_sigma),
        (norms.rms_norm, np_rms),
    ):
        for eps in (1e-6, 0.1):
            assert_close(
                jax.jit(fn, static_argnums=3)(xj, gj, bj, eps), ref(x, g, b, eps), dtype=name
            )
        assert_close(
            fn(xj), ref(x, 1.0, 0.0, 1e-5 if fn is not norms.rms_norm else 1e-6), dtype=name
        )


def test_layernorm_sigma_form_differs_from_sqrt_form_and_agrees_at_eps_zero():
    """(x - mu)/(sigma + eps) vs (x - mu)/sqrt(var + eps): equal at eps = 0, different otherwise.
    Exact ratio: sqrt(var + eps) / (sigma + eps) for every row."""
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.normal(size=(4, 5)) * 0.1)
    assert_close(norms.layer_norm_sigma(x, eps=0.0), norms.layer_norm(x, eps=0.0))
    eps = 0.01
    a, b = np.asarray(norms.layer_norm_sigma(x, eps=eps)), np.asarray(norms.layer_norm(x, eps=eps))
    var = np.var(np.asarray(x), axis=-1, keepdims=True)
    assert_close(a / b, np.broadcast_to(np.sqrt(var + eps) / (np.sqrt(var) + eps), a.shape))
    assert np.abs(a - b).max() > 1e-2


def test_norms_constant_row_finite_value_and_gradient():
    x = jnp.ones((2, 4)) * 3.0
    for fn in (norms.layer_norm, norms.layer_norm_sigma, norms.rms_norm):
        assert np.isfinite(np.asarray(fn(x))).all()
        g = jax.grad(lambda z, fn=fn: jnp.sum(fn(z) * jnp.arange(4.0)[None, :]))(x)
        assert np.isfinite(np.asarray(g)).all()
    np.testing.assert_array_equal(norms.layer_norm_sigma(x), 0.0)


def test_norm_bad_inputs():
    with pytest.raises(ValueError, match="scale"):
        norms.layer_norm(jnp.zeros((2, 3)), jnp.ones(4))
    with pytest.raises(ValueError, match="bias"):
        norms.rms_norm(jnp.zeros((2, 3)), None, jnp.ones(2))
    with pytest.raises(ValueError, match="eps"):
        norms.layer_norm_sigma(jnp.zeros((2, 3)), eps=-1.0)
    with pytest.raises(ValueError, match="x"):
        norms.layer_norm(jnp.zeros((2, 3), int))
    with pytest.raises(ValueError, match="kind"):
        norms.apply_norm("batchnorm", jnp.zeros((2, 3)))


def test_embed_long_keeps_the_code_of_seq_len_at_any_length():
    # a model laid out for seq_len = 6 reads 40 tokens: the sinusoidal block keeps its pos_dim
    # frequencies (eq. 1 evaluated at every position); tokens one-hot; the rest zeros
    from transformer_theory.params import ModelConfig

    cfg = ModelConfig(vocab_size=3, seq_len=6, width=12, num_classes=2, positional="sinusoidal")
    toks = np.arange(40) % 3
    e = np.asarray(positional.embed_long(cfg, jnp.asarray(toks), dtype=jnp.float64))
    v, p = cfg.vocab_size, cfg.pos_dim
    assert_close(e[:, :v], np.eye(v)[toks])
    assert_close(e[:, v : v + p], np_sinusoidal(40, p))
    assert_close(e[:, v + p :], 0.0)
    # left padding: the t-th valid token gets the code of position t, padding rows none
    valid = np.array([False, False, True, True, True])
    pad = np.asarray(
        positional.embed_long(cfg, jnp.zeros(5, jnp.int32), dtype=jnp.float64, valid_N=valid)
    )
    assert_close(pad[2:, v : v + p], np_sinusoidal(3, p))
    assert_close(pad[:2, v : v + p], 0.0)
    # one-hot positions exist only up to seq_len
    onehot = ModelConfig(vocab_size=3, seq_len=6, width=12, num_classes=2, positional="onehot")
    assert_close(positional.embed_long(onehot, jnp.zeros(6, jnp.int32))[:, v : v + 6], np.eye(6))
    with pytest.raises(ValueError, match="tokens_N"):
        positional.embed_long(onehot, jnp.zeros(7, jnp.int32))
