"""Match2 of Sanford, Hsu & Telgarsky 2023 (Theorem 6): one softmax unit of query/key width 3 that
computes ``Match2(X)_i = 1{exists j: x_i + x_j = 0 (mod M)}`` exactly, with its input map, its
prediction and the scale it must resolve (:func:`match2_scale_log2`).

Shape letters: :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

from transformer_theory.papers.sanford2023._constructions import run_streams, softmax_mlp_layer
from transformer_theory.params import ModelConfig, ModelParams

__all__ = [
    "match2_apply",
    "match2_construction",
    "match2_embed",
    "match2_scale",
    "match2_scale_log2",
]


def match2_scale(seq_len: int, modulus: int) -> float:
    """``c = M^2 log(6N)`` (Sanford et al. 2023, proof of Theorem 6)."""
    _check_sizes(seq_len, modulus)
    return modulus**2 * math.log(6 * seq_len)


def match2_scale_log2(seq_len: int, modulus: int, window: int = 0) -> float:
    """``log2 c``, ``c = M^2 log(6N)``: a score ``c cos(2 pi s / M)`` must tell ``s = 0`` from
    ``s = 1``, a difference of ``2 pi^2 log(6N)`` against a rounding of ``c`` times the format's
    unit (a float even where ``M`` is beyond int64; ``window`` is unused: the registry's common
    signature)."""
    _check_sizes(seq_len, modulus)
    return 2 * math.log2(int(modulus)) + math.log2(math.log(6 * seq_len))


def _check_sizes(seq_len: int, modulus: int) -> None:
    if int(seq_len) < 1:
        raise ValueError(f"seq_len: expected N >= 1, got {seq_len}")
    if int(modulus) < 2:
        raise ValueError(f"modulus: expected M >= 2, got {modulus}")


def match2_construction(seq_len: int, modulus: int, dtype: DTypeLike = jnp.float64) -> ModelParams:
    """One softmax unit with query/key width ``m = 3`` that computes Match2 on ``[M]^N`` exactly.

    The blank ``x'`` is appended at position ``N`` (the model's ``seq_len`` is ``N + 1``). The input
    map :func:`match2_embed` gives ``phi(x) = (cos 2 pi x/M, sin 2 pi x/M, 1, 0, 0, 0)`` and
    ``phi(x') = e_4``; ``w_q`` makes ``Q^T phi(x) = c (cos, sin, 1)``, ``Q^T phi(x') = 0``, ``w_k``
    makes ``K^T phi(x) = (cos, -sin, 0)``, ``K^T phi(x') = e_3``, so a query scores
    ``c cos(2 pi (x_i + x_j)/M)`` on a token and ``c`` on the blank. ``w_v`` writes ``1{x_j != x'}``
    into slot 4; the MLP ``relu(6 s - 1) - relu(6 s - 2)`` writes 0 for ``s <= 1/6`` and 1 for
    ``s >= 1/3`` into slot 5, the answer (read by :func:`match2_apply`).

    The slides print "mod N" in the softmax bounds of this proof; the statement proved is about
    ``x_i + x_j = 0 (mod M)`` (the scores are periodic in ``M``), which is what is implemented.
    """
    if int(seq_len) < 1:
        raise ValueError(f"seq_len: expected N >= 1, got {seq_len}")
    if int(modulus) < 2:
        raise ValueError(f"modulus: expected M >= 2, got {modulus}")
    c = match2_scale(seq_len, modulus)
    width = 6
    eye = np.eye(width)
    w_q = c * eye[:3]
    w_k = np.stack([eye[0], -eye[1], eye[3]])
    w_v = np.zeros((width, width))
    w_v[4, 2] = 1.0
    w1 = np.zeros((2, width))
    w1[:, 4] = 6.0
    w2 = np.zeros((width, 2))
    w2[5] = [1.0, -1.0]
    cfg = ModelConfig(
        vocab_size=1,
        seq_len=seq_len + 1,
        width=width,
        num_classes=1,
        heads=(1,),
        attention="softmax",
        positional="none",
        qk_dim=3,
        mlp_hidden=2,
    )

    layer = softmax_mlp_layer(dtype, w_v[None], w_q[None], w_k[None], w1, [-1.0, -2.0], w2)
    return ModelParams(layers=(layer,), w_o=jnp.asarray(eye[5:6], dtype), config=cfg)


def match2_embed(x_BxN: np.ndarray, modulus: int) -> np.ndarray:
    """The input map ``phi`` of :func:`match2_construction` on ``X' = (x_1..x_N, x')``: float64
    ``(B, N + 1, 6)``; the angle ``2 pi x / M`` is reduced exactly in integers first."""
    x = np.asarray(x_BxN, np.int64)
    if x.ndim != 2:
        raise ValueError(f"x_BxN: expected a (B, N) array, got shape {x.shape}")
    if x.size and (x.min() < 0 or x.max() >= modulus):
        raise ValueError(f"x_BxN: tokens must lie in [0, {modulus}), got [{x.min()}, {x.max()}]")
    angle = 2 * np.pi * x / modulus
    zeros = np.zeros_like(angle)
    tokens = np.stack([np.cos(angle), np.sin(angle), np.ones_like(angle), zeros, zeros, zeros], -1)
    blank = np.broadcast_to(np.eye(6)[3], (len(x), 1, 6))
    return np.concatenate([tokens, blank], axis=1)


def match2_apply(params: ModelParams, x_BxN: np.ndarray, modulus: int) -> np.ndarray:
    """Match2 predictions ``bool (B, N)``: embed with the blank, run in the params' dtype, read
    slot 5 (> 1/2)."""
    x = np.asarray(x_BxN, np.int64)
    if x.ndim != 2 or x.shape[1] + 1 != params.config.seq_len:
        raise ValueError(f"x_BxN: expected shape (B, {params.config.seq_len - 1}), got {x.shape}")
    stream = jnp.asarray(match2_embed(x, modulus), params.w_o.dtype)
    out, _ = run_streams(params, stream)
    return np.asarray(out[:, :-1, 5], np.float64) > 0.5
