"""Attention weights from scores, and general kernel attention, one example at a time.

- Weights: :func:`softmax_weights` (optionally after :func:`scale_scores`' ``1/sqrt(k)``, Conti
  2024),
  :func:`relu_weights` (Chen & Zou 2024, eq. 2, unnormalized), :func:`hard_weights` (Strobl et al.
  (2024)'s leftmost /
  average-hard), :func:`sparsemax_weights` (Martins & Astudillo 2016), dispatched by
  :func:`attention_weights`; :func:`softmax_jacobian` (Conti 2024, §1.2.3).
- Outputs: :func:`kernel_attention` -- Barbero et al.'s ``alpha_ij ~ exp k(q_i, k_j, p_ij)`` with
  any score
  kernel of :mod:`transformer_theory.core.kernels` -- and :func:`dot_product_attention` (Conti 2024,
  eq. 5/10).

Shape letters as in :mod:`transformer_theory.glossary`: ``Q`` query positions, ``K`` key
positions, ``D`` width.
Scores are laid out ``scores_QxK[i, j]`` = score of query ``i`` for key ``j``; weights are
normalized (where the kind normalizes) over keys, the last axis. Masks are boolean
``mask_QxK`` with True = may attend. A fully masked row gives all-zero weights, never NaN.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import kernels


def _apply_mask_default(mask_QxK, scores_QxK):
    if mask_QxK is None:
        return jnp.ones(scores_QxK.shape, bool)
    _validate.check_mask("mask_QxK", mask_QxK, scores_QxK.shape)
    return mask_QxK


def scale_scores(scores_QxK: jax.Array, key_dim: int) -> jax.Array:
    """The ``1/sqrt(k)`` scaling of scaled dot-product attention (Conti 2024, §1.2)."""
    _validate.check_positive("key_dim", key_dim)
    return scores_QxK / jnp.sqrt(jnp.asarray(key_dim, scores_QxK.dtype))


def softmax_weights(scores_QxK: jax.Array, mask_QxK: jax.Array | None = None) -> jax.Array:
    """Row softmax over allowed keys; a row with no allowed key is all zeros.

    Args:
      scores_QxK: float scores, query rows.
      mask_QxK: optional boolean mask, True where query ``i`` may attend to key ``j``.
    Returns:
      ``weights_QxK``, each allowed row summing to 1.
    """
    _validate.check_ndim("scores_QxK", scores_QxK, 2)
    _validate.check_float("scores_QxK", scores_QxK)
    mask = _apply_mask_default(mask_QxK, scores_QxK)
    neg = jnp.finfo(scores_QxK.dtype).min
    masked = jnp.where(mask, scores_QxK, neg)
    row_max = jnp.max(masked, axis=-1, keepdims=True)
    row_max = jax.lax.stop_gradient(jnp.where(jnp.any(mask, axis=-1, keepdims=True), row_max, 0.0))
    e = jnp.where(mask, jnp.exp(masked - row_max), 0.0)
    z = jnp.sum(e, axis=-1, keepdims=True)
    return e / jnp.where(z > 0, z, 1.0)


def softmax_normalizer(scores_QxK: jax.Array, mask_QxK: jax.Array | None = None) -> jax.Array:
    """``Z_i = sum_j exp(s_ij)`` over allowed keys (Chen & Zou 2024, Prop. 9's ``sum_j sigma'(x_j,
    x_{n-1})``)."""
    _validate.check_ndim("scores_QxK", scores_QxK, 2)
    mask = _apply_mask_default(mask_QxK, scores_QxK)
    return jnp.sum(jnp.where(mask, jnp.exp(scores_QxK), 0.0), axis=-1)


def relu_weights(scores_QxK: jax.Array, mask_QxK: jax.Array | None = None) -> jax.Array:
    """Unnormalized ReLU attention ``sigma(z) = max(0, z)`` of Chen & Zou 2024, eq. 2; masked
    entries are 0."""
    _validate.check_ndim("scores_QxK", scores_QxK, 2)
    _validate.check_float("scores_QxK", scores_QxK)
    mask = _apply_mask_default(mask_QxK, scores_QxK)
    return jnp.where(mask, jax.nn.relu(scores_QxK), 0.0)


def hard_weights(
    scores_QxK: jax.Array, mask_QxK: jax.Array | None = None, *, mode: str = "average"
) -> jax.Array:
    """Hard attention (the table of Strobl et al. 2024): all weight on the maximizing keys.

    Args:
      scores_QxK: float scores.
      mask_QxK: optional boolean mask.
      mode: ``"leftmost"`` -- one-hot on the first (smallest-index) maximizer (unique hard
        attention);
        ``"average"`` -- uniform over all exact maximizers (average-hard attention).
    Returns:
      ``weights_QxK``; fully masked rows are zero.
    """
    _validate.check_ndim("scores_QxK", scores_QxK, 2)
    _validate.check_choice("mode", mode, ("leftmost", "average"))
    mask = _apply_mask_default(mask_QxK, scores_QxK)
    neg = jnp.finfo(scores_QxK.dtype).min
    masked = jnp.where(mask, scores_QxK, neg)
    is_max = (masked == jnp.max(masked, axis=-1, keepdims=True)) & mask
    if mode == "leftmost":
        first = jnp.argmax(is_max, axis=-1)
        w = jax.nn.one_hot(first, scores_QxK.shape[-1], dtype=scores_QxK.dtype)
        return jnp.where(jnp.any(mask, axis=-1, keepdims=True), w, 0.0)
    cnt = jnp.sum(is_max, axis=-1, keepdims=True)
    return is_max.astype(scores_QxK.dtype) / jnp.maximum(cnt, 1).astype(scores_QxK.dtype)


def sparsemax_weights(scores_QxK: jax.Array, mask_QxK: jax.Array | None = None) -> jax.Array:
    """Sparsemax (Martins & Astudillo 2016, Algorithm 1): the Euclidean projection of each score
    row onto the probability simplex, ``p_j = max(z_j - tau, 0)``.

    With the row sorted decreasingly, ``z_(1) >= z_(2) >= ...``, the support size is
    ``k(z) = max{k : 1 + k z_(k) > z_(1) + ... + z_(k)}`` and ``tau = (z_(1) + ... + z_(k(z)) - 1)
    / k(z)``. Unlike softmax, weights can be exactly zero, and a row whose top score exceeds every
    other by at least 1 gets a one-hot row (Svete & Cotterell 2024 use this for exact attention).

    Args:
      scores_QxK: float scores, query rows.
      mask_QxK: optional boolean mask, True where query ``i`` may attend to key ``j``.
    Returns:
      ``weights_QxK``: each allowed row sums to 1; masked entries and fully masked rows are 0.
    """
    _validate.check_ndim("scores_QxK", scores_QxK, 2)
    _validate.check_float("scores_QxK", scores_QxK)
    mask = _apply_mask_default(mask_QxK, scores_QxK)
    K = scores_QxK.shape[-1]
    # Masked keys sort last with a score no allowed support can include (1 + k*low < cumsum).
    low = jnp.asarray(jnp.finfo(scores_QxK.dtype).min / (2 * K), scores_QxK.dtype)
    z = jnp.where(mask, scores_QxK, low)
    z_sorted = -jnp.sort(-z, axis=-1)
    cumsum = jnp.cumsum(z_sorted, axis=-1)
    k = jnp.arange(1, K + 1, dtype=z.dtype)[None, :]
    in_support = (1 + k * z_sorted > cumsum) & (z_sorted > low)
    support = jnp.maximum(jnp.sum(in_support, axis=-1, keepdims=True), 1)
    top_sum = jnp.take_along_axis(cumsum, support - 1, axis=-1)
    tau = (top_sum - 1) / support.astype(z.dtype)
    weights = jnp.where(mask, jnp.maximum(z - tau, 0.0), 0.0)
    return jnp.where(jnp.any(mask, axis=-1, keepdims=True), weights, 0.0)


def attention_weights(
    scores_QxK: jax.Array, kind: str, mask_QxK: jax.Array | None = None
) -> jax.Array:
    """Dispatch on ``kind`` in ``{"relu", "softmax", "hard_leftmost", "hard_average",
    "sparsemax"}``.

    Example:
      >>> import jax.numpy as jnp
      >>> scores_QxK = jnp.array([[0.0, 1.0, -1.0]])
      >>> attention_weights(scores_QxK, "relu").tolist()
      [[0.0, 1.0, 0.0]]
      >>> attention_weights(scores_QxK, "hard_leftmost").tolist()
      [[0.0, 1.0, 0.0]]
      >>> weights = attention_weights(scores_QxK, "softmax")
      >>> bool(abs(weights.sum() - 1.0) < 1e-6), int(weights.argmax())
      (True, 1)
    """
    if kind == "relu":
        return relu_weights(scores_QxK, mask_QxK)
    if kind == "softmax":
        return softmax_weights(scores_QxK, mask_QxK)
    if kind == "hard_leftmost":
        return hard_weights(scores_QxK, mask_QxK, mode="leftmost")
    if kind == "hard_average":
        return hard_weights(scores_QxK, mask_QxK, mode="average")
    if kind == "sparsemax":
        return sparsemax_weights(scores_QxK, mask_QxK)
    raise ValueError(
        "kind: expected one of ['relu', 'softmax', 'hard_leftmost', 'hard_average', 'sparsemax'], "
        f"got {kind!r}"
    )


def kernel_attention(
    q_QxE: jax.Array,
    k_KxE: jax.Array,
    v_KxD: jax.Array,
    kernel: kernels.Kernel | None = None,
    rel_pos: jax.Array | None = None,
    mask_QxK: jax.Array | None = None,
    *,
    kind: str = "softmax",
) -> tuple[jax.Array, jax.Array]:
    """General score-kernel attention of Barbero et al. 2024: ``out_i = sum_j alpha_ij v_j``.

    ``alpha_ij = exp(k(q_i, k_j, p_ij)) / sum_w exp(k(q_i, k_w, p_iw))`` over the keys ``j`` that
    ``mask_QxK`` allows (Barbero et al. 2024 uses the causal mask ``j <= i``; Conti 2024, eq. 10 and
    §2.1.1's
    sparse patterns are other masks). Queries and keys may differ in number (cross-attention,
    Conti 2024, §1.2.5). ``kind`` swaps the softmax for ReLU or hard attention.

    Args:
      q_QxE: queries.
      k_KxE: keys (same width ``E`` as the queries).
      v_KxD: values, one row per key.
      kernel: ``k(q_E, k_E, p) -> scalar``; default the plain dot product
        (see :mod:`transformer_theory.core.kernels`).
      rel_pos: ``(Q, K, ...)`` relative positional information ``p_ij``, or None.
      mask_QxK: boolean, True = may attend; a fully masked query row gets zero weights and output.
      kind: ``"softmax"``, ``"relu"``, ``"hard_leftmost"`` or ``"hard_average"``.
    Returns:
      ``(out_QxD, weights_QxK)``.
    """
    _validate.check_ndim("v_KxD", v_KxD, 2)
    _validate.check_float("v_KxD", v_KxD)
    if v_KxD.shape[0] != jnp.shape(k_KxE)[0]:
        raise ValueError(
            f"v_KxD: expected one value row per key ({jnp.shape(k_KxE)[0]}), got shape "
            f"{v_KxD.shape}"
        )
    scores = kernels.kernel_scores(
        q_QxE, k_KxE, kernels.DotKernel() if kernel is None else kernel, rel_pos
    )
    weights = attention_weights(scores, kind, mask_QxK)
    return weights @ v_KxD, weights


def dot_product_attention(
    q_QxE: jax.Array,
    k_KxE: jax.Array,
    v_KxD: jax.Array,
    mask_QxK: jax.Array | None = None,
    *,
    scale: bool = True,
) -> tuple[jax.Array, jax.Array]:
    """``softmax(Q K^T / sqrt(E) + M) V`` (Conti 2024, eq. 5 and the masked eq. 10).

    Conti 2024 prints eq. 5-6 (and Linformer's eq. 17) with ``/k``; §1.2.2's definition and the
    variance argument of §1.2.3 use ``1/sqrt(k)``, which is what ``scale=True`` applies. The mask
    is the boolean form of the additive ``M`` (0 / -inf). Returns ``(out_QxD, weights_QxK)``.
    """
    return kernel_attention(
        q_QxE, k_KxE, v_KxD, kernels.DotKernel(scale=True if scale else None), None, mask_QxK
    )


def softmax_jacobian(s_K: jax.Array) -> jax.Array:
    """The analytic Jacobian ``d s / d z = diag(s) - s s^T`` of ``s = softmax(z)`` (Conti 2024,
    §1.2.3).

    Conti 2024 prints the diagonal of rows 2..n as ``-s_i (1 - s_i)``; the derivation just above it
    gives ``+s_i (1 - s_i)`` for every ``i``, which is what this returns.
    """
    _validate.check_ndim("s_K", s_K, 1)
    _validate.check_float("s_K", s_K)
    return jnp.diag(s_K) - s_K[:, None] * s_K[None, :]
