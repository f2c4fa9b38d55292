"""The Dyck-(k, D) recognizer after
Yao, Peng, Papadimitriou & Narasimhan 2021 (the table row of Strobl et al. 2024: "Dyck-k, Yao et
al. 2021, positional code i/n, i/n^3, n; softmax and leftmost-hard").

The language is :mod:`._tasks_dyck_k`'s (Dyck-(k, D) over ``2k`` symbols, ``BOS = 2k``).

The recognizer (:func:`dyck_k_recognizer`) is a :class:`~transformer_theory.params.ModelParams` run
by
:func:`transformer_theory.core.forward` on the embedding of :func:`dyck_k_embed` (one-hot token,
then the
positional code ``(i/n, n)``), causal, one head per layer, ``D + 2`` layers:

1. depth: every score 0, so each position averages its prefix uniformly (exact in softmax too) and
   gets ``r_i = d_i / (i + 1)`` (``d_i`` the depth after position ``i``) and ``b_i = 1/(i + 1)``
   (from BOS). Its MLP writes ``A_l = |r - l b| = |d_i - l| / (i + 1)`` for ``l = 0 .. D`` and the
   flags ``relu(-r)`` (a dip below zero) and ``relu(r - D b)`` (deeper than ``D``) into ``E``.
2. one layer per level ``l = 1 .. D``: the score of key ``j`` is ``-n A_l(j) - n [w_j not an
   opening bracket] + j/(2n)`` (the query supplies ``n`` and, through its one-hot token, the
   constant 1). Every opening bracket at depth ``l`` scores ``j/(2n)``, every other key at most
   ``-1/2`` (``n A_l(j) >= n/(j+1) >= 1``), so the maximizer is the NEAREST opening bracket of
   depth ``l``: for a closing bracket at level ``l`` (``d_i = l - 1``) that is its partner, with a
   score gap of at least ``1/(2n)``. The value copies the partner's type into ``M_l``; the MLP
   writes ``relu(b - A_{l-1} - 1 + [w_i closes t] - M_l[t])`` into ``E`` for each type ``t``:
   ``b_i`` for a closing bracket of level ``l`` whose partner has another type, 0 otherwise.
3. aggregation: the score of key ``j`` is ``E_j``, so the last position copies ``G = max_j E_j``.

The decision ``o_1 - o_0 = confidence (b/4 - G - A_0)`` at the last position is exactly
``confidence / (4n)`` for members and at most ``-3 confidence / (4n)`` otherwise (a violation at
``j`` puts ``E_j >= 1/(j + 1) >= 1/n``; an unbalanced string has ``A_0 >= 1/n``): the margin
shrinks like ``1/n``.

Attention kinds. Layer 1 averages, which leftmost-hard attention cannot do (Yao et al.'s first
layer averages as well), so the hard recognizer is built with ``"hard_average"``; in layers 2 to
``D + 2`` its choice is the unique maximizer (levels) or a set of keys with equal values
(aggregation), where leftmost-hard gives the same output: :func:`leftmost_tail` runs those layers
as a ``"hard_leftmost"`` model on the stream after layer 1, and the checks compare both.
The softmax recognizer (``attention="softmax"``, built for strings up to ``max_len``) uses the
same weights with the level scores multiplied by ``lambda = 2 N ln(2 N^2)`` and the aggregation
scores by ``mu = 2 N ln(4 N)`` (``N = max_len + 1``): then every level head puts weight at most
``(N - 1) exp(-lambda/(2N)) < 1/(2N)`` off the partner, and the aggregation at least ``4/5`` on
the violations, so members keep ``confidence/(4n)`` exactly and non-members stay below
``-0.15 confidence / n``. The scores grow like ``n^2 log n`` while the decision shrinks like
``1/n``.

Deviations from Yao et al. 2021 (our variant, "after Yao et al. 2021"): the paper's network has
``D + 1`` layers, reads an end token and decides with every position; ours reads one classifier at
the last position and so spends one more (aggregation) layer, ``D + 2``. The table's code
``(i/n, i/n^3, n)`` becomes ``(i/n, n)``: the depth term is multiplied by the query's ``n`` to a
gap of at least 1, so the tie-break toward the nearest bracket needs only ``j/(2n)``, not an
``i/n^3`` term. Types are stored one-hot (``k`` coordinates per level), not in Yao et al.'s
``O(log k)`` width. The level heads do not depend on the query, so the ``D`` level layers could
be ``D`` heads of one layer; we keep Yao et al.'s one layer per level.

Shape letters: ``B`` strings, ``L`` string length, ``N = L + 1`` positions (BOS first), ``D``
width (only in names of arrays).
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.papers.formal_languages._constructions import _layer
from transformer_theory.params import ModelConfig, ModelParams

ATTENTIONS = ("hard", "softmax")


def _int(name: str, value: object, minimum: int) -> int:
    return _validate.check_int_arg(name, value, minimum=minimum)


@dataclasses.dataclass(frozen=True)
class Layout:
    """The residual stream's coordinates for ``k`` types and depth ``depth``: tokens
    ``0 .. 2k`` (``2k`` = BOS), the code ``P = i/n`` and ``NN = n``, then ``R = d/(i+1)``,
    ``B = 1/(i+1)``, ``A_l`` (``l = 0 .. depth``), the flags ``E``, the aggregate ``G`` and the
    partner types ``M_l[t]``."""

    k: int
    depth: int

    @property
    def bos(self) -> int:
        return 2 * self.k

    @property
    def vocab_size(self) -> int:
        return 2 * self.k + 1

    @property
    def p(self) -> int:
        return self.vocab_size

    @property
    def nn(self) -> int:
        return self.vocab_size + 1

    @property
    def r(self) -> int:
        return self.vocab_size + 2

    @property
    def b(self) -> int:
        return self.vocab_size + 3

    def a(self, level: int) -> int:
        return self.vocab_size + 4 + level

    @property
    def e(self) -> int:
        return self.vocab_size + 5 + self.depth

    @property
    def g(self) -> int:
        return self.vocab_size + 6 + self.depth

    def m(self, level: int, t: int) -> int:
        return self.vocab_size + 7 + self.depth + (level - 1) * self.k + t

    @property
    def width(self) -> int:
        return self.vocab_size + 7 + self.depth + self.depth * self.k


def softmax_scales(max_len: int) -> tuple[float, float]:
    """``(lambda, mu) = (2 N ln(2 N^2), 2 N ln(4 N))`` with ``N = max_len + 1``: the factors of
    the level and aggregation scores of the softmax recognizer (module docstring)."""
    n = _int("max_len", max_len, 0) + 1
    return 2.0 * n * math.log(2.0 * n * n), 2.0 * n * math.log(4.0 * n)


def _check_confidence(confidence: object) -> float:
    if isinstance(confidence, (bool, np.bool_)):
        raise ValueError(f"confidence: expected a positive number, got {confidence!r}")
    _validate.check_positive("confidence", confidence)
    if not math.isfinite(float(confidence)):
        raise ValueError(f"confidence: expected a finite number, got {confidence!r}")
    return float(confidence)


def dyck_k_recognizer(
    k: int,
    depth: int,
    attention: str = "hard",
    *,
    max_len: int = 256,
    confidence: float = 1.0,
    dtype: jnp.dtype | type = jnp.float64,
) -> ModelParams:
    """The Dyck-(k, depth) recognizer after Yao et al. 2021 (module docstring): ``depth + 2``
    causal single-head layers reading :func:`dyck_k_embed`.

    Args:
      k: bracket types (``>= 1``).
      depth: the largest nesting depth ``D`` accepted (``>= 1``).
      attention: ``"hard"`` (average-hard; leftmost-hard after layer 1, :func:`leftmost_tail`) or
        ``"softmax"`` (scores scaled by :func:`softmax_scales` of ``max_len``).
      max_len: the longest string the softmax recognizer is built for (unused by ``"hard"``,
        which is right at every length).
      confidence: multiplies the classifier: the margin is ``confidence / (4n)`` for members.
      dtype: float dtype of the parameters.

    Raises:
      ValueError: naming ``k``, ``depth``, ``attention``, ``max_len``, ``confidence`` or
        ``dtype`` (not a floating dtype).
    """
    k, depth = _int("k", k, 1), _int("depth", depth, 1)
    try:
        floating = jnp.issubdtype(jnp.dtype(dtype), jnp.floating)
    except TypeError:
        floating = False
    if not floating:
        raise ValueError(f"dtype: expected a floating dtype (float32, float64), got {dtype!r}")
    _validate.check_choice("attention", attention, ATTENTIONS)
    max_len = _int("max_len", max_len, 0)
    lam, mu = softmax_scales(max_len) if attention == "softmax" else (1.0, 1.0)
    alpha = _check_confidence(confidence)
    lay = Layout(k, depth)
    W, V = lay.width, lay.vocab_size
    opens, closes = list(range(k)), list(range(k, 2 * k))
    tokens = list(range(V))  # the query's one-hot sums to 1: a constant on the query side

    def layer(w_qk, w_v, mlp=None):
        return _layer(w_qk, w_v, mlp, dtype)

    # Layer 1: depth by a uniform causal average; MLP: A_l = |r - l b|, dip and overflow flags.
    v1 = np.zeros((W, W))
    v1[lay.r, opens], v1[lay.r, closes], v1[lay.b, lay.bos] = 1.0, -1.0, 1.0
    units = 2 * (depth + 1) + 2
    w1, w2 = np.zeros((units, W)), np.zeros((W, units))
    for level in range(depth + 1):
        for s, u in ((1.0, 2 * level), (-1.0, 2 * level + 1)):
            w1[u, [lay.r, lay.b]] = [s, -s * level]
            w2[lay.a(level), u] = 1.0
    w1[units - 2, lay.r] = -1.0  # relu(-r): a dip below zero
    w1[units - 1, [lay.r, lay.b]] = [1.0, -float(depth)]  # relu(r - D b): deeper than D
    w2[lay.e, [units - 2, units - 1]] = 1.0
    layers = [layer(np.zeros((W, W)), v1, (w1, np.zeros(units), w2, np.zeros(W)))]
    # Layers 2 .. D+1: the nearest opening bracket of depth l; MLP: the mismatch flags of level l.
    for level in range(1, depth + 1):
        qk = np.zeros((W, W))  # qk[key coordinate, query coordinate]
        qk[lay.a(level), lay.nn] = -lam
        qk[closes + [lay.bos], lay.nn] = -lam
        qk[lay.p, tokens] = 0.5 * lam
        v = np.zeros((W, W))
        for t in opens:
            v[lay.m(level, t), t] = 1.0
        w1, b1, w2 = np.zeros((k, W)), -np.ones(k), np.zeros((W, k))
        for t in opens:
            w1[t, [lay.b, lay.a(level - 1), k + t, lay.m(level, t)]] = [1.0, -1.0, 1.0, -1.0]
            w2[lay.e, t] = 1.0
        layers.append(layer(qk, v, (w1, b1, w2, np.zeros(W))))
    # Layer D+2: every position's flags, the largest copied to G.
    qk = np.zeros((W, W))
    qk[lay.e, tokens] = mu
    v = np.zeros((W, W))
    v[lay.g, lay.e] = 1.0
    layers.append(layer(qk, v))
    w_o = np.zeros((2, W))
    w_o[1, [lay.b, lay.g, lay.a(0)]] = [0.25 * alpha, -alpha, -alpha]
    cfg = ModelConfig(
        V,
        max(2, max_len + 1),
        W,
        2,
        heads=(1,) * (depth + 2),
        attention="softmax" if attention == "softmax" else "hard_average",
        causal=True,
        positional="none",
        mlp_hidden=units,
    )
    return ModelParams(layers=tuple(layers), w_o=jnp.asarray(w_o, dtype), config=cfg)


def _layout_of(params: ModelParams) -> Layout:
    cfg = params.config
    k = (cfg.vocab_size - 1) // 2
    return Layout(k, cfg.depth - 2)


def dyck_k_embed(params: ModelParams, strings_BxL: ArrayLike) -> jax.Array:
    """``BOS w_1 .. w_L`` embedded for ``params``: one-hot token, ``i/n``, ``n`` (``n = L + 1``),
    zeros; ``(B, N, D)`` in the parameters' dtype."""
    lay = _layout_of(params)
    strings = jnp.asarray(strings_BxL)
    _validate.check_ndim("strings_BxL", strings, 2)
    _validate.check_token_ids("strings_BxL", strings, 2 * lay.k)
    B, n = strings.shape[0], strings.shape[1] + 1
    dtype = params.w_o.dtype
    tokens = jnp.concatenate([jnp.full((B, 1), lay.bos, strings.dtype), strings], axis=1)
    onehot = jax.nn.one_hot(tokens, lay.vocab_size, dtype=dtype)
    i = jnp.arange(n, dtype=dtype)
    code = jnp.stack([i / n, jnp.full((n,), n, dtype)], axis=-1)
    pad = jnp.zeros((B, n, lay.width - lay.vocab_size - 2), dtype)
    return jnp.concatenate([onehot, jnp.broadcast_to(code, (B, n, 2)), pad], axis=-1)


