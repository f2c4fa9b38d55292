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

The constructions differ in how the history reaches the last position. This module holds the
paper's three, as the authors build them in rycolab/transformer-ngrams (``ngrams/transform/
heads.py``, ``layers.py``, ``single.py``); this library's two variants of them (3.2-direct,
3.3-slots) are in :mod:`._constructions_variants`, and the stream they all share in
:mod:`._constructions_layout`.
:func:`build` builds any of the four :data:`REGISTRY` entries by name (``REGISTRY[name].paper``
says whose it is; :func:`softmax_model`: one with softmax attention, laid out for the KL); the
paper's 3.3 is its own small model (:func:`build_paper33`).

- **3.1, ``n - 1`` heads, one layer** (:class:`Theorem31`). Head ``h`` scores key ``j`` by
  ``<u(t), u(j + h)>`` with ``u(s) = (sqrt(1/s), sqrt(1 - 1/s))``, a cosine that is 1 exactly at
  ``j = t - h`` and below 1 elsewhere (:func:`score_gap`); hardmax then attends to ``t - h`` and
  ``W_V`` copies its id into block ``h``.
- **3.2, one head per layer** (:class:`Theorem32`, as ``layers.py`` builds it). The code is a
  FIXED two pairs ``(u(t), u(t + 1))`` whatever ``n`` is; every layer's head scores ``<u(t),
  u(j + 1)>`` and attends to offset 1, and layer ``l`` copies block ``l - 1`` of position ``t -
  1`` into block ``l`` (block 0 is the id block of the embedding). By induction block ``l`` of
  position ``t`` then holds ``y_{t-l}``: the history is COMPOSED, one step per layer. The current
  symbol needs no attention, so the authors' code has ``n - 2`` such layers (the theorem's ``n -
  1`` counts one more; with ``n = 2`` one layer is kept to carry the MLP, its head writing
  nothing).
