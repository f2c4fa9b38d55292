"""Model variants through ``forward``: Barbero et al.'s causal Pre-LN block, ALiBi and RoPE,
causality,
recompilation, against float64 NumPy references written here.

Reference layer (row-major H: (n, d'), Barbero et al. 2024 with the value/query/key projections made
explicit):
x = norm1(H); s_h[i, j] = (q_i . k_j)(/sqrt K) + relative term; alpha = softmax over j <= i;
z = H + (1/m) sum_h alpha_h (x W_V_h^T); out = z + psi(norm2(z)); o = W_O norm3(out_{n-1}).
"""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory import ModelConfig, forward, init_params
from transformer_theory.core import forward_trace


def np_norm(kind, x, g, b, eps):
    if kind is None:
        return x
    if kind == "rmsnorm":
        return g * x / np.sqrt((x**2).mean(-1, keepdims=True) + eps) + b
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    den = np.sqrt(var) + eps if kind == "layernorm_sigma" else np.sqrt(var + eps)
    return g * (x - mu) / den + b


def np_embed(tokens, vocab, width):
    H = np.zeros((len(tokens), width))
    for i, t in enumerate(tokens):
        H[i, t] = 1.0
        H[i, vocab + i] = 1.0  # one-hot position p_i (Chen & Zou 2024, eq. 3)
    return H


