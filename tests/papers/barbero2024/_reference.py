"""An independent float64 NumPy forward pass of the causal Pre-LN transformer (Barbero et al.
2024, §2), written from the equations, not from the library: LayerNorm, softmax attention with
RoPE / ALiBi / a sinusoidal code, ReLU MLP, final norm."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory.papers.barbero2024 import _models as models
from transformer_theory.params import init_params


def layernorm(x, scale, bias, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * scale + bias


def sinusoid(n, dim):
    t = np.arange(n, dtype=np.float64)[:, None]
    i = np.arange(dim // 2, dtype=np.float64)[None, :]
    angle = t / 10000.0 ** (2 * i / dim)
    out = np.zeros((n, dim))
    out[:, 0::2], out[:, 1::2] = np.sin(angle), np.cos(angle)
    return out


def rotate(x_NxE, positions):
    e = x_NxE.shape[1]
    inv = 10000.0 ** (-2.0 * np.arange(e // 2) / e)
    ang = np.asarray(positions, np.float64)[:, None] * inv[None, :]
    out = np.empty_like(x_NxE)
    out[:, 0::2] = x_NxE[:, 0::2] * np.cos(ang) - x_NxE[:, 1::2] * np.sin(ang)
    out[:, 1::2] = x_NxE[:, 0::2] * np.sin(ang) + x_NxE[:, 1::2] * np.cos(ang)
    return out


def embedding(cfg, tokens):
    n = len(tokens)
    tok = np.eye(cfg.vocab_size)[np.asarray(tokens)]
    code = sinusoid(n, cfg.pos_dim) if cfg.positional == "sinusoidal" else np.zeros((n, 0))
    pad = np.zeros((n, cfg.width - cfg.vocab_size - code.shape[1]))
    return np.concatenate([tok, code, pad], axis=1)


def last_representation(params, cfg, tokens):
    """``y_n`` of ``tokens`` for a causal softmax model with norm1/MLP/norm2/final LayerNorm."""
    h = embedding(cfg, tokens)
    n = h.shape[0]
    causal = np.tril(np.ones((n, n), bool))
    for layer in params.layers:
        a = layer.attn
        x = layernorm(h, np.asarray(layer.norm1.scale), np.asarray(layer.norm1.bias), cfg.norm_eps)
        heads = []
        num_heads = a.w_v.shape[0]
        for hd in range(num_heads):
            q = x @ np.asarray(a.w_q[hd]).T
            k = x @ np.asarray(a.w_k[hd]).T
            if cfg.relative == "rope":
                q, k = rotate(q, np.arange(n)), rotate(k, np.arange(n))
            s = q @ k.T / np.sqrt(cfg.qk_dim)
            if cfg.relative == "alibi":
                slope = 2.0 ** (-8.0 * (hd + 1) / num_heads)
                s = s - slope * np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
            s = np.where(causal, s, -np.inf)
            w = np.exp(s - s.max(-1, keepdims=True))
            w = w / w.sum(-1, keepdims=True)
            heads.append(w @ (x @ np.asarray(a.w_v[hd]).T))
        z = h + np.mean(heads, axis=0)
        m = layer.mlp
        u = layernorm(z, np.asarray(layer.norm2.scale), np.asarray(layer.norm2.bias), cfg.norm_eps)
        hidden = np.maximum(u @ np.asarray(m.w1).T + np.asarray(m.b1), 0.0)
        h = z + hidden @ np.asarray(m.w2).T + np.asarray(m.b2)
    fn = params.final_norm
    return layernorm(h[-1], np.asarray(fn.scale), np.asarray(fn.bias), cfg.norm_eps)


@functools.cache
def random_model(positional, depth=1, heads=2, *, seed=0, width=12, scale=1.5, **changes):
    """A small float64 causal Pre-LN model whose norm gains and biases are moved away from 1 and 0
    (so a reference that dropped a gain or a bias, or a Jacobian that missed a norm term, would
    fail); ``changes`` replace fields of its config."""
    cfg = models.causal_pre_ln_config(depth, heads, positional, width=width, qk_dim=4, seq_len=4)
    p = init_params(jax.random.key(seed), cfg.replace(**changes), dtype=jnp.float64, scale=scale)
    leaves, tree = jax.tree.flatten(p)
    keys = jax.random.split(jax.random.key(seed + 100), len(leaves))
    leaves = [
        x + 0.3 * jax.random.normal(k, x.shape, x.dtype) if x.ndim == 1 else x
        for x, k in zip(leaves, keys)
    ]
    return jax.tree.unflatten(tree, leaves)
