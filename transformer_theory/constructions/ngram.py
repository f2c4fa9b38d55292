"""n-gram language models as transformer LMs (Svete & Cotterell 2024, Theorems 3.1-3.3).

Every construction returns the library's one parameter format (:class:`ModelParams` with
``causal_lm=True``, read by :func:`transformer_theory.core.lm_log_probs`) whose log-probability of
every string equals the n-gram LM's (weak equivalence, ``p(y) = q(y)`` for all ``y``, EOS
included). The model reads ``BOS^{n-1} y`` (``bos_pad = n - 1``); input position ``i`` (0-based;
the slides' ``t = i + 1``) predicts the next symbol, so its history is the ``w = n - 1`` inputs
``i - w + 1 .. i`` -- BOS-padded at the start, exactly the n-gram's histories.

Residual stream (``D`` coordinates), in blocks:

- ``[0, V)``: the one-hot input id (``V = |Sigma| + 1``: the symbols, then BOS);
- the positional code: ``"svete"`` with ``w`` pairs for Theorems 3.1/3.2, ``"ngram_window"`` for
  Theorem 3.3 (:mod:`transformer_theory.core.positional`);
- ``w`` history blocks of ``V`` (3.1/3.2: block ``h`` receives the one-hot id at position
  ``i - h``) or one slot block of ``V w`` (3.3: the window's ``onehot(y_j) (x) onehot(j mod w)``
  averaged);
- ``A`` history indicators: the MLP writes 1 into the coordinate of the one history that matches
  (one ReLU unit per history, an AND of ``w`` one-hot coordinates: ``relu(sum - (w - 1))``);
- ``W_O[c, a] = log p(c | a)`` (``-inf`` for an exact zero; :func:`core.forward.output_logits`
  multiplies ``0 * (-inf) = 0``), so the logits are the n-gram's conditional log-probabilities.

The three theorems differ in how the history reaches the last position:

- **3.1, ``n - 1`` heads, one layer.** Head ``h`` scores key ``j`` by ``<u(t), u(j + h)>`` with
  ``u(s) = (sqrt(1/s), sqrt(1 - 1/s))``, a cosine that is 1 exactly at ``j = t - h`` and below 1
  elsewhere; hardmax then attends to ``t - h`` and ``W_V`` copies its id into block ``h``.
- **3.2, one head, ``n - 1`` layers.** Layer ``l`` holds the single head with offset ``h = l``
  of 3.1 (it reads the id block, which no layer writes, so the layers do not interfere); the
  last layer carries the MLP. (The slides give only the head/layer counts; the paper's proof
  composes offsets layer by layer, this is one valid instance of it.)
- **3.3, one head, one layer.** The score ``c(t) . (1, j, .., j^{2w})`` with ``c(t)`` the
  coefficients of ``-prod_{h<w} (j - t + h)^2`` is exactly 0 on the window ``t-w+1..t`` and at
  most ``-1`` elsewhere, so average-hard attention averages the window; each symbol sits in the
  slot ``j mod w`` of its position, so the average keeps the order, and a unit per (history,
  ``t mod w``) reads it.

Reading the slides' formulas (garbled in extraction): the first display writes the query map as
``(sqrt(1/t), sqrt(1 - 1/(t+h)))``, mixing two positions; the score line of the same slide uses
``Q: r(y_t, t) -> u(t)`` and ``K_h: r(y_j, j) -> u(j + h)``, which is what the proof's argument
needs (a cosine of two UNIT vectors, equal to 1 exactly at the target) and what is implemented.
The literal map is not a unit vector, so its peak value is not 1 and that argument does not
apply; its argmax happens to be ``t - h`` as well for every ``t > h`` (the only positions a
prediction reads), which ``tests/ngram/test_constructions.py`` checks beside the peak value. The
code's last entries ``sqrt(1/(t+n-1))`` should read ``t + n - 2``: ``n - 1`` heads need offsets
``h = 0..n-2`` (one more pair would be unused).

Attention kinds: ``"hard"`` is average-hard attention (Strobl et al. 2024; for 3.1/3.2 the maximizer
is unique, so leftmost-hard would give the same); ``"sparse"`` is sparsemax (Martins & Astudillo
2016) with the scores multiplied by ``beta`` so that the peak leads every other key by at least 1
up to ``max_len`` (:func:`sparse_beta`; 3.3's integer gap needs ``beta = 1``); ``"softmax"``
multiplies the scores by a given ``beta`` (the soft-attention study: exact only as ``beta -> inf``).
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate
from transformer_theory.constructions._common import check_dtype
from transformer_theory.core import positional
from transformer_theory.params import (
    AttentionParams,
    LayerParams,
    MLPParams,
    ModelConfig,
    ModelParams,
)
from transformer_theory.tasks.ngram import NGramLM

CONSTRUCTIONS = ("3.1", "3.2", "3.3")
ATTENTIONS = ("hard", "sparse", "softmax")
_KIND = {"hard": "hard_average", "sparse": "sparsemax", "softmax": "softmax"}


def _theta(s: np.ndarray) -> np.ndarray:
    """The angle of ``u(s) = (sin theta, cos theta)``: ``theta = arcsin(sqrt(1/s))``."""
    return np.arcsin(np.sqrt(1.0 / np.asarray(s, np.float64)))


def score_gap(t) -> np.ndarray:
    """The exact gap ``1 - max_{s != t} <u(t), u(s)>`` of the 3.1/3.2 score at shifted position
    ``t``.

    ``<u(t), u(s)> = cos(theta_t - theta_s)`` and ``theta`` decreases in ``s``, so the runner-up
    is a neighbour: ``gap = min_{s = t +- 1} 2 sin^2((theta_t - theta_s) / 2)`` (the form that
    does not cancel), ``~ 1 / (8 t^3)`` for large ``t``. ``t >= 1``; at ``t = 1`` only ``s = 2``.
    """
    t = np.asarray(t, np.float64)
    up = 2.0 * np.sin((_theta(t) - _theta(t + 1)) / 2.0) ** 2
    down = np.where(t > 1, 2.0 * np.sin((_theta(np.maximum(t - 1, 1)) - _theta(t)) / 2.0) ** 2, up)
    return np.minimum(up, down)


def sparse_beta(construction: str, max_len: int, order: int) -> float:
    """The score multiplier that makes sparsemax one-hot (3.1/3.2) up to ``max_len`` symbols.

    Sparsemax puts all weight on the top key when it leads the runner-up by at least 1; the
    smallest lead of the 3.1/3.2 score among the shifted positions ``t <= max_len + n - 1`` is
    :func:`score_gap` at the largest one (the gap decreases in ``t``), so ``beta = 1 / gap``
    (times ``1 + 1e-6`` against rounding of the product). 3.3's scores are integers with a lead of
    at least 1 already: ``beta = 1``.
    """
    if construction == "3.3":
        return 1.0
    last = max_len + 2 * (order - 1)
    gaps = score_gap(np.arange(1, last + 1))
    return float((1.0 + 1e-6) / gaps.min())


def _check(lm, construction, attention, beta, max_len):
    if not isinstance(lm, NGramLM):
        raise ValueError(f"lm: expected an NGramLM, got {type(lm).__name__}")
    if lm.order < 2:
        raise ValueError(
            f"lm.order: the constructions attend to a history of n - 1 >= 1 symbols, got n = "
            f"{lm.order} (a unigram LM needs no attention)"
        )
    _validate.check_choice("construction", construction, CONSTRUCTIONS)
    _validate.check_choice("attention", attention, ATTENTIONS)
    if attention == "softmax" and (beta is None or not beta > 0 or not math.isfinite(beta)):
        raise ValueError(f"beta: softmax attention needs a finite score scale beta > 0, got {beta}")
    if max_len is not None and (not isinstance(max_len, int) or max_len < 0):
        raise ValueError(f"max_len: expected an integer >= 0, got {max_len!r}")


def build(
    lm: NGramLM,
    construction: str = "3.1",
    *,
    attention: str = "hard",
    beta: float | None = None,
    max_len: int = 64,
    dtype=jnp.float64,
) -> ModelParams:
    """A transformer LM weakly equivalent to ``lm`` (Svete & Cotterell 2024, Theorem 3.1/3.2/3.3).

    Args:
      lm: the n-gram LM (order ``n >= 2``).
      construction: ``"3.1"`` (``n - 1`` heads, one layer), ``"3.2"`` (one head, ``n - 1``
        layers) or ``"3.3"`` (one head, one layer).
      attention: ``"hard"``, ``"sparse"`` or ``"softmax"`` (see the module docstring).
      beta: the score scale of ``"softmax"`` (required there); ignored otherwise (``"sparse"``
        derives its own from ``max_len``).
      max_len: the longest string the model is laid out for (``seq_len``; sparse attention's scale
        is chosen for it). Longer strings still run; whether they stay exact is what the precision
        study measures.
      dtype: the parameters' float dtype (float64 needs ``jax_enable_x64``).
    """
    _check(lm, construction, attention, beta, max_len)
    check_dtype(dtype)
    S, w = lm.alphabet_size, lm.order - 1
    V = S + 1
    hist = lm.histories_AxN  # (A, w), oldest first; BOS = S
    A = len(hist)
    if attention == "sparse":
        beta = sparse_beta(construction, max_len, lm.order)
    elif attention == "hard":
        beta = 1.0
    code_kind = "ngram_window" if construction == "3.3" else "svete"
    p = positional.code_dim(code_kind, 1, window=w, vocab_size=V)
    pos0 = V
    store0 = pos0 + p  # history blocks (3.1/3.2) or averaged slots (3.3)
    store = w * V
    ind0 = store0 + store
    D = ind0 + A
    heads = (w,) if construction == "3.1" else (1,) * w if construction == "3.2" else (1,)
    units = A * w if construction == "3.3" else A
    config = ModelConfig(
        vocab_size=V,
        seq_len=max_len + w,
        width=D,
        num_classes=V,
        heads=heads,
        attention=_KIND[attention],
        causal=True,
        head_mean=False,
        positional=code_kind,
        mlp_hidden=units,
        positional_window=w,
        causal_lm=True,
        bos_pad=w,
    )

    w1 = np.zeros((units, D))
    b1 = np.zeros(units)
    w2 = np.zeros((D, units))
    if construction == "3.3":
        # the ngram_window code: powers (2w+1), coefficients (2w+1), onehot(t mod w) (w),
        # slots onehot(y_t) (x) onehot(t mod w) (V w, symbol-major)
        powers0, coeffs0 = pos0, pos0 + 2 * w + 1
        residue0 = coeffs0 + 2 * w + 1
        slots0 = residue0 + w
        w_qk = np.zeros((1, D, D))
        for k in range(2 * w + 1):
            w_qk[0, powers0 + k, coeffs0 + k] = beta  # key powers . query coefficients
        w_v = np.zeros((1, D, D))
        w_v[0, store0 : store0 + store, slots0 : slots0 + store] = np.eye(store)
        layers_qk_v = [(w_qk, w_v)]
        # unit (a, r): the query's residue is r = t mod w; the window's k-th symbol (oldest first,
        # position t - w + 1 + k) sits in slot (r + 1 + k) mod w. The average gives each slot
        # weight 1/w, hence the factor w.
        for a in range(A):
            for r in range(w):
                u = a * w + r
                for k in range(w):
                    w1[u, store0 + hist[a, k] * w + (r + 1 + k) % w] = w
                w1[u, residue0 + r] = 1.0
                b1[u] = -float(w)
                w2[ind0 + a, u] = 1.0
    else:
        w_v = np.zeros((w, D, D))
        w_qk = np.zeros((w, D, D))
        for h in range(w):
            # key pair h (u(j + h)) against query pair 0 (u(t)): W_QK[key coord, query coord]
            for c in range(2):
                w_qk[h, pos0 + 2 * h + c, pos0 + c] = beta
            w_v[h, store0 + h * V : store0 + (h + 1) * V, 0:V] = np.eye(V)
        layers_qk_v = (
            [(w_qk, w_v)]
            if construction == "3.1"
            else [(w_qk[h : h + 1], w_v[h : h + 1]) for h in range(w)]
        )
        # unit a fires iff block h holds hist[a][w - 1 - h] for every h (block h = position t - h)
        for a in range(A):
            for h in range(w):
                w1[a, store0 + h * V + hist[a, w - 1 - h]] = 1.0
            b1[a] = -(w - 1.0)
            w2[ind0 + a, a] = 1.0
    w_o = np.zeros((V, D))
    w_o[:, ind0:] = lm.log_probs_AxC.T

    def arr(x):
        return jnp.asarray(x, dtype)

    layers = []
    for idx, (qk, v) in enumerate(layers_qk_v):
        last = idx == len(layers_qk_v) - 1
        mlp = MLPParams(w1=arr(w1), b1=arr(b1), w2=arr(w2), b2=arr(np.zeros(D))) if last else None
        layers.append(LayerParams(attn=AttentionParams(w_v=arr(v), w_qk=arr(qk)), mlp=mlp))
    return ModelParams(layers=tuple(layers), w_o=arr(w_o), config=config)