def leftmost_tail(params: ModelParams) -> ModelParams:
    """Layers 2 .. ``D + 2`` of a hard recognizer as a ``"hard_leftmost"`` model: run it with
    :func:`transformer_theory.core.forward` on the stream after layer 1."""
    if params.config.attention != "hard_average":
        raise ValueError(f"params: expected a hard recognizer, got {params.config.attention!r}")
    cfg = params.config.replace(attention="hard_leftmost", heads=params.config.heads[1:])
    return params.replace(layers=params.layers[1:], config=cfg)


@jax.jit
def _margins_all(params, inputs_BxNxD):
    from transformer_theory.core import forward_all

    logits = jax.vmap(lambda h: forward_all(params, h))(inputs_BxNxD)
    return logits[..., 1] - logits[..., 0]


@jax.jit
def _margins_leftmost(params, tail, inputs_BxNxD):
    from transformer_theory.core import forward_all, forward_trace

    def one(h):
        first = params.replace(
            layers=params.layers[:1], config=params.config.replace(heads=params.config.heads[:1])
        )
        after1 = forward_trace(first, h).streams_LxNxD[-1]
        return forward_all(tail, after1)

    logits = jax.vmap(one)(inputs_BxNxD)
    return logits[..., 1] - logits[..., 0]


def decision_margins(
    params: ModelParams,
    strings_BxL: ArrayLike,
    *,
    prefixes: bool = False,
    leftmost: bool = False,
    chunk: int | None = None,
) -> np.ndarray:
    """``o_1 - o_0`` (positive = member) of every string: ``(B,)``, or with ``prefixes`` the
    decision at every position, ``(B, L + 1)`` (column ``i``: the prefix ``w_1 .. w_i``; the
    model is causal and reads ``n`` only through scores whose maximizer it does not move, so for
    the hard recognizer column ``i`` equals the decision on that prefix alone). ``leftmost``
    runs layers 2.. with leftmost-hard attention (:func:`leftmost_tail`). Evaluated in chunks of
    ``chunk`` rows (default about ``2^22 / N^2``)."""
    inputs = dyck_k_embed(params, strings_BxL)
    B, n = inputs.shape[0], inputs.shape[1]
    chunk = max(1, 2**22 // (n * n)) if chunk is None else _int("chunk", chunk, 1)
    tail = leftmost_tail(params) if leftmost else None
    chunk = min(chunk, B)
    out = []
    for s in range(0, B, chunk):
        part = inputs[s : s + chunk]
        rows = part.shape[0]
        if rows < chunk:  # the same shape as the other chunks: no second compilation
            part = jnp.concatenate([part, jnp.repeat(part[:1], chunk - rows, axis=0)])
        m = _margins_all(params, part) if tail is None else _margins_leftmost(params, tail, part)
        out.append(np.asarray(m)[:rows])
    margins = np.concatenate(out) if out else np.zeros((0, n))
    return margins if prefixes else margins[:, -1]


@dataclasses.dataclass(frozen=True)
class PrefixDecisions:
    """A recognizer's decisions at every prefix (:func:`prefix_decisions`): ``margins_BxN`` on
    the exhaustive strings, ``padded_margins_BxN`` on the drawn ones (``None`` when none);
    ``leftmost_BxN`` / ``padded_leftmost_BxN`` the same with leftmost-hard layers 2.. (the hard
    recognizer with ``leftmost`` only, else ``None``)."""

    margins_BxN: np.ndarray
    padded_margins_BxN: np.ndarray | None
    leftmost_BxN: np.ndarray | None
    padded_leftmost_BxN: np.ndarray | None


def prefix_decisions(
    k: int,
    depth: int,
    attention: str,
    strings_BxL: ArrayLike,
    padded_BxL: ArrayLike | None = None,
    *,
    max_len: int,
    dtype: jnp.dtype | type,
    leftmost: bool = True,
) -> PrefixDecisions:
    """The recognizer :func:`dyck_k_recognizer` ``(k, depth, attention, max_len=max_len,
    dtype=dtype)``, built once, and its :func:`decision_margins` at every prefix of
    ``strings_BxL`` and of ``padded_BxL`` (if given); with ``leftmost`` and the hard recognizer,
    also with leftmost-hard attention in layers 2.. (:func:`leftmost_tail`)."""
    params = dyck_k_recognizer(k, depth, attention, max_len=max_len, dtype=dtype)
    margins = decision_margins(params, strings_BxL, prefixes=True)
    padded = None if padded_BxL is None else decision_margins(params, padded_BxL, prefixes=True)
    left, padded_left = None, None
    if leftmost and attention == "hard":
        left = decision_margins(params, strings_BxL, prefixes=True, leftmost=True)
        if padded_BxL is not None:
            padded_left = decision_margins(params, padded_BxL, prefixes=True, leftmost=True)
    return PrefixDecisions(margins, padded, left, padded_left)


def recognizer_margins(
    k: int,
    depth: int,
    attention: str,
    strings: tuple[ArrayLike, ...],
    *,
    max_len: int,
    dtype: jnp.dtype | type,
) -> list[np.ndarray]:
    """The recognizer :func:`dyck_k_recognizer` ``(k, depth, attention, max_len=max_len,
    dtype=dtype)``, built once, and its :func:`decision_margins` on each array of ``strings``."""
    params = dyck_k_recognizer(k, depth, attention, max_len=max_len, dtype=dtype)
    return [decision_margins(params, s) for s in strings]
