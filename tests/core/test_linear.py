"""Linear attention, its Taylor form and Linformer (Conti 2024, §2.1.2-2.1.3) against float64 NumPy.

The reference is Conti 2024, eq. 13 written as a loop: V'_i = sum_j sim(q_i, k_j) v_j / sum_j
sim(q_i, k_j)
over j (j <= i when causal), with sim = phi(q) . phi(k) computed in NumPy.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory.core import attention, kernels, linear

DTYPES = [("float64", jnp.float64), ("float32", jnp.float32)]


def np_elu1(x):
    return np.where(x > 0, x + 1.0, np.exp(x))


def np_unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def ref_eq13(q, k, v, sim, causal):
    n = q.shape[0]
    out = np.zeros((n, v.shape[1]))
    for i in range(n):
        js = range(i + 1) if causal else range(k.shape[0])
        num = sum(sim(q[i], k[j]) * v[j] for j in js)
        den = sum(sim(q[i], k[j]) for j in js)
        out[i] = num / den
    return out


def qkv(seed, n=7, e=4, d=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, e)), rng.normal(size=(n, e)), rng.normal(size=(n, d))


@pytest.mark.parametrize("name,dtype", DTYPES)
@pytest.mark.parametrize("causal", [False, True])
def test_linear_attention_elu_matches_eq13(name, dtype, causal):
    q, k, v = qkv(0)
    ref = ref_eq13(q, k, v, lambda a, b: np_elu1(a) @ np_elu1(b), causal)
    args = [jnp.asarray(a, dtype) for a in (q, k, v)]
    f = jax.jit(linear.linear_attention, static_argnames=("feature_map", "causal"))
    assert_close(f(*args, causal=causal), ref, dtype=name)
    out_q, w = linear.linear_attention_quadratic(*args, causal=causal)
    assert_close(out_q, ref, dtype=name)
    assert_close(np.asarray(w).sum(-1), np.ones(7), dtype=name)


def squared_features(x):  # a user feature map: phi(x) = x * x (non-negative), width E
    return x * x


@pytest.mark.parametrize("causal", [False, True])
def test_user_feature_map_linear_equals_quadratic(causal):
    q, k, v = qkv(1, n=9)
    ref = ref_eq13(q, k, v, lambda a, b: (a * a) @ (b * b), causal)
    args = [jnp.asarray(a) for a in (q, k, v)]
    assert_close(linear.linear_attention(*args, squared_features, causal=causal), ref)
    assert_close(linear.linear_attention_quadratic(*args, squared_features, causal=causal)[0], ref)


@pytest.mark.parametrize("causal", [False, True])
def test_taylor_attention_matches_corrected_conti2024_formula(causal):
    """sim = 1 + q^.k^ (q^, k^ l2-normalized): explicit weights and the paper's "simplified" line
    V'_i = (sum_j v_j + (sum_j v_j k^_j^T) q^_i) / (n_i + q^_i . sum_j k^_j) agree with the O(N)
    form."""
    q, k, v = qkv(2)
    ref = ref_eq13(q, k, v, lambda a, b: 1.0 + np_unit(a) @ np_unit(b), causal)
    got = jax.jit(linear.taylor_attention, static_argnames="causal")(
        *(jnp.asarray(a) for a in (q, k, v)), causal=causal
    )
    assert_close(got, ref)
    qh, kh = np_unit(q), np_unit(k)
    simplified = np.zeros_like(ref)
    for i in range(7):
        js = slice(0, i + 1) if causal else slice(None)
        nj = len(range(7)[js])
        num = v[js].sum(0) + (v[js].T @ kh[js]) @ qh[i]
        simplified[i] = num / (nj + qh[i] @ kh[js].sum(0))
    assert_close(simplified, ref)
    # Non-negativity that motivates the normalization: 1 + q^.k^ in [0, 2].
    w = np.asarray(
        linear.linear_attention_quadratic(
            *(jnp.asarray(a) for a in (q, k, v)), kernels.taylor_feature_map
        )[0]
    )
    assert np.isfinite(w).all()


def test_taylor_literal_printed_formula_fails():
    """Conti 2024 prints the numerator as sum_j (1 + q^_i^T sum_j k^_j) V_j (inner sum over all
    keys):
    every key then gets the same weight, i.e. plain averaging, which is not the Taylor kernel."""
    q, k, v = qkv(3)
    qh, kh = np_unit(q), np_unit(k)
    n = 7
    literal = np.stack(
        [
            sum((1 + qh[i] @ kh.sum(0)) * v[j] for j in range(n))
            / sum(1 + qh[i] @ kh[j] for j in range(n))
            for i in range(n)
        ]
    )
    got = np.asarray(linear.taylor_attention(*(jnp.asarray(a) for a in (q, k, v))))
    assert np.abs(literal - got).max() > 1e-2


def test_causal_linear_attention_is_causal_by_jacobian():
    """d out_i / d (q, k, v)_j is exactly 0 for every j > i (prefix sums only look back)."""
    q, k, v = (jnp.asarray(a) for a in qkv(4, n=6))
    for fn in (
        lambda a, b, c: linear.linear_attention(a, b, c, causal=True),
        lambda a, b, c: linear.taylor_attention(a, b, c, causal=True),
    ):
        jac = jax.jit(jax.jacobian(fn, argnums=(0, 1, 2)))(q, k, v)  # each (N, D, N, E)
        for arg, J in zip("qkv", jac):
            J = np.asarray(J)
            for i in range(6):
                np.testing.assert_array_equal(J[i, :, i + 1 :], 0.0)
            if arg != "q":  # output i reads only query i, but keys/values of every j <= i
                assert np.abs(J[5, :, :5]).max() > 0


def test_linear_attention_zero_denominator_gives_zero_not_nan():
    q = jnp.zeros((3, 2))
    k = jnp.zeros((3, 2))
    v = jnp.ones((3, 2))
    relu_phi = jax.nn.relu  # phi(0) = 0: every similarity is 0
    out = jax.jit(linear.linear_attention, static_argnums=3, static_argnames="causal")(
        q, k, v, relu_phi, causal=True
    )
    np.testing.assert_array_equal(out, 0.0)
    g = jax.jit(jax.grad(lambda a: jnp.sum(linear.linear_attention(a, k, v, relu_phi))))(q)
    assert np.isfinite(np.asarray(g)).all()
    # Taylor with a zero query: q^ = 0, uniform weights, finite gradients.
    qz = jnp.zeros((3, 2)).at[1].set(1.0)
    kk = jnp.asarray(np.random.default_rng(0).normal(size=(3, 2)))
    vv = jnp.asarray(np.random.default_rng(1).normal(size=(3, 2)))
    val, g = jax.jit(jax.value_and_grad(lambda a: jnp.sum(linear.taylor_attention(a, kk, vv)[0])))(
        qz
    )
    assert_close(val, np.asarray(vv).mean(0).sum())  # row 0: zero query -> uniform weights
    assert np.isfinite(np.asarray(g)).all()


def np_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("name,dtype", DTYPES)
def test_linformer_matches_eq17(name, dtype):
    rng = np.random.default_rng(5)
    n, e, d, kp = 8, 4, 3, 3
    q, k, v = qkv(5, n, e, d)
    E, F = rng.normal(size=(kp, n)) / np.sqrt(n), rng.normal(size=(kp, n)) / np.sqrt(n)
    w_ref = np_softmax(q @ (E @ k).T / np.sqrt(e))
    out, w = jax.jit(linear.linformer_attention)(*(jnp.asarray(a, dtype) for a in (q, k, v, E, F)))
    assert w.shape == (n, kp)
    assert_close(w, w_ref, dtype=name)
    assert_close(out, w_ref @ (F @ v), dtype=name)


def test_linformer_with_identity_projections_is_full_attention():
    q, k, v = (jnp.asarray(a) for a in qkv(6))
    eye = jnp.eye(7)
    assert_close(
        linear.linformer_attention(q, k, v, eye, eye)[0],
        attention.dot_product_attention(q, k, v)[0],
    )


def test_linear_bad_inputs():
    q = jnp.zeros((4, 2))
    with pytest.raises(ValueError, match="v_NxD"):
        linear.linear_attention(q, q, jnp.zeros((3, 2)))
    with pytest.raises(ValueError, match="k_NxE"):
        linear.linear_attention(q, jnp.zeros((4, 3)), q)
    with pytest.raises(ValueError, match="feature_map"):
        linear.linear_attention(q, q, q, feature_map=lambda x: x[0])
    with pytest.raises(ValueError, match="feature_map"):
        linear.linear_attention(q, q, q, feature_map="elu")
    with pytest.raises(ValueError, match="e_RxN"):
        linear.linformer_attention(q, q, q, jnp.zeros((2, 3)), jnp.zeros((2, 4)))
    with pytest.raises(ValueError, match="f_RxN"):
        linear.linformer_attention(q, q, q, jnp.zeros((2, 4)), jnp.zeros((3, 4)))
    with pytest.raises(ValueError, match="causal"):
        linear.linear_attention_quadratic(q, jnp.zeros((5, 2)), jnp.zeros((5, 2)), causal=True)
    with pytest.raises(ValueError, match="q_NxE"):
        linear.linear_attention(jnp.zeros((4, 2), int), q, q)


def test_feature_maps_match_numpy():
    x = np.random.default_rng(8).normal(size=(4, 3))
    x[2] = 0.0
    assert_close(kernels.elu_plus_one(jnp.asarray(x)), np_elu1(x))
    unit = np.zeros_like(x)
    for i in range(4):
        nrm = np.sqrt((x[i] ** 2).sum())
        unit[i] = x[i] / nrm if nrm > 0 else 0.0
    assert_close(kernels.l2_normalize(jnp.asarray(x)), unit)
    assert_close(
        kernels.taylor_feature_map(jnp.asarray(x)), np.concatenate([np.ones((4, 1)), unit], 1)
    )
    g = jax.grad(lambda a: jnp.sum(kernels.l2_normalize(a) * jnp.arange(12.0).reshape(4, 3)))(
        jnp.asarray(x)
    )
    assert np.isfinite(np.asarray(g)).all()
