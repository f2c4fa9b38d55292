"""Sub-quadratic attention of Conti 2024, §2.1.2-2.1.3: kernel linear attention and Linformer.

Shape letters as in :mod:`transformer_theory.glossary`: ``N`` positions (queries = keys for
self-attention), ``E`` query/key width and the feature width of ``phi``, ``D`` value width, ``R``
Linformer's projected length (its rank) ``k'``.

Linear attention (Conti 2024, eq. 13-15) replaces ``exp(q_i . k_j)`` by ``sim(q_i, k_j) = phi(q_i) .
phi(k_j)``:
``V'_i = phi(q_i)^T S / phi(q_i)^T z`` with ``S = sum_j phi(k_j) v_j^T`` (``E x D``) and
``z = sum_j phi(k_j)``, computed once (non-causal, O(N)) or as prefix sums over ``j <= i`` (causal).
:func:`linear_attention_quadratic` is the explicit ``N x N`` form the O(N) one must equal.

The first-order Taylor form (:func:`taylor_attention`) uses ``sim = 1 + q^ . k^`` with
``q^ = q / ||q||_2``, ``k^ = k / ||k||_2``, i.e. ``phi(x) = [1, x^]``. Conti 2024 prints the
numerator as ``sum_j (1 + q^_i^T sum_j k^_j) V_j`` (an inner sum over all keys, which would give
every key the same weight); the intended and implemented form is
``V'_i = (sum_j V_j + (sum_j V_j k^_j^T) q^_i) / (n + q^_i^T sum_j k^_j)``, which is the paper's
own "simplified" line read with the sums in place.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import attention, kernels, masks

FeatureMap = Callable[[jax.Array], jax.Array]


def _check_qkv(q_NxE, k_NxE, v_NxD):
    for name, x in (("q_NxE", q_NxE), ("k_NxE", k_NxE), ("v_NxD", v_NxD)):
        _validate.check_ndim(name, x, 2)
        _validate.check_float(name, x)
    if k_NxE.shape[1] != q_NxE.shape[1]:
        raise ValueError(
            f"k_NxE: keys must have the queries' width {q_NxE.shape[1]}, got shape {k_NxE.shape}"
        )
    if v_NxD.shape[0] != k_NxE.shape[0]:
        raise ValueError(
            f"v_NxD: expected one value row per key ({k_NxE.shape[0]}), got shape {v_NxD.shape}"
        )


def _features(feature_map: FeatureMap, q_NxE, k_NxE):
    if not callable(feature_map):
        raise ValueError(
            f"feature_map: expected a callable phi(x_NxE) -> (N, F), got {feature_map!r}"
        )
    fq, fk = feature_map(q_NxE), feature_map(k_NxE)
    if (
        fq.ndim != 2
        or fk.ndim != 2
        or fq.shape[0] != q_NxE.shape[0]
        or fk.shape[0] != k_NxE.shape[0]
        or fq.shape[1] != fk.shape[1]
    ):
        raise ValueError(
            f"feature_map: must map (N, E) rows to (N, F) rows, got {fq.shape} and {fk.shape}"
        )
    return fq, fk


def _safe_divide(num, den):
    # A zero denominator only happens when every similarity is 0 (e.g. an empty causal prefix or a
    # feature map with zeros); the output is then 0, like a fully masked softmax row.
    ok = den != 0
    return jnp.where(ok, num / jnp.where(ok, den, 1.0), 0.0)


def linear_attention(
    q_NxE: jax.Array,
    k_NxE: jax.Array,
    v_NxD: jax.Array,
    feature_map: FeatureMap = kernels.elu_plus_one,
    *,
    causal: bool = False,
) -> jax.Array:
    """Kernelized linear attention in O(N) (Conti 2024, §2.1.2, the equation after eq. 15).

    Args:
      q_NxE, k_NxE: queries and keys (self-attention: the same length ``N``).
      v_NxD: values.
      feature_map: ``phi: (N, E) -> (N, F)``, row-wise, with non-negative similarities
        ``phi(q) . phi(k)`` (e.g. :func:`~transformer_theory.core.kernels.elu_plus_one`).
      causal: prefix sums ``S_i = sum_{j <= i} phi(k_j) v_j^T`` (the masked form of Conti 2024).
    Returns:
      ``out_NxD``.
    """
    _check_qkv(q_NxE, k_NxE, v_NxD)
    if q_NxE.shape[0] != k_NxE.shape[0]:
        raise ValueError(
            "k_NxE: linear self-attention needs as many keys as queries "
            f"({q_NxE.shape[0]}), got {k_NxE.shape[0]}"
        )
    fq, fk = _features(feature_map, q_NxE, k_NxE)
    if causal:
        # Prefix sums by an associative scan (log-depth on accelerators): S_i, z_i over j <= i.
        s_NxExD = jax.lax.associative_scan(jnp.add, fk[:, :, None] * v_NxD[:, None, :], axis=0)
        z_NxE = jax.lax.associative_scan(jnp.add, fk, axis=0)
        num = jnp.einsum("nf,nfd->nd", fq, s_NxExD)
        den = jnp.sum(fq * z_NxE, axis=-1, keepdims=True)
    else:
        s_ExD = fk.T @ v_NxD
        z_E = jnp.sum(fk, axis=0)
        num = fq @ s_ExD
        den = (fq @ z_E)[:, None]
    return _safe_divide(num, den)


def linear_attention_quadratic(
    q_NxE: jax.Array,
    k_NxE: jax.Array,
    v_NxD: jax.Array,
    feature_map: FeatureMap = kernels.elu_plus_one,
    *,
    causal: bool = False,
    mask_NxK: jax.Array | None = None,
) -> tuple[jax.Array, jax.Array]:
    """The explicit quadratic form of Conti 2024, eq. 15: ``alpha_ij = sim_ij / sum_w sim_iw``.

    Returns ``(out_NxD, weights_NxK)``; also accepts any boolean mask (the sparse patterns of
    :mod:`~transformer_theory.core.masks`), and cross-attention (``K`` keys for ``N`` queries).
    Fully masked rows, or rows whose similarities are all zero, get zero weights.
    """
    _check_qkv(q_NxE, k_NxE, v_NxD)
    fq, fk = _features(feature_map, q_NxE, k_NxE)
    sim = fq @ fk.T
    n, k = sim.shape
    if mask_NxK is not None:
        _validate.check_mask("mask_NxK", mask_NxK, (n, k))
    mask = jnp.ones((n, k), bool) if mask_NxK is None else mask_NxK
    if causal:
        if n != k:
            raise ValueError(f"causal: needs as many keys as queries, got {n} queries and {k} keys")
        mask = mask & masks.causal_mask(n)
    sim = jnp.where(mask, sim, 0.0)
    weights = _safe_divide(sim, jnp.sum(sim, axis=-1, keepdims=True))
    return weights @ v_NxD, weights


def taylor_attention(
    q_NxE: jax.Array, k_NxE: jax.Array, v_NxD: jax.Array, *, causal: bool = False
) -> jax.Array:
    """First-order Taylor linear attention, ``sim(q, k) = 1 + q^ . k^`` (Conti 2024, §2.1.2,
    corrected).

    ``V'_i = (sum_j v_j + (sum_j v_j k^_j^T) q^_i) / (n + q^_i . sum_j k^_j)`` (sums over ``j <= i``
    when ``causal``), computed in O(N) through the feature map ``[1, x^]``. See the module docstring
    for the printed formula's misplaced inner sum. Returns ``out_NxD``.
    """
    return linear_attention(q_NxE, k_NxE, v_NxD, kernels.taylor_feature_map, causal=causal)


def linformer_attention(
    q_NxE: jax.Array,
    k_NxE: jax.Array,
    v_NxD: jax.Array,
    e_RxN: jax.Array,
    f_RxN: jax.Array,
    *,
    scale: bool = True,
) -> tuple[jax.Array, jax.Array]:
    """Linformer (Conti 2024, eq. 17): ``softmax(Q (E K)^T / sqrt(E_dim)) (F V)``.

    Keys and values are projected along the sequence axis by ``E, F: (k', n)``, so the attention map
    is ``N x k'`` instead of ``N x N``. Conti 2024 prints the scaling as ``/k``; ``scale=True`` uses
    ``1/sqrt(k)`` as §1.2.2-1.2.3 define it (see
    :func:`~transformer_theory.core.attention.dot_product_attention`).

    Returns:
      ``(out_NxD, weights_NxR)``.
    """
    _check_qkv(q_NxE, k_NxE, v_NxD)
    n = k_NxE.shape[0]
    for name, w in (("e_RxN", e_RxN), ("f_RxN", f_RxN)):
        _validate.check_ndim(name, w, 2)
        _validate.check_float(name, w)
        if w.shape[1] != n:
            raise ValueError(
                f"{name}: expected shape (k', {n}) projecting the {n} keys/values, got {w.shape}"
            )
    if e_RxN.shape[0] != f_RxN.shape[0]:
        raise ValueError(
            f"f_RxN: expected the same k' as e_RxN ({e_RxN.shape[0]}), got {f_RxN.shape}"
        )
    return attention.dot_product_attention(q_NxE, e_RxN @ k_NxE, f_RxN @ v_NxD, scale=scale)
