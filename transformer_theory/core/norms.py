"""Token-wise normalizations over the last axis (the width), each with gain and bias.

- :func:`layer_norm`: ``g * (x - mean) / sqrt(var + eps) + b`` (standard LayerNorm).
- :func:`layer_norm_sigma`: Conti's form ``g * (x - mean) / (sigma + eps) + b`` with
  ``sigma = sqrt(var)`` (population variance).
- :func:`rms_norm`: ``g * x / sqrt(mean(x^2) + eps) + b``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from transformer_theory import _validate


def _check(x, scale, bias, eps):
    _validate.check_float("x", x)
    if jnp.ndim(x) < 1:
        raise ValueError(f"x: expected at least 1 dimension, got shape {jnp.shape(x)}")
    D = x.shape[-1]
    if scale is not None:
        _validate.check_shape("scale", scale, (D,))
    if bias is not None:
        _validate.check_shape("bias", bias, (D,))
    if eps < 0:
        raise ValueError(f"eps: expected a non-negative value, got {eps}")


def _affine(y, scale, bias):
    # Broadcast the (D,) gain and bias explicitly: the suite runs with rank promotion = "raise".
    lead = (1,) * (y.ndim - 1)
    if scale is not None:
        y = y * jnp.reshape(scale, lead + (-1,))
    if bias is not None:
        y = y + jnp.reshape(bias, lead + (-1,))
    return y


def layer_norm(
    x: jax.Array, scale: jax.Array | None = None, bias: jax.Array | None = None, eps: float = 1e-5
) -> jax.Array:
    """LayerNorm ``(x - mu) / sqrt(var + eps)`` over the last axis, then gain and bias."""
    _check(x, scale, bias, eps)
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mu), axis=-1, keepdims=True)
    return _affine((x - mu) * jax.lax.rsqrt(var + eps), scale, bias)


def layer_norm_sigma(
    x: jax.Array, scale: jax.Array | None = None, bias: jax.Array | None = None, eps: float = 1e-5
) -> jax.Array:
    """Conti's LayerNorm ``(x - mu) / (sigma + eps)``, sigma the population standard deviation."""
    _check(x, scale, bias, eps)
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mu), axis=-1, keepdims=True)
    # sqrt has an infinite derivative at 0: guard so a constant row gives finite gradients.
    sigma = jnp.where(var > 0, jnp.sqrt(jnp.where(var > 0, var, 1.0)), 0.0)
    return _affine((x - mu) / (sigma + eps), scale, bias)


def rms_norm(
    x: jax.Array, scale: jax.Array | None = None, bias: jax.Array | None = None, eps: float = 1e-6
) -> jax.Array:
    """RMSNorm ``x / sqrt(mean(x^2) + eps)``, then gain and bias."""
    _check(x, scale, bias, eps)
    ms = jnp.mean(jnp.square(x), axis=-1, keepdims=True)
    return _affine(x * jax.lax.rsqrt(ms + eps), scale, bias)


def apply_norm(
    kind: str | None,
    x: jax.Array,
    scale: jax.Array | None = None,
    bias: jax.Array | None = None,
    eps: float = 1e-5,
) -> jax.Array:
    """Dispatch on ``kind`` in ``{None, "layernorm", "layernorm_sigma", "rmsnorm"}`` (None =
    identity)."""
    if kind is None:
        return x
    if kind == "layernorm":
        return layer_norm(x, scale, bias, eps)
    if kind == "layernorm_sigma":
        return layer_norm_sigma(x, scale, bias, eps)
    if kind == "rmsnorm":
        return rms_norm(x, scale, bias, eps)
    raise ValueError(
        f"kind: expected one of [None, 'layernorm', 'layernorm_sigma', 'rmsnorm'], got {kind!r}"
    )
