"""Chen & Zou 2024, §10: instructive attention (Lemma 1) and constrained attention (Lemma 2).

Both act through the position block ``W_pp`` of ``W_QK`` (coordinates ``[d, d + n)`` of the
eq. 3 stream). In the paper's layout the score matrix is ``S = H^T W_QK H`` with ``S[j, i]`` =
key ``j``, query ``i``; for the one-hot positions of eq. 3 (``P = I``) the position block
contributes exactly ``W_pp[j, i]``. Maps ``alpha_NxN`` and masks ``allowed_NxN`` below use the
same ``[key, query]`` layout (the library's attention weights are the transpose, ``[query, key]``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from transformer_theory import _validate


def _check_square(name: str, a, n: int | None = None) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or (n is not None and a.shape[0] != n):
        want = f"({n}, {n})" if n is not None else "(n, n)"
        raise ValueError(f"{name}: expected a square matrix of shape {want}, got shape {a.shape}")
    return a


def _check_layout(vocab_size: int, seq_len: int, width: int) -> None:
    _validate.check_positive("vocab_size", vocab_size)
    _validate.check_positive("seq_len", seq_len)
    if width < vocab_size + seq_len:
        raise ValueError(
            f"width: d' must be at least d + n = {vocab_size} + {seq_len}, got {width}"
        )


def instructive_attention(alpha_NxN: ArrayLike, vocab_size: int, width: int) -> np.ndarray:
    """Lemma 1: the ``W_QK`` whose ReLU attention map is ``alpha`` for every input sequence.

    ``W_QK = [[0, 0, 0], [0, W_pp, 0], [0, 0, 0]]`` with ``W_pp = alpha``; since ``P = I`` the
    score ``H^T W_QK H`` equals ``alpha`` whatever the tokens, and ``relu(alpha) = alpha``.

    Args:
      alpha_NxN: the desired map, ``alpha[j, i]`` = weight of key ``j`` for query ``i``; entries
        must be non-negative (Lemma 1 takes ``alpha`` in ``R_+^{n x n}``: ReLU would clip the rest).
      vocab_size: ``d``.
      width: ``d'`` (at least ``d + n``).
    Returns:
      ``w_qk_DxD`` (float64), the paper's ``W_QK`` (``[key coordinate, query coordinate]``).
    """
    alpha = _check_square("alpha_NxN", alpha_NxN).astype(np.float64)
    n = alpha.shape[0]
    _check_layout(vocab_size, n, width)
    if not np.all(np.isfinite(alpha)) or alpha.min() < 0:
        raise ValueError(
            "alpha_NxN: Lemma 1 needs a finite non-negative map (ReLU clips negative scores)"
        )
    w = np.zeros((width, width))
    w[vocab_size : vocab_size + n, vocab_size : vocab_size + n] = alpha
    return w


def masking_magnitude(w_qk_DxD: ArrayLike, vocab_size: int, seq_len: int) -> np.ndarray:
    """Per-entry bound ``B[j, i]`` on the score of key ``j`` for query ``i`` over all eq. 3 inputs.

    For one-hot tokens and positions the score is
    ``W_tt[x_j, x_i] + W_tp[x_j, i] + W_pt[j, x_i] + W_pp[j, i]`` (eq. 4), hence at most
    ``max W_tt + max_a W_tp[a, i] + max_b W_pt[j, b] + W_pp[j, i]``. Lemma 2 with ReLU attention
    needs a mask magnitude ``M >= max(B[j, i], 0)`` on every masked entry: the masked score is
    then ``<= 0`` and ``relu`` makes the weight exactly zero -- a finite ``M`` suffices, unlike
    softmax, which only approaches zero as ``M -> infinity``.
    """
    w = np.asarray(w_qk_DxD, np.float64)
    d, n = vocab_size, seq_len
    _check_layout(d, n, w.shape[0] if w.ndim == 2 else 0)
    _check_square("w_qk_DxD", w)
    tt = w[:d, :d].max()
    tp = w[:d, d : d + n].max(axis=0)  # over key tokens a, per query position i
    pt = w[d : d + n, :d].max(axis=1)  # over query tokens b, per key position j
    return tt + pt[:, None] + tp[None, :] + w[d : d + n, d : d + n]


def constrained_attention(
    allowed_NxN: ArrayLike,
    vocab_size: int,
    width: int,
    w_qk_DxD: ArrayLike | None = None,
    magnitude: float | None = None,
) -> np.ndarray:
    """Lemma 2: add ``-magnitude`` to ``W_pp[j, i]`` wherever key ``j`` must be hidden from query
    ``i``.

    Args:
      allowed_NxN: boolean ``[key, query]``; False entries are masked.
      vocab_size: ``d``.
      width: ``d'``.
      w_qk_DxD: the ``W_QK`` to constrain (default zeros).
      magnitude: the ``M`` subtracted on masked entries. Default: ``max(B) + 1`` over masked
        entries, with ``B`` from :func:`masking_magnitude`, so masked scores are ``<= -1`` on every
        eq. 3 input. A given magnitude below ``max(B)`` raises, since some input would then leak
        attention through the mask. (The paper writes ``-infinity``; with ReLU any ``M >= max B``
        gives exactly zero weight.) The guarantee is for the one-hot positions of eq. 3, i.e. a
        first layer or a layer whose position block is still one-hot.
    Returns:
      The constrained ``w_qk_DxD`` (float64).
    """
    allowed = _check_square("allowed_NxN", allowed_NxN)
    if allowed.dtype != bool:
        raise ValueError(f"allowed_NxN: expected a boolean mask, got dtype {allowed.dtype}")
    n = allowed.shape[0]
    _check_layout(vocab_size, n, width)
    w = np.zeros((width, width)) if w_qk_DxD is None else np.array(w_qk_DxD, np.float64)
    if w.shape != (width, width):
        raise ValueError(f"w_qk_DxD: expected shape ({width}, {width}), got {w.shape}")
    masked = ~allowed
    if not masked.any():
        return w
    need = max(float(masking_magnitude(w, vocab_size, n)[masked].max()), 0.0)
    if magnitude is None:
        magnitude = need + 1.0
    elif not np.isfinite(magnitude) or magnitude < need:
        raise ValueError(
            f"magnitude: a masked score can reach {need:g} on some input, so the mask "
            f"needs magnitude >= {need:g}, got {magnitude}"
        )
    d = vocab_size
    w[d : d + n, d : d + n] -= magnitude * masked
    return w
