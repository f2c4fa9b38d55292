"""Score kernels ``k(q, k, p_ij)`` (Barbero et al. 2024) and kernel feature maps ``phi`` (Conti
2024, §2.1.2).

Barbero et al. 2024 writes the attention weight of query ``i`` on key ``j`` as
``alpha_ij = exp(k(q_i, k_j, p_ij)) / sum_{w <= i} exp(k(q_i, k_w, p_iw))`` for a scalar kernel
``k``
of the query, the key and the relative positional information ``p_ij``. A kernel here is a frozen
(hashable, so ``jit``-static) dataclass called on ONE pair: ``kernel(q_E, k_E, p) -> scalar``,
where ``p = rel_pos[i, j]`` has whatever trailing shape the caller's ``rel_pos`` has.
:func:`kernel_scores` vmaps it over all pairs;
:func:`transformer_theory.core.attention.kernel_attention`
turns the scores into weights and outputs.

Built-in kernels (``scale=None`` means no scaling; ``scale=True`` means ``1/sqrt(E)``, Conti 2024,
§1.2.3):

- :class:`DotKernel`: ``q . k`` (ignores ``p``).
- :class:`RelativeBiasKernel`: ``q . k + p`` with a scalar additive bias ``p_ij`` (T5-style table).
- :class:`AlibiKernel`: ``q . k - slope |p|`` with ``p_ij = i - j`` (ALiBi).
- :class:`RopeKernel`: ``rope(q, i) . rope(k, j) = q^T R((j - i) theta) k``, a function of ``p_ij =
  i - j``
  only, computed here as ``rope(q, p_ij) . k``.

Feature maps (``sim(a, b) = phi(a) . phi(b)``, Conti 2024, eq. 14) for linear attention:

- :func:`elu_plus_one`: ``phi(x) = elu(x) + 1 > 0`` (Katharopoulos et al., Conti 2024 ref. [10]).
- :func:`taylor_feature_map`: ``phi(x) = [1, x / ||x||]`` so that ``phi(q) . phi(k) = 1 + q^ . k^``,
  the first-order Taylor form of Conti 2024, §2.1.2, non-negative because ``|q^ . k^| <= 1``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Union

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import positional

Scale = Union[None, bool, float]  # noqa: UP007 (a runtime alias: `|` needs Python 3.10 types)


def _scale_factor(scale: Scale, dim: int, dtype) -> jax.Array:
    if scale is None or scale is False:
        return jnp.asarray(1.0, dtype)
    if scale is True:
        return 1.0 / jnp.sqrt(jnp.asarray(dim, dtype))
    return jnp.asarray(scale, dtype)


def _need_rel_pos(kernel, p) -> None:
    if p is None:
        raise ValueError(
            f"rel_pos: {type(kernel).__name__} needs relative positions p_ij (e.g. "
            "positional.relative_positions(n))"
        )


@dataclasses.dataclass(frozen=True)
class DotKernel:
    """``k(q, k, p) = scale * q . k`` (scaled dot product for ``scale=True``; ``p`` unused)."""

    scale: Scale = None

    def __call__(self, q_E, k_E, p=None):
        return _scale_factor(self.scale, q_E.shape[-1], q_E.dtype) * jnp.dot(q_E, k_E)


@dataclasses.dataclass(frozen=True)
class RelativeBiasKernel:
    """``k(q, k, p) = scale * q . k + p``: an additive relative bias ``p_ij`` (scalar per pair)."""

    scale: Scale = None

    def __call__(self, q_E, k_E, p):
        _need_rel_pos(self, p)
        return _scale_factor(self.scale, q_E.shape[-1], q_E.dtype) * jnp.dot(
            q_E, k_E
        ) + jnp.asarray(p, q_E.dtype)


@dataclasses.dataclass(frozen=True)
class AlibiKernel:
    """ALiBi: ``k(q, k, p) = scale * q . k - slope * |p|`` with ``p_ij = i - j``."""

    slope: float = 1.0
    scale: Scale = None

    def __call__(self, q_E, k_E, p):
        _need_rel_pos(self, p)
        dot = _scale_factor(self.scale, q_E.shape[-1], q_E.dtype) * jnp.dot(q_E, k_E)
        return dot - jnp.asarray(self.slope, q_E.dtype) * jnp.abs(jnp.asarray(p, q_E.dtype))


@dataclasses.dataclass(frozen=True)
class RopeKernel:
    """RoPE as a relative kernel: ``k(q, k, p) = scale * rope(q, p) . k`` with ``p_ij = i - j``.

    Why this equals ``rope(q, i) . rope(k, j)``: with ``R(a)`` the block rotation of
    :func:`transformer_theory.core.positional.rope`, ``(R(i) q) . (R(j) k) = q^T R(j - i) k
    = (R(i - j) q) . k`` because ``R(a)^T = R(-a)`` and ``R(a) R(b) = R(a + b)``.
    """

    base: float = 10000.0
    scale: Scale = None

    def __call__(self, q_E, k_E, p):
        _need_rel_pos(self, p)
        pos = jnp.reshape(jnp.asarray(p), (1,))
        rq = positional.rope(q_E[None, :], pos, self.base)[0]
        return _scale_factor(self.scale, q_E.shape[-1], q_E.dtype) * jnp.dot(rq, k_E)


Kernel = Callable[..., jax.Array]


def kernel_scores(
    q_QxE: jax.Array,
    k_KxE: jax.Array,
    kernel: Kernel = DotKernel(),
    rel_pos: jax.Array | None = None,
) -> jax.Array:
    """Scores ``s_QxK[i, j] = kernel(q_i, k_j, rel_pos[i, j])`` (Barbero et al.'s ``k(q_i, k_j,
    p_ij)``).

    Args:
      q_QxE: queries, one row per query position.
      k_KxE: keys, one row per key position.
      kernel: a callable on one pair, e.g. :class:`DotKernel`, :class:`AlibiKernel`, or your own.
      rel_pos: ``(Q, K, ...)`` relative positional information; ``None`` passes ``None``.
    Returns:
      ``scores_QxK``.
    """
    _validate.check_ndim("q_QxE", q_QxE, 2)
    _validate.check_ndim("k_KxE", k_KxE, 2)
    _validate.check_float("q_QxE", q_QxE)
    _validate.check_float("k_KxE", k_KxE)
    if q_QxE.shape[1] != k_KxE.shape[1]:
        raise ValueError(
            f"k_KxE: keys must have the queries' width {q_QxE.shape[1]}, got shape {k_KxE.shape}"
        )
    if not callable(kernel):
        raise ValueError(f"kernel: expected a callable k(q, k, p), got {kernel!r}")
    Q, K = q_QxE.shape[0], k_KxE.shape[0]
    if rel_pos is None:
        pair = jax.vmap(jax.vmap(lambda q, k: kernel(q, k, None), (None, 0)), (0, None))
        return pair(q_QxE, k_KxE)
    if jnp.ndim(rel_pos) < 2 or tuple(jnp.shape(rel_pos)[:2]) != (Q, K):
        raise ValueError(f"rel_pos: expected shape ({Q}, {K}, ...), got {jnp.shape(rel_pos)}")
    pair = jax.vmap(jax.vmap(kernel, (None, 0, 0)), (0, None, 0))
    return pair(q_QxE, k_KxE, rel_pos)


def elu_plus_one(x: jax.Array) -> jax.Array:
    """``phi(x) = elu(x) + 1``: a positive feature map (Conti 2024, §2.1.2, ref. [10])."""
    _validate.check_float("x", x)
    return jax.nn.elu(x) + 1.0


def l2_normalize(x_NxE: jax.Array) -> jax.Array:
    """Rows divided by their l2 norm; a zero row stays zero (and has finite gradients)."""
    _validate.check_float("x_NxE", x_NxE)
    sq = jnp.sum(jnp.square(x_NxE), axis=-1, keepdims=True)
    # Double-where: the gradient of sqrt at 0 is infinite, so never evaluate it there.
    safe = jnp.where(sq > 0, sq, 1.0)
    return jnp.where(sq > 0, x_NxE * jax.lax.rsqrt(safe), 0.0)


def taylor_feature_map(x_NxE: jax.Array) -> jax.Array:
    """``phi(x) = [1, x / ||x||_2]`` (width ``E + 1``): ``phi(q) . phi(k) = 1 + q^ . k^`` in ``[0,
    2]``.

    This is the first-order Taylor kernel ``exp(q . k) ~ 1 + q . k`` of Conti 2024, §2.1.2 with ``q,
    k``
    l2-normalized so that ``1 + q^ . k^ >= 0``. A zero row maps to ``[1, 0, ...]`` (weight 1 to
    all).
    """
    _validate.check_ndim("x_NxE", x_NxE, 2)
    ones = jnp.ones((x_NxE.shape[0], 1), x_NxE.dtype)
    return jnp.concatenate([ones, l2_normalize(x_NxE)], axis=-1)