def np_rotate(x, t, base=10000.0):
    y = x.copy()
    K = len(x)
    for m in range(K // 2):
        a = t * base ** (-2.0 * m / K)
        y[2 * m] = np.cos(a) * x[2 * m] - np.sin(a) * x[2 * m + 1]
        y[2 * m + 1] = np.sin(a) * x[2 * m] + np.cos(a) * x[2 * m + 1]
    return y


def np_layer(layer, H, cfg):
    n = H.shape[0]
    g = lambda p: (np.asarray(p.scale), np.asarray(p.bias)) if p is not None else (1.0, 0.0)  # noqa: E731
    x = np_norm(cfg.norm1, H, *g(layer.norm1), cfg.norm_eps)
    heads = []
    nh = layer.attn.w_v.shape[0]
    for h in range(nh):
        S = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                if cfg.qk_dim is None:
                    S[i, j] = x[j] @ np.asarray(layer.attn.w_qk[h]) @ x[i]
                    kdim = cfg.width
                else:
                    q = np.asarray(layer.attn.w_q[h]) @ x[i]
                    k = np.asarray(layer.attn.w_k[h]) @ x[j]
                    if cfg.relative == "rope":
                        q, k = np_rotate(q, i), np_rotate(k, j)
                    S[i, j] = q @ k
                    kdim = cfg.qk_dim
        if cfg.scale_scores:
            S = S / np.sqrt(kdim)
        if cfg.relative == "alibi":
            slope = 2.0 ** (-8.0 * (h + 1) / nh)
            S = S - slope * np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
        A = np.zeros((n, n))
        for i in range(n):
            js = np.arange(i + 1) if cfg.causal else np.arange(n)
            if cfg.attention == "softmax":
                e = np.exp(S[i, js] - S[i, js].max())
                A[i, js] = e / e.sum()
            else:
                A[i, js] = np.maximum(S[i, js], 0)
        heads.append(A @ (x @ np.asarray(layer.attn.w_v[h]).T))
    z = H + np.mean(heads, axis=0)
    if layer.mlp is not None:
        u = np_norm(cfg.norm2, z, *g(layer.norm2), cfg.norm_eps)
        m = layer.mlp
        hid = np.maximum(u @ np.asarray(m.w1).T + np.asarray(m.b1), 0)
        z = z + hid @ np.asarray(m.w2).T + np.asarray(m.b2)
    return z


def np_forward(params, tokens):
    cfg = params.config
    H = np_embed(tokens, cfg.vocab_size, cfg.width)
    for layer in params.layers:
        H = np_layer(layer, H, cfg)
    last = H[-1]
    if params.final_norm is not None:
        last = np_norm(
            cfg.final_norm,
            last,
            np.asarray(params.final_norm.scale),
            np.asarray(params.final_norm.bias),
            cfg.norm_eps,
        )
    return np.asarray(params.w_o) @ last


def perturb_norms(params, key):
    """init_params sets gains 1 and biases 0; randomize them so the test sees them act."""
    leaves, tree = jax.tree.flatten(params)
    keys = jax.random.split(key, len(leaves))
    new = [
        x + 0.1 * jax.random.normal(k, x.shape, x.dtype) if x.ndim == 1 else x
        for x, k in zip(leaves, keys)
    ]
    return jax.tree.unflatten(tree, new)


PRE_LN = dict(
    attention="softmax",
    causal=True,
    norm1="layernorm",
    mlp_hidden=6,
    norm2="layernorm",
    final_norm="layernorm",
    scale_scores=True,
)


@pytest.mark.parametrize(
    "extra",
    [
        PRE_LN,
        {
            **PRE_LN,
            "norm1": "layernorm_sigma",
            "norm2": "rmsnorm",
            "final_norm": "layernorm_sigma",
            "heads": (2, 1),
        },
        dict(attention="relu", relative="alibi", scale_scores=True, heads=(3,)),
        dict(
            attention="softmax", relative="rope", qk_dim=4, causal=True, norm1="rmsnorm", heads=(2,)
        ),
    ],
    ids=["preln", "preln-sigma-rms-2layers", "alibi-relu", "rope-causal-softmax"],
)
def test_model_variants_through_forward_match_numpy(extra):
    kw = dict(vocab_size=4, seq_len=5, width=11, num_classes=3, heads=(2,))
    kw.update(extra)
    cfg = ModelConfig(**kw)
    params = perturb_norms(
        init_params(jax.random.PRNGKey(0), cfg, dtype=jnp.float64), jax.random.PRNGKey(1)
    )
    f = jax.jit(forward)
    rng = np.random.default_rng(0)
    for _ in range(2):
        toks = rng.integers(0, 4, size=5)
        assert_close(f(params, jnp.asarray(toks)), np_forward(params, toks))
    if (
        cfg.norm1 == "layernorm" or cfg.relative is not None
    ):  # float32 on a subset: each is one more compile
        p32 = jax.tree.map(lambda x: x.astype(jnp.float32), params)
        # float32: a few LayerNorms and softmaxes of O(1) values; 1e-4 covers eps32 * condition ~
        # 1e3.
        assert_close(
            f(p32, jnp.asarray(toks)),
            np_forward(params, toks),
            dtype="float32",
            rtol=1e-4,
            atol=1e-4,
        )


def test_causal_model_has_zero_gradient_into_the_future(attention="softmax"):
    """nanodo-style causality: d stream^(L)_i / d embedding_j == 0 exactly for j > i."""
    cfg = ModelConfig(
        vocab_size=3,
        seq_len=4,
        width=8,
        num_classes=2,
        heads=(2, 2),
        attention=attention,
        causal=True,
        norm1="layernorm",
        mlp_hidden=5,
        norm2="rmsnorm",
        final_norm="layernorm",
    )
    params = init_params(jax.random.PRNGKey(2), cfg, dtype=jnp.float64)
    emb = jnp.asarray(np.random.default_rng(1).normal(size=(4, 8)))
    jac = jax.jit(jax.jacobian(lambda e: forward_trace(params, e).streams_LxNxD[-1]))(
        emb
    )  # (4, 8, 4, 8)
    jac = np.asarray(jac)
    for i in range(4):
        np.testing.assert_array_equal(jac[i, :, i + 1 :], 0.0)
        assert np.abs(jac[i, :, : i + 1]).max() > 0
    # The same model without the causal flag does look ahead (the check can fail).
    bi = jax.tree.map(lambda x: x, params).replace(config=cfg.replace(causal=False))
    jac_bi = np.asarray(
        jax.jit(jax.jacobian(lambda e: forward_trace(bi, e).streams_LxNxD[-1]))(emb)
    )
    assert np.abs(jac_bi[0, :, 1:]).max() > 0


def test_jitted_forward_does_not_recompile_for_new_tokens():
    cfg = ModelConfig(
        vocab_size=5,
        seq_len=4,
        width=9,
        num_classes=2,
        heads=(1,),
        attention="softmax",
        relative="alibi",
    )
    params = init_params(jax.random.PRNGKey(3), cfg)

    @jax.jit
    @chex.assert_max_traces(n=1)
    def f(p, t):
        return forward(p, t)

    rng = np.random.default_rng(2)
    for _ in range(5):
        f(params, jnp.asarray(rng.integers(0, 5, size=4), jnp.int32))
    chex.clear_trace_counter()


def test_forward_bad_mask_raises():
    cfg = ModelConfig(vocab_size=3, seq_len=3, width=6, num_classes=2)
    p = init_params(jax.random.PRNGKey(0), cfg)
    with pytest.raises(ValueError, match="mask_NxN"):
        forward(p, jnp.array([0, 1, 2]), jnp.ones((2, 3), bool))
    with pytest.raises(ValueError, match="qk_dim"):
        ModelConfig(vocab_size=3, seq_len=3, width=6, num_classes=2, relative="rope", qk_dim=3)
