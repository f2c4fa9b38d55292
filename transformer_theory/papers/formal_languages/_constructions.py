"""Recognizers of the formal-language table (Strobl et al. 2024) as :class:`ModelParams`.

Each builder returns parameters of the library's one format, run by
:func:`transformer_theory.core.forward` on ``BOS w_1 .. w_L`` (``BOS = 2``, symbols ``0, 1`` as in
:mod:`._tasks`). The classifier has two outputs; class 1 means "member", and
:func:`decision_margins` returns ``o_1 - o_0`` (positive = accepted). Shape letters: see
:mod:`transformer_theory.glossary`.

- :func:`majority` -- MAJORITY with average-hard attention and no positional encoding (the
  average-hard construction Pérez, Marinković & Barceló 2019 use; row of Strobl et al. 2024).
  One layer, one head, all scores 0, so every position attends uniformly; the value writes
  ``+1`` for ``1``, ``-1`` for ``0`` and ``-1/2`` for BOS, giving ``(#1 - #0 - 1/2) / (L + 1)`` at
  the last position: positive exactly for members, never smaller than ``1 / (2 (L + 1))`` in
  size. The ``-1/2`` of BOS is the tie-breaker (``#1 = #0`` is not a member) a model without
  positions cannot otherwise get, since ``(#1 - #0) / n`` alone cannot tell 0 from ``1/n`` by a
  fixed threshold.
- :func:`parity` -- PARITY with softmax attention, the positional encoding ``(i/n, (-1)^i)`` and
  the layer-norm trick of Chiang & Cholak 2022. Two layers: uniform attention computes
  ``k/n`` (``k`` the number of ``1``) and ``1/n`` (from BOS); an MLP computes at each position
  ``c_i = (-1)^i [i = k] / n`` with the ReLU "tent" ``relu(u + 1/n) - 2 relu(u) + relu(u - 1/n)``,
  ``u = (i - k)/n`` (exact on multiples of ``1/n``); uniform attention again averages ``c`` into
  ``(d, e) = ((-1)^k, -(-1)^k) / n^2``; the second MLP zeroes every other coordinate. The decision
  ``e - d`` is correct for every ``n`` but shrinks like ``1/n^2`` (Hahn's lemma: the cross-entropy
  tends to 1 bit per string); a final LayerNorm with ``eps = 0`` maps ``(d, e)`` to
  ``(-+1, +-1) sqrt(D/2)`` whatever ``n``, so the margin and cross-entropy no longer depend on
  ``n`` -- Chiang & Cholak's trick. The weights are derived here from the paper's mechanism
  (uniform attention for ``k/n``, the sign ``(-1)^i`` picked out at ``i = k``, LayerNorm of
  ``(x, -x)`` with ``eps = 0``), not transcribed from its matrices; the coordinates, the BOS
  source of ``1/n`` and the clean-up MLP are this module's choices.
- :func:`dyck1` -- Dyck-1 with causal average-hard attention, after Yao, Peng, Papadimitriou &
  Narasimhan 2021 (their first layer: the depth from a uniform causal average with a start
  symbol). Layer 1 writes ``r_i = depth_i / (i + 1)`` and ``b_i = 1/(i + 1)``; layer 2 attends from
  the last position to the prefix with the largest ``-r_j`` (the deepest dip below zero, BOS gives
  0) and an MLP forms ``|r_last|``; the decision ``b/2 - max_j(-r_j) - |r_last|`` is at least
  ``1/(2n)`` for members and at most ``-1/(2n)`` otherwise. No positional code is needed for
  Dyck-1; Yao et al.'s ``i/n`` code serves the bracket matching of Dyck-k
  (:mod:`._constructions_dyck_k`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.papers.formal_languages._tasks import BOS, VOCAB_SIZE
from transformer_theory.params import (
    AttentionParams,
    LayerParams,
    MLPParams,
    ModelConfig,
    ModelParams,
    NormParams,
)

__all__ = [
    "RECOGNIZERS",
    "build",
    "decision_margins",
    "dyck1",
    "majority",
    "parity",
    "recognizer_inputs",
]

RECOGNIZERS = ("majority", "parity", "parity_no_layernorm", "dyck1")
DType = jnp.dtype | type  # a dtype or a scalar type such as jnp.float64


def _layer(w_qk, w_v, mlp=None, dtype=jnp.float64) -> LayerParams:
    def arr(x):
        return jnp.asarray(x, dtype)

    return LayerParams(
        attn=AttentionParams(w_v=arr(w_v[None]), w_qk=arr(w_qk[None])),
        mlp=None if mlp is None else MLPParams(*(arr(x) for x in mlp)),
    )


def _check_dtype(dtype):
    try:
        dt = jnp.dtype(dtype)
    except TypeError:
        raise ValueError(f"dtype: expected a floating dtype, got {dtype!r}") from None
    if not jnp.issubdtype(dt, jnp.floating):
        raise ValueError(f"dtype: expected a floating dtype, got {dt.name}")
    # float64 without jax_enable_x64 is stored as float32: check ranges in the dtype JAX uses.
    return jax.dtypes.canonicalize_dtype(dt)


def _check_scale(confidence, dtype) -> float:
    """``confidence`` as a float, refused (``ValueError`` naming it) unless it is a finite positive
    number (not a bool) in ``[sqrt(tiny), sqrt(max)]`` of ``dtype``: outside that range the
    classifier weights, or the margins ``confidence * (a factor between 1/n^2 and 4 sqrt(5))``,
    overflow to ``inf`` or underflow to ``0`` and every answer would be silently wrong."""
    if isinstance(confidence, (bool, np.bool_)):
        raise ValueError(f"confidence: expected a finite positive number, got {confidence!r}")
    _validate.check_positive("confidence", confidence)
    info = jnp.finfo(_check_dtype(dtype))
    low, high = float(np.sqrt(info.tiny)), float(np.sqrt(info.max))
    if not low <= float(confidence) <= high:
        raise ValueError(
            f"confidence: expected a value in [{low:.3g}, {high:.3g}] for {info.dtype.name} "
            f"(margins would underflow or overflow), got {confidence}"
        )
    return float(confidence)


def majority(confidence: float = 1.0, dtype: DType = jnp.float64) -> ModelParams:
    """MAJORITY (more ``1`` than ``0``): one average-hard layer, no positional encoding.

    Args:
      confidence: multiplies the classifier; the margin is ``2 confidence (#1 - #0 - 1/2) / n``.
        A finite positive number within ``[sqrt(tiny), sqrt(max)]`` of ``dtype``.
      dtype: float dtype of the parameters.

    Raises:
      ValueError: naming ``confidence`` or ``dtype`` when it is out of range or not a float.
    """
    alpha = _check_scale(confidence, dtype)
    D = VOCAB_SIZE + 1
    cfg = ModelConfig(VOCAB_SIZE, 2, D, 2, heads=(1,), attention="hard_average", positional="none")
    w_v = np.zeros((D, D))
    w_v[3, [0, 1, BOS]] = [-1.0, 1.0, -0.5]
    w_o = np.zeros((2, D))
    w_o[1, 3], w_o[0, 3] = alpha, -alpha
    layer = _layer(np.zeros((D, D)), w_v, dtype=dtype)
    return ModelParams(layers=(layer,), w_o=jnp.asarray(w_o, dtype), config=cfg)


# PARITY coordinates: tokens 0..2, then the Chiang & Cholak code (i/n, (-1)^i), then scratch.
_P, _S, _A, _B, _C, _D, _E = 3, 4, 5, 6, 7, 8, 9
_PARITY_WIDTH = 10


def parity(
    layer_norm: bool = True, confidence: float = 1.0, dtype: DType = jnp.float64
) -> ModelParams:
    """PARITY (an odd number of ``1``): two softmax layers, code ``(i/n, (-1)^i)``.

    Args:
      layer_norm: apply the final LayerNorm with ``eps = 0`` (Chiang & Cholak's trick); without it
        the margin is ``4 confidence / n^2``, with it ``4 confidence sqrt(D/2)`` for every ``n``.
      confidence: multiplies the classifier (range as in :func:`majority`).
      dtype: float dtype of the parameters.
    """
    if not isinstance(layer_norm, (bool, np.bool_)):
        raise ValueError(f"layer_norm: expected True or False, got {layer_norm!r}")
    alpha = _check_scale(confidence, dtype)
    D = _PARITY_WIDTH
    keep = (_D, _E)
    clean = [j for j in range(D) if j not in keep]
    F = 2 * len(clean)
    cfg = ModelConfig(
        VOCAB_SIZE,
        2,
        D,
        2,
        heads=(1, 1),
        attention="softmax",
        positional="chiang_cholak",
        mlp_hidden=F,
        final_norm="layernorm" if layer_norm else None,
        norm_eps=0.0,
    )
    # Layer 1: uniform attention averages [w_i = 1] into a = k/n and [w_i = BOS] into b = 1/n.
    v1 = np.zeros((D, D))
    v1[_A, 1] = 1.0
    v1[_B, BOS] = 1.0
    # Its MLP: for each sign sigma a tent in u = p - a gated by s = (-1)^i: the shift
    # 2 sigma s - 2 is 0 where s = sigma and -4 (every argument negative) where s = -sigma.
    w1, b1, w2 = np.zeros((F, D)), np.zeros(F), np.zeros((D, F))
    unit = 0
    for sigma in (1.0, -1.0):
        for offset, weight in ((1.0, 1.0), (0.0, -2.0), (-1.0, 1.0)):
            w1[unit, [_P, _A, _B, _S]] = [1.0, -1.0, offset, 2.0 * sigma]
            b1[unit] = -2.0
            w2[_C, unit] = sigma * weight
            unit += 1
    layer1 = _layer(np.zeros((D, D)), v1, (w1, b1, w2, np.zeros(D)), dtype)
    # Layer 2: uniform attention averages c into d (and -c into e); the MLP subtracts every other
    # coordinate (relu(x) - relu(-x) = x exactly), so the last stream is (0, .., d, -d).
    v2 = np.zeros((D, D))
    v2[_D, _C], v2[_E, _C] = 1.0, -1.0
    w1, w2 = np.zeros((F, D)), np.zeros((D, F))
    for u, j in enumerate(clean):
        w1[2 * u, j], w1[2 * u + 1, j] = 1.0, -1.0
        w2[j, 2 * u], w2[j, 2 * u + 1] = -1.0, 1.0
    layer2 = _layer(np.zeros((D, D)), v2, (w1, np.zeros(F), w2, np.zeros(D)), dtype)
    w_o = np.zeros((2, D))
    w_o[1, [_D, _E]] = [-alpha, alpha]
    w_o[0, [_D, _E]] = [alpha, -alpha]
    final = None
    if layer_norm:
        final = NormParams(scale=jnp.ones((D,), dtype), bias=jnp.zeros((D,), dtype))
    return ModelParams(
        layers=(layer1, layer2), w_o=jnp.asarray(w_o, dtype), final_norm=final, config=cfg
    )


# Dyck-1 coordinates: tokens 0..2, r = depth/(i+1), b = 1/(i+1), t = max dip, g = -|r|.
_R, _BD, _T, _G = 3, 4, 5, 6


def dyck1(confidence: float = 1.0, dtype: DType = jnp.float64) -> ModelParams:
    """Dyck-1 (``0 = "("``, ``1 = ")"``): two causal average-hard layers, no positional code.

    Args:
      confidence: multiplies the classifier; the margin is ``confidence (b/2 - dip - |r|)``, at
        least ``confidence / (2n)`` in size (range as in :func:`majority`).
      dtype: float dtype of the parameters.
    """
    alpha = _check_scale(confidence, dtype)
    D = 7
    cfg = ModelConfig(
        VOCAB_SIZE,
        2,
        D,
        2,
        heads=(1, 1),
        attention="hard_average",
        causal=True,
        positional="none",
        mlp_hidden=2,
    )
    zero_mlp = (np.zeros((2, D)), np.zeros(2), np.zeros((D, 2)), np.zeros(D))
    v1 = np.zeros((D, D))
    v1[_R, [0, 1]] = [1.0, -1.0]
    v1[_BD, BOS] = 1.0
    layer1 = _layer(np.zeros((D, D)), v1, zero_mlp, dtype)
    # Score of query i for key j: h_j^T W h_i = b_i * (-r_j); b_i > 0, so hardmax picks the
    # prefixes with the largest -r_j.
    qk = np.zeros((D, D))
    qk[_R, _BD] = -1.0
    v2 = np.zeros((D, D))
    v2[_T, _R] = -1.0
    w1 = np.zeros((2, D))
    w1[0, _R], w1[1, _R] = 1.0, -1.0
    w2 = np.zeros((D, 2))
    w2[_G] = [-1.0, -1.0]
    layer2 = _layer(qk, v2, (w1, np.zeros(2), w2, np.zeros(D)), dtype)
    w_o = np.zeros((2, D))
    w_o[1, [_BD, _T, _G]] = [0.5 * alpha, -alpha, alpha]
    return ModelParams(layers=(layer1, layer2), w_o=jnp.asarray(w_o, dtype), config=cfg)


def build(name: str, dtype: DType = jnp.float64, confidence: float = 1.0) -> ModelParams:
    """The recognizer ``name`` of :data:`RECOGNIZERS` (``parity_no_layernorm``: PARITY without the
    final LayerNorm). Every numeric argument is checked by the builder (``ValueError`` naming
    it)."""
    _validate.check_choice("name", name, RECOGNIZERS)
    if name == "majority":
        return majority(confidence, dtype)
    if name == "dyck1":
        return dyck1(confidence, dtype)
    return parity(layer_norm=name == "parity", confidence=confidence, dtype=dtype)


def recognizer_inputs(strings_BxN: ArrayLike) -> jax.Array:
    """``BOS w_1 .. w_L`` for every row: what the recognizers read."""
    strings = jnp.asarray(strings_BxN)
    _validate.check_ndim("strings_BxN", strings, 2)
    _validate.check_token_ids("strings_BxN", strings, 2)
    bos = jnp.full((strings.shape[0], 1), BOS, strings.dtype)
    return jnp.concatenate([bos, strings], axis=1)


@jax.jit
def _margins(params, inputs_BxN):
    from transformer_theory.core import forward

    logits = jax.vmap(lambda t: forward(params, t))(inputs_BxN)
    return logits[:, 1] - logits[:, 0]


def decision_margins(
    params: ModelParams, strings_BxN: ArrayLike, chunk: int | None = None
) -> np.ndarray:
    """``o_1 - o_0`` (positive = member) of every string, evaluated in chunks of ``chunk`` rows
    (default: about ``2^22 / n^2`` rows, so the ``n x n`` attention maps stay small)."""
    inputs = recognizer_inputs(strings_BxN)
    B, N = inputs.shape
    if chunk is None:
        chunk = max(1, 2**22 // (N * N))
    _validate.check_positive("chunk", chunk)
    if isinstance(chunk, (bool, np.bool_)) or int(chunk) != chunk:
        raise ValueError(f"chunk: expected a positive integer, got {chunk!r}")
    chunk = int(chunk)
    out = [np.asarray(_margins(params, inputs[i : i + chunk])) for i in range(0, B, chunk)]
    return np.concatenate(out) if out else np.zeros((0,))
