"""Attention weights and general kernel attention (Barbero et al. 2024; Strobl et al. 2024; Conti
2024; Chen & Zou 2024) against NumPy float64.

References are written from the papers' formulas with explicit loops where that is clearer:
softmax (Conti 2024, eq. 8 with the 1/sqrt(k) of §1.2.2), ReLU (Chen & Zou 2024, eq. 2), hard
attention
(Strobl et al. (2024)'s leftmost / average-hard), and Barbero et al.'s alpha_ij = exp k(q_i, k_j,
p_ij) / sum_w ...
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory.core import attention, kernels, positional

DTYPES = [("float64", jnp.float64), ("float32", jnp.float32)]


def np_softmax_rows(s, mask=None):
    out = np.zeros_like(s, dtype=np.float64)
    for i in range(s.shape[0]):
        allowed = np.ones(s.shape[1], bool) if mask is None else mask[i]
        if allowed.any():
            e = np.exp(s[i, allowed] - s[i, allowed].max())
            out[i, allowed] = e / e.sum()
    return out


def np_rope(x, pos, base=10000.0):
    out = np.zeros_like(x, dtype=np.float64)
    K = x.shape[1]
    for t in range(x.shape[0]):
        for m in range(K // 2):
            a = pos[t] * base ** (-2.0 * m / K)
            c, s = np.cos(a), np.sin(a)
            out[t, 2 * m] = c * x[t, 2 * m] - s * x[t, 2 * m + 1]
            out[t, 2 * m + 1] = s * x[t, 2 * m] + c * x[t, 2 * m + 1]
    return out


@pytest.mark.parametrize("name,dtype", DTYPES)
def test_weight_functions_match_numpy(name, dtype):
    rng = np.random.default_rng(0)
    s = rng.normal(size=(6, 7)) * 3
    mask = rng.random((6, 7)) < 0.7
    mask[4] = False
    sj, mj = jnp.asarray(s, dtype), jnp.asarray(mask)
    f = jax.jit(attention.attention_weights, static_argnums=1)
    assert_close(f(sj, "softmax", mj), np_softmax_rows(s, mask), dtype=name)
    assert_close(f(sj, "softmax", None), np_softmax_rows(s), dtype=name)
    assert_close(f(sj, "relu", mj), np.where(mask, np.maximum(s, 0), 0), dtype=name)
    assert_close(attention.scale_scores(sj, 16), s / 4.0, dtype=name)
    z = np.array([np.exp(s[i, mask[i]]).sum() for i in range(6)])
    assert_close(attention.softmax_normalizer(sj, mj), z, dtype=name)
    assert f(sj, "softmax", mj).dtype == dtype


def np_hard(s, mode):
    out = np.zeros_like(s, dtype=np.float64)
    for i in range(s.shape[0]):
        best = [j for j in range(s.shape[1]) if s[i, j] == s[i].max()]
        if mode == "leftmost":
            out[i, best[0]] = 1.0
        else:
            out[i, best] = 1.0 / len(best)
    return out


def test_hard_attention_leftmost_vs_average_on_all_tie_patterns():
    """the table of Strobl et al. (2024): unique (leftmost) hard attention picks the first
    maximizer; average-hard
    spreads uniformly over all of them. Enumerate every score row over {0, 1, 2}^4 (81 rows)."""
    rows = np.array(list(itertools.product([0.0, 1.0, 2.0], repeat=4)))
    for mode in ("leftmost", "average"):
        got = jax.jit(lambda x, m=mode: attention.hard_weights(x, mode=m))(jnp.asarray(rows))
        np.testing.assert_array_equal(np.asarray(got), np_hard(rows, mode))
    tie = jnp.array([[1.0, 3.0, 0.0, 3.0]])
    np.testing.assert_array_equal(attention.hard_weights(tie, mode="leftmost"), [[0, 1, 0, 0]])
    np.testing.assert_array_equal(attention.hard_weights(tie, mode="average"), [[0, 0.5, 0, 0.5]])
    # The mask removes the leftmost maximizer: the next one takes over.
    m = jnp.array([[True, False, True, True]])
    np.testing.assert_array_equal(attention.hard_weights(tie, m, mode="leftmost"), [[0, 0, 0, 1]])


def test_softmax_jacobian_is_diag_minus_outer_conti2024():
    """Conti 2024, §1.2.3: J = diag(s) - s s^T, checked against autodiff of softmax_weights.

    The printed matrix has ``-s_i (1 - s_i)`` on the diagonal of rows 2..n; that literal version
    is wrong (it disagrees with autodiff and its rows do not sum to 0, whereas a softmax Jacobian's
    rows must, since sum_i s_i = 1)."""
    rng = np.random.default_rng(1)
    for n in (1, 2, 5):
        z = rng.normal(size=n) * 2
        s = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        ref = np.diag(s) - np.outer(s, s)
        jac = jax.jit(jax.jacobian(lambda x: attention.softmax_weights(x[None, :])[0]))(
            jnp.asarray(z)
        )
        assert_close(jac, ref)
        assert_close(attention.softmax_jacobian(jnp.asarray(s)), ref)
        literal = ref.copy()
        literal[np.arange(1, n), np.arange(1, n)] *= -1
        if n > 1:
            assert np.abs(literal - np.asarray(jac)).max() > 1e-3
            assert np.abs(literal.sum(axis=0)).max() > 1e-3
        assert_close(ref.sum(axis=0), np.zeros(n))


def test_softmax_jacobian_vanishes_at_one_hot_limit():
    """Conti 2024, eq. 9: at (near) one-hot s the Jacobian vanishes -- the motivation for
    1/sqrt(k)."""
    z = jnp.array([60.0, 0.0, -1.0])
    jac = jax.jacobian(lambda x: attention.softmax_weights(x[None, :])[0])(z)
    assert np.abs(np.asarray(jac)).max() < 1e-20


def test_scaling_by_sqrt_k_gives_unit_variance_scores_not_by_k():
    """Conti 2024, §1.2.3 motivates 1/sqrt(k): for q, k ~ N(0, I_k), q.k has variance k, so
    q.k/sqrt(k)
    has variance 1, while the printed eq. 5-6 (and 17) ``/k`` gives variance 1/k (flat softmax)."""
    k = 64
    q, kk = jax.random.normal(jax.random.PRNGKey(0), (2, 20000, k), dtype=jnp.float64)
    dots = np.asarray(jnp.sum(q * kk, axis=-1))
    se = 4 * np.sqrt(2.0 / 20000)  # 4 standard errors of a sample variance of N(0, 1) data
    assert abs(np.var(dots / np.sqrt(k)) - 1.0) < se
    assert abs(np.var(dots / k) - 1.0) > 0.9


def ref_kernel_attention(q, k, v, kern, rel, mask):
    Q, K = q.shape[0], k.shape[0]
    s = np.array(
        [[kern(q[i], k[j], None if rel is None else rel[i, j]) for j in range(K)] for i in range(Q)]
    )
    w = np_softmax_rows(s, mask)
    return w @ v, w


def np_alibi(slope, scale):
    return lambda q, k, p: scale * q @ k - slope * abs(p)


def np_rope_kernel(scale, base=10000.0):
    # rope(q, i) . rope(k, j), written with absolute positions (p carries (i, j) here).
    def f(q, k, p):
        i, j = p
        return scale * np_rope(q[None], [i], base)[0] @ np_rope(k[None], [j], base)[0]

    return f


@pytest.mark.parametrize("name,dtype", DTYPES)
@pytest.mark.parametrize("kernel_name", ["dot", "dot_scaled", "bias", "alibi", "rope"])
def test_kernel_attention_matches_numpy(name, dtype, kernel_name):
    rng = np.random.default_rng(2)
    Q, K, E, D = 5, 6, 4, 3  # cross-attention shapes: Q queries, K keys
    q, k, v = rng.normal(size=(Q, E)), rng.normal(size=(K, E)), rng.normal(size=(K, D))
    mask = rng.random((Q, K)) < 0.8
    mask[1] = False
    rel_ij = np.asarray(positional.relative_positions(Q, K))
    if kernel_name == "dot":
        kern, rel, ref_kern, ref_rel = kernels.DotKernel(), None, (lambda a, b, p: a @ b), None
    elif kernel_name == "dot_scaled":
        kern, rel, ref_kern, ref_rel = (
            kernels.DotKernel(scale=True),
            None,
            (lambda a, b, p: a @ b / 2.0),
            None,
        )
    elif kernel_name == "bias":
        table = rng.normal(size=(Q, K))
        kern, rel, ref_kern, ref_rel = (
            kernels.RelativeBiasKernel(),
            table,
            (lambda a, b, p: a @ b + p),
            table,
        )
    elif kernel_name == "alibi":
        kern, rel, ref_kern, ref_rel = (
            kernels.AlibiKernel(slope=0.5, scale=True),
            rel_ij,
            np_alibi(0.5, 0.5),
            rel_ij,
        )
    else:
        pairs = np.stack(np.meshgrid(np.arange(Q), np.arange(K), indexing="ij"), -1)
        kern, rel, ref_kern, ref_rel = (
            kernels.RopeKernel(base=100.0),
            rel_ij,
            np_rope_kernel(1.0, 100.0),
            pairs,
        )
    out, w = jax.jit(attention.kernel_attention, static_argnums=3)(
        jnp.asarray(q, dtype),
        jnp.asarray(k, dtype),
        jnp.asarray(v, dtype),
        kern,
        None if rel is None else jnp.asarray(rel),
        jnp.asarray(mask),
    )
    ref_out, ref_w = ref_kernel_attention(q, k, v, ref_kern, ref_rel, mask)
    assert_close(w, ref_w, dtype=name)
    assert_close(out, ref_out, dtype=name)
    np.testing.assert_array_equal(np.asarray(out)[1], 0.0)


def test_kernel_attention_other_weight_kinds_and_dot_product_attention():
    rng = np.random.default_rng(3)
    q, k, v = (jnp.asarray(rng.normal(size=s)) for s in ((4, 2), (4, 2), (4, 3)))
    s = np.asarray(q) @ np.asarray(k).T
    out, w = attention.kernel_attention(q, k, v, kind="relu")
    assert_close(w, np.maximum(s, 0))
    assert_close(out, np.maximum(s, 0) @ np.asarray(v))
    causal = np.tril(np.ones((4, 4), bool))
    out, w = attention.dot_product_attention(q, k, v, jnp.asarray(causal))
    ref_w = np_softmax_rows(s / np.sqrt(2), causal)
    assert_close(w, ref_w)
    assert_close(out, ref_w @ np.asarray(v))


def test_rope_relative_position_invariance():
    """rope(q, i) . rope(k, j) depends on i - j only: shifting both positions changes nothing."""
    rng = np.random.default_rng(4)
    q, k = rng.normal(size=(1, 8)), rng.normal(size=(1, 8))
    f = jax.jit(lambda a, b, i, j: jnp.dot(positional.rope(a, i)[0], positional.rope(b, j)[0]))
    for i, j, shift in [(0, 3, 5), (7, 2, 11), (4, 4, 100), (1, 9, -1)]:
        base = f(jnp.asarray(q), jnp.asarray(k), jnp.array([i]), jnp.array([j]))
        shifted = f(jnp.asarray(q), jnp.asarray(k), jnp.array([i + shift]), jnp.array([j + shift]))
        assert_close(shifted, base, atol=1e-11)  # angles up to ~100 rad lose a few ulps in cos/sin
        kern = kernels.RopeKernel()(jnp.asarray(q[0]), jnp.asarray(k[0]), jnp.asarray(i - j))
        assert_close(kern, base, atol=1e-11)
    # ...and it is not absolute-position blind: a different offset changes the score.
    assert (
        abs(
            f(jnp.asarray(q), jnp.asarray(k), jnp.array([0]), jnp.array([1]))
            - f(jnp.asarray(q), jnp.asarray(k), jnp.array([0]), jnp.array([2]))
        )
        > 1e-6
    )
    # NumPy reference of the rotation itself.
    pos = np.array([0, 3, 7])
    x = rng.normal(size=(3, 6))
    assert_close(positional.rope(jnp.asarray(x), jnp.asarray(pos)), np_rope(x, pos))


def test_svete_cotterell_hardmax_attends_to_t_minus_h():
    """Svete & Cotterell 2024: <Q(t), K_h(j)> with the (sqrt(1/t), sqrt(1-1/t)) code peaks exactly
    at j = t - h."""
    n, H = 9, 3
    code = np.asarray(positional.svete_cotterell_offsets(n, H, jnp.float64))
    ref = np.array(
        [
            [[np.sqrt(1 / (t + h)), np.sqrt(1 - 1 / (t + h))] for h in range(H)]
            for t in range(1, n + 1)
        ]
    )
    assert_close(code, ref)
    assert_close(code[:, 0], np.asarray(positional.svete_cotterell(n, jnp.float64)))
    for h in range(H):
        q = code[:, 0]  # Q(t) = (sqrt(1/t), sqrt(1 - 1/t)), t = 1..n
        k = code[:, h]  # K_h(j) = code at position j + h
        s = q @ k.T  # [t, j]
        causal = np.tril(np.ones((n, n), bool))
        w = np.asarray(attention.hard_weights(jnp.asarray(s), jnp.asarray(causal), mode="leftmost"))
        for t in range(h, n):
            assert w[t].argmax() == t - h
            assert abs(s[t, t - h] - 1.0) < 1e-12


def test_kernel_attention_bad_inputs_raise():
    q = jnp.zeros((3, 2))
    with pytest.raises(ValueError, match="k_KxE"):
        attention.kernel_attention(q, jnp.zeros((3, 4)), jnp.zeros((3, 1)))
    with pytest.raises(ValueError, match="v_KxD"):
        attention.kernel_attention(q, q, jnp.zeros((4, 1)))
    with pytest.raises(ValueError, match="rel_pos"):
        attention.kernel_attention(q, q, q, kernels.AlibiKernel(), jnp.zeros((2, 3)))
    with pytest.raises(ValueError, match="rel_pos"):
        attention.kernel_attention(q, q, q, kernels.RopeKernel())
    with pytest.raises(ValueError, match="q_QxE"):
        attention.kernel_attention(jnp.zeros((3,)), q, q)
    with pytest.raises(ValueError, match="q_QxE"):
        attention.kernel_attention(jnp.zeros((3, 2), int), q, q)
    with pytest.raises(ValueError, match="mask_QxK"):
        attention.kernel_attention(q, q, q, mask_QxK=jnp.ones((2, 3), bool))
    with pytest.raises(ValueError, match="kind"):
        attention.kernel_attention(q, q, q, kind="sigmoid")
    with pytest.raises(ValueError, match="s_K"):
        attention.softmax_jacobian(jnp.zeros((2, 2)))


@pytest.mark.parametrize("kind", ["softmax", "relu", "hard_average"])
def test_kernel_attention_masked_rows_finite_gradients_under_vmap(kind):
    """Fully masked rows give zero outputs and finite gradients; vmap over heads works."""
    rng = np.random.default_rng(7)
    q, k, v = (
        jnp.asarray(rng.normal(size=(3, 4, 2)) * 30) for _ in range(3)
    )  # 3 heads, big scores
    mask = jnp.asarray(np.array([[1, 1, 0, 0], [0, 0, 0, 0], [0, 1, 1, 1], [1, 0, 0, 1]], bool))
    rel = positional.relative_positions(4)

    def loss(q, k, v):
        out, _ = jax.vmap(
            lambda a, b, c: attention.kernel_attention(
                a, b, c, kernels.AlibiKernel(0.5), rel, mask, kind=kind
            )
        )(q, k, v)
        return jnp.sum(out**2), out

    (val, out), grads = jax.jit(jax.value_and_grad(loss, argnums=(0, 1, 2), has_aux=True))(q, k, v)
    np.testing.assert_array_equal(np.asarray(out)[:, 1], 0.0)
    assert all(np.isfinite(np.asarray(g)).all() for g in grads) and np.isfinite(float(val))