- **3.3, one head, one layer** (:class:`Paper33`, ``single.py``): score ``-ReLU(t - j - (n -
  2))`` on the code ``(1, t)``, values ``10^-t onehot(y_t)``, an L1 normalization and a
  digit-decoding MLP. The ReLU inside the score is more than this library's bilinear ``W_QK`` can
  express, so :func:`build_paper33` builds it as its own small model, run by
  :func:`._constructions_run.paper33_log_probs` (3.3-slots in :mod:`._constructions_variants` is
  the library's one-head variant in the one parameter format).

Reading the slides' formulas (garbled in extraction): the first display writes the query map as
``(sqrt(1/t), sqrt(1 - 1/(t+h)))``, mixing two positions; the score line of the same slide uses
``Q: r(y_t, t) -> u(t)`` and ``K_h: r(y_j, j) -> u(j + h)``, which is what the proof's argument
needs (a cosine of two UNIT vectors, equal to 1 exactly at the target) and what is implemented.
The literal map is not a unit vector, so its peak value is not 1 and that argument does not
apply; its argmax happens to be ``t - h`` as well for every ``t > h`` (the only positions a
prediction reads), which ``test_constructions.py`` checks beside the peak value. The
code's last printed pair, ``t + n - 1``, is one more than ``n - 1`` heads with offsets ``h =
0..n-2`` read: the authors' code builds ``n`` pairs and uses ``n - 1``, so the printed pair is
redundant, not an error (this library lays out only the ``n - 1`` pairs it reads).

Attention kinds: ``"hard"`` is average-hard attention (Strobl et al. 2024; for 3.1/3.2 the maximizer
is unique, so leftmost-hard would give the same); ``"sparse"`` is sparsemax (Martins & Astudillo
2016) with the scores multiplied by ``beta`` so that the peak leads every other key by at least 1
up to ``max_len`` (:func:`sparse_beta`; 3.3-slots' integer gap needs ``beta = 1``). The 3.1/3.2
gap shrinks like ``1/(8 t^3)``, so a sparse 3.1/3.2 model is weakly equivalent to the n-gram LM
only on the strings up to the ``max_len`` it was built for (about two symbols more before the
lead drops below 1), NOT on all of ``Sigma*``; 3.3-slots' gap does not shrink; ``"softmax"``
multiplies the scores by a given ``beta`` (the soft-attention study: exact only as ``beta -> inf``).

This module builds; the models are run as LMs (the answers the checks compare) by
:mod:`._constructions_run`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate
from transformer_theory.constructions._common import check_dtype
from transformer_theory.core import positional
from transformer_theory.papers.svete_cotterell2024._constructions_layout import (
    Construction,
    Layout,
    score_gap,
)
from transformer_theory.papers.svete_cotterell2024._constructions_variants import VARIANTS
from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM
from transformer_theory.params import (
    AttentionParams,
    LayerParams,
    MLPParams,
    ModelConfig,
    ModelParams,
)

__all__ = [
    "ATTENTIONS",
    "CONSTRUCTIONS",
    "REGISTRY",
    "UNIT_CODE",
    "Paper33",
    "Theorem31",
    "Theorem32",
    "build",
    "build_paper33",
    "check_built_as",
    "head_offsets",
    "score_gap",
    "softmax_model",
    "sparse_beta",
]

#: Every construction :func:`build` makes: the paper's 3.1 and 3.2, and this library's variants.
CONSTRUCTIONS = ("3.1", "3.2", "3.2-direct", "3.3-slots")
#: The constructions whose heads attend to one key (the 3.1/3.2 code ``u``).
UNIT_CODE = ("3.1", "3.2", "3.2-direct")
ATTENTIONS = ("hard", "sparse", "softmax")
_KIND = {"hard": "hard_average", "sparse": "sparsemax", "softmax": "softmax"}


class Theorem31(Construction):
    """The paper's 3.1: ``n - 1`` heads in one layer, head ``h`` copying the id at ``t - h``
    into history block ``h``."""

    name = "3.1"

    def attention(self, layout: Layout, beta: float) -> list[tuple[np.ndarray, np.ndarray]]:
        blocks = [self.block(layout, h) for h in range(layout.w)]
        return [self.offset_heads(layout, beta, blocks)]


class Theorem32(Construction):
    """The paper's 3.2 (the authors' ``layers.py``): a fixed two-pair code ``(u(t), u(t + 1))``,
    ``max(n - 2, 1)`` layers of one offset-1 head; layer ``l`` copies block ``l - 1`` of
    position ``t - 1`` into block ``l`` (block 0 is the id block itself)."""

    name = "3.2"

    def pairs(self, w: int) -> int:
        return 2

    def heads(self, w: int) -> tuple[int, ...]:
        return (1,) * max(w - 1, 1)

    def offsets(self, w: int) -> list[tuple[int, int, int]]:
        return [(layer, 0, 1) for layer in range(max(w - 1, 1))]

    def last_offset(self, w: int) -> int:
        return 1

    def stored(self, V: int, w: int) -> int:
        return (w - 1) * V  # block 0 stays in the id block [0, V)

    def block(self, layout: Layout, h: int) -> int:
        return 0 if h == 0 else layout.store0 + (h - 1) * layout.V

    def attention(self, layout: Layout, beta: float) -> list[tuple[np.ndarray, np.ndarray]]:
        # every layer: key pair 1 (u(j + 1)) against query pair 0 (u(t)), so offset 1. With
        # n = 2 the one layer only carries the MLP: its head writes nothing.
        D, V, pos0, w = layout.D, layout.V, layout.pos0, layout.w
        layers = []
        for layer in range(1, max(w - 1, 1) + 1):
            w_qk = np.zeros((1, D, D))
            for c in range(2):
                w_qk[0, pos0 + 2 + c, pos0 + c] = beta
            w_v = np.zeros((1, D, D))
            if layer < w:
                dst, src = self.block(layout, layer), self.block(layout, layer - 1)
                w_v[0, dst : dst + V, src : src + V] = np.eye(V)
            layers.append((w_qk, w_v))
        return layers


#: Every construction by name: the paper's (:class:`Theorem31`, :class:`Theorem32`) and this
#: library's variants (:data:`._constructions_variants.VARIANTS`); ``REGISTRY[name].paper`` says
#: which.
REGISTRY: dict[str, Construction] = {"3.1": Theorem31(), "3.2": Theorem32(), **VARIANTS}


def sparse_beta(construction: str, max_len: int, order: int) -> float:
    """The score multiplier that makes sparsemax one-hot up to ``max_len`` symbols
    (:meth:`._constructions_layout.Construction.sparse_beta`: ``1 / gap`` for the ``u`` code, 1 for
    3.3-slots'
    integer scores)."""
    _validate.check_choice("construction", construction, CONSTRUCTIONS)
    return REGISTRY[construction].sparse_beta(max_len, order)


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
    if attention != "softmax" and beta is not None:
        raise ValueError(f"beta: only softmax attention takes a score scale, not {attention!r}")
    if max_len is not None and (not isinstance(max_len, int) or max_len < 0):
        raise ValueError(f"max_len: expected an integer >= 0, got {max_len!r}")


def build(
    lm: NGramLM,
    construction: str = "3.1",
    *,
    attention: str = "hard",
    beta: float | None = None,
    max_len: int = 64,
    dtype: Any = jnp.float64,
) -> ModelParams:
    """A transformer LM weakly equivalent to ``lm`` (Svete & Cotterell 2024, Theorems 3.1/3.2, and
    this library's variants 3.2-direct and 3.3-slots of :mod:`._constructions_variants`), from
    :data:`REGISTRY`.

    Args:
      lm: the n-gram LM (order ``n >= 2``).
      construction: ``"3.1"`` (``n - 1`` heads, one layer), ``"3.2"`` (the paper's: one offset-1
        head per layer composing the history, ``max(n - 2, 1)`` layers), ``"3.2-direct"`` (one head
        per layer with 3.1's offsets, ``n - 1`` layers) or ``"3.3-slots"`` (one head, one layer).
      attention: ``"hard"``, ``"sparse"`` or ``"softmax"`` (see the module docstring).
      beta: the score scale of ``"softmax"`` (required there); refused otherwise (``"sparse"``
        derives its own from ``max_len``).
      max_len: the longest string the model is laid out for (``seq_len``; sparse attention's scale
        is chosen for it, and sparse 3.1/3.2 are exact only up to about it). Longer strings still
        run; whether they stay exact is what the precision study measures.
      dtype: the parameters' float dtype (float64 needs ``jax_enable_x64``).

    Returns:
      A :class:`ModelParams` with ``causal_lm=True`` and ``bos_pad = n - 1``.
    """
    _check(lm, construction, attention, beta, max_len)
    check_dtype(dtype)
    spec = REGISTRY[construction]
    S, w = lm.alphabet_size, lm.order - 1
    V = S + 1
    hist = lm.histories_AxN  # (A, w), oldest first; BOS = S
    A = len(hist)
    if attention == "sparse":
        beta = spec.sparse_beta(max_len, lm.order)
    elif attention == "hard":
        beta = 1.0
    pairs = spec.pairs(w)
    pos0 = V
    store0 = pos0 + positional.code_dim(spec.code, 1, window=pairs, vocab_size=V)
    ind0 = store0 + spec.stored(V, w)
    layout = Layout(V=V, w=w, A=A, pos0=pos0, store0=store0, ind0=ind0, D=ind0 + A)
    config = ModelConfig(
        vocab_size=V,
        seq_len=max_len + w,
        width=layout.D,
        num_classes=V,
        heads=spec.heads(w),
        attention=_KIND[attention],
        causal=True,
        head_mean=False,
        positional=spec.code,
        mlp_hidden=spec.units(A, w),
        positional_window=pairs,
        causal_lm=True,
        bos_pad=w,
    )
    w1, b1, w2 = spec.mlp(layout, hist)
    w_o = np.zeros((V, layout.D))
    w_o[:, ind0:] = lm.log_probs_AxC.T

    def arr(x):
        return jnp.asarray(x, dtype)

    qk_v = spec.attention(layout, beta)
    layers = []
    for idx, (qk, v) in enumerate(qk_v):
        last = idx == len(qk_v) - 1
        zero = np.zeros(layout.D)
        mlp = MLPParams(w1=arr(w1), b1=arr(b1), w2=arr(w2), b2=arr(zero)) if last else None
        layers.append(LayerParams(attn=AttentionParams(w_v=arr(v), w_qk=arr(qk)), mlp=mlp))
    return ModelParams(layers=tuple(layers), w_o=arr(w_o), config=config)


def softmax_model(lm: NGramLM, construction: str, *, beta: float, max_len: int) -> ModelParams:
    """``construction`` (:func:`build`) for ``lm`` with softmax attention at score scale ``beta``,
    float64, laid out for the ``max_len + 1`` symbols that the KL over the first ``max_len + 1``
    outcomes reads (:func:`._theory_soft.kl_first_outcomes`, :func:`._theory_soft.kl_of` at
    ``max_len``): the model of the softmax study's KL."""
    return build(lm, construction, attention="softmax", beta=beta, max_len=max_len + 1)


def head_offsets(construction: str, order: int) -> list[tuple[int, int, int]]:
    """``(layer, head, offset)`` of every head: the key offset ``h`` each attends to (query ``i``
    attends to ``max(i - h, 0)``); 3.3-slots' one head averages the window instead (offset -1)."""
    _validate.check_choice("construction", construction, CONSTRUCTIONS)
    return REGISTRY[construction].offsets(order - 1)


def check_built_as(params: ModelParams, construction: str, name: str = "params") -> None:
    """Raise ``ValueError`` naming ``construction`` if ``params`` is not laid out as :func:`build`
    lays out ``construction`` (the positional code, its pairs, the heads per layer).

    With ``n = 2`` (one offset) 3.1 and 3.2-direct are the same model and both names pass.
    """
    _validate.check_choice("construction", construction, CONSTRUCTIONS)
    cfg = params.config
    if cfg is None or not cfg.causal_lm:
        raise ValueError(f"{name}: expected an n-gram construction (a causal LM), got {cfg}")
    w = cfg.bos_pad
    spec = REGISTRY[construction]
    want = (spec.code, spec.pairs(w), spec.heads(w))
    got = (cfg.positional, cfg.positional_window, tuple(cfg.heads))
    if got != want:
        raise ValueError(
            f"construction: {name} was not built as {construction!r} (positional code, pairs, "
            f"heads per layer: {got}; {construction!r} with n = {w + 1} has {want})"
        )


# ----------------------------------------------------------------------------- the paper's 3.3
@functools.partial(
    jax.tree_util.register_dataclass,
    data_fields=["log_probs_CxA", "digit_w", "digit_b", "digit_out", "and_w", "and_b"],
    meta_fields=["order", "alphabet_size"],
)
@dataclasses.dataclass(frozen=True)
class Paper33:
    """Svete & Cotterell's (2024) Theorem 3.3 as the authors build it (rycolab/transformer-ngrams,
    ``ngrams/transform/single.py``): one head, one layer, and an output MLP that decodes digits.

    Shapes: ``V = |Sigma| + 1`` input ids (BOS last), ``w = n - 1``, ``A`` histories, ``C = |Sigma|
    + 1`` outputs (EOS last). Run by :func:`._constructions_run.paper33_log_probs`; the library's
    one parameter format cannot hold it, because the score puts a ReLU between the query-key
    product and the attention (``W_QK`` is bilinear).

    - Embedding ``r(y_t, t) = (10^-t onehot(y_t), 1, t)`` (``t = 1..N``, 1-based, as the authors'
      ``static_encoding``).
    - Query ``(1, t - (n - 2))``, key ``(-j, 1)``, score ``-ReLU(t - j - (n - 2))``: 0 on the
      ``n - 1`` positions ``t - n + 2 .. t``, negative before, so average-hard attention averages
      them. The value is the embedding's first block, ``10^-j onehot(y_j)``: each symbol's
      coordinate holds a decimal whose digits mark the window positions holding it.
    - ``F``: the average ``a`` is rescaled to ``FZ a / |a|_1`` with ``FZ = sum_{k=1}^{n-1}
      10^-k``, which makes symbol ``c``'s coordinate ``sum_k 10^-(k+1) [y_{t-n+2+k} = c]`` (the
      oldest position the first digit); ``W1`` copies each coordinate ``n - 1`` times; ``n - 1``
      ReLU layers ``x -> W' ReLU(W x + b)`` extract one digit each (layer ``l``: ``z = 10^(l+1) x -
      sum_{k<l} 10^(l-k) d_k`` is ``d_l`` plus a remainder below ``0.12``, and ``10^n (ReLU(z - 1
      + 10^-n) - ReLU(z - 1))`` is the step ``[z >= 1]``); an AND unit per history
      (``ReLU(sum - (n - 2))``) gives the one-hot history, and ``E`` (``log_probs_CxA``) its
      row of log-probabilities.

    The authors read the output with an argmax over the one-hot (``TransfomerLM``), and so does
    :func:`._constructions_run.paper33_log_probs`: the digit steps' gain ``10^n`` makes the
    decoded one-hot ``1 +- 10^n u`` and ``+-10^n u`` (``u`` the unit roundoff) even in float64,
    which ``E h`` with the ``-inf`` entries of an exact zero would turn into ``-inf``.
    """

    order: int
    alphabet_size: int
    log_probs_CxA: jax.Array
    digit_w: jax.Array  # (w, V n, V w): layer l's W
    digit_b: jax.Array  # (w, V n)
    digit_out: jax.Array  # (w, V w, V n): layer l's W'
    and_w: jax.Array  # (A, V w)
    and_b: jax.Array  # (A,)

    @property
    def dtype(self) -> Any:
        return self.log_probs_CxA.dtype


def build_paper33(lm: NGramLM, *, dtype: Any = jnp.float64) -> Paper33:
    """The paper's Theorem 3.3 for ``lm`` (:class:`Paper33`), weights as the authors' ``single.py``
    sets them (``construct_ngram_mlp``, ``construct_ngram_onehot``, ``construct_output_matrix``).

    Its decimals need ``10^-t`` to be representable with ``n`` significant digits to spare: in
    float64 up to about ``t = 290``, in float32 about ``t = 30`` (``10^-38`` is float32's smallest
    normal number), which is where :func:`._theory_precision.paper33_scan` finds it
    breaking.
    """
    _check(lm, "3.1", "hard", None, None)
    check_dtype(dtype)
    n, S = lm.order, lm.alphabet_size
    w, V = n - 1, S + 1
    hist = lm.histories_AxN  # oldest first, BOS = S
    A = len(hist)
    digit_w = np.zeros((w, V * n, V * w))
    digit_b = np.zeros((w, V * n))
    digit_out = np.zeros((w, V * w, V * n))
    for ll in range(w):
        inner = np.zeros((n, w))  # the authors' W_ (per symbol)
        for j in range(ll):
            inner[j, j] = 1.0
        for j in range(ll + 2, n):
            inner[j, j - 1] = 1.0
        row = np.zeros(w)
        for j in range(ll):
            row[j] = -(10.0 ** (ll - j))
        row[ll] = 10.0 ** (ll + 1)
        inner[ll] = inner[ll + 1] = row
        bias = np.zeros(n)
        bias[ll] = -1.0 + 10.0**-n
        bias[ll + 1] = -1.0
        out = np.zeros((w, n))  # the authors' W'
        for j in range(ll):
            out[j, j] = 1.0
        for j in range(ll + 1, w):
            out[j, j + 1] = 1.0
        out[ll, ll] = 10.0**n
        out[ll, ll + 1] = -(10.0**n)
        for c in range(V):
            digit_w[ll, c * n : (c + 1) * n, c * w : (c + 1) * w] = inner
            digit_b[ll, c * n : (c + 1) * n] = bias
            digit_out[ll, c * w : (c + 1) * w, c * n : (c + 1) * n] = out
    and_w = np.zeros((A, V * w))
    for a in range(A):
        for j in range(w):
            and_w[a, hist[a, j] * w + j] = 1.0
    and_b = np.full(A, -(w - 1.0))

    def arr(x):
        return jnp.asarray(x, dtype)

    return Paper33(
        order=n,
        alphabet_size=S,
        log_probs_CxA=arr(lm.log_probs_AxC.T),
        digit_w=arr(digit_w),
        digit_b=arr(digit_b),
        digit_out=arr(digit_out),
        and_w=arr(and_w),
        and_b=arr(and_b),
    )
