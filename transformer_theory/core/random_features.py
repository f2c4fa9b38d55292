"""Positive random features for the softmax kernel: linear attention with a feature budget.

Conti 2024, §2.1.2 writes linear attention with any feature map ``phi`` whose inner products
replace ``exp(q . k)``; the fixed maps of :mod:`transformer_theory.core.kernels` (``elu + 1``, the
first-order Taylor map) approximate the softmax at no tunable cost. Positive random features
(Choromanski et al. 2021, "Rethinking Attention with Performers", FAVOR+) make the approximation a
budget: with ``m`` Gaussian directions ``omega_r ~ N(0, I_E)``::

    phi(x) = exp(omega x' - |x'|^2 / 2) / sqrt(m),      x' = x / E^(1/4),

is positive and ``E[phi(q) . phi(k)] = exp(q . k / sqrt(E))`` exactly, so
``linear_attention(q, k, v, positive_random_features(omega))`` is an unbiased-kernel estimate of
scaled softmax attention whose error shrinks like ``1 / sqrt(m)``. ``omega`` has shape
``(m, E)``: one row per feature.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax.typing import DTypeLike

from transformer_theory import _validate


def random_directions(
    key: jax.Array, num_features: int, dim: int, dtype: DTypeLike = jnp.float32
) -> jax.Array:
    """``omega``: ``num_features`` i.i.d. standard normal directions in ``R^dim`` (rows)."""
    _validate.check_positive("num_features", num_features)
    _validate.check_positive("dim", dim)
    return jax.random.normal(key, (num_features, dim), dtype)


def _features(omega: jax.Array, x_NxE: jax.Array) -> jax.Array:
    _validate.check_ndim("x_NxE", x_NxE, 2)
    if x_NxE.shape[1] != omega.shape[1]:
        raise ValueError(
            f"x_NxE: expected width {omega.shape[1]} (the directions' width), got {x_NxE.shape}"
        )
    e = x_NxE.shape[1]
    x = x_NxE / jnp.asarray(e, x_NxE.dtype) ** 0.25
    logits = x @ omega.T.astype(x.dtype) - 0.5 * jnp.sum(x * x, axis=-1, keepdims=True)
    # One shift for the whole matrix (not per row): a common factor exp(-c) of every query's (or
    # every key's) features cancels in linear attention's ratio; a per-key shift would not.
    shift = jax.lax.stop_gradient(jnp.max(logits))
    return jnp.exp(logits - shift) / jnp.sqrt(jnp.asarray(omega.shape[0], x.dtype))


def positive_random_features(omega: jax.Array) -> Callable[[jax.Array], jax.Array]:
    """The feature map ``phi: (N, E) -> (N, m)`` of the module docstring, for directions ``omega``
    ``(m, E)``; pass it as ``feature_map`` of
    :func:`~transformer_theory.core.linear.linear_attention`."""
    _validate.check_ndim("omega", omega, 2)
    _validate.check_float("omega", omega)
    return functools.partial(_features, omega)
