"""Dyck-(k, D): bounded-depth bracket matching over ``k`` bracket types, and its recognizer after
Yao, Peng, Papadimitriou & Narasimhan 2021 (the table row of Strobl et al. 2024: "Dyck-k, Yao et
al. 2021, positional code i/n, i/n^3, n; softmax and leftmost-hard").

The language: strings over ``2k`` symbols, opening brackets ``0 .. k-1`` and closing brackets
``k .. 2k-1`` (``k + t`` closes ``t``), that are balanced, match every closing bracket with an
opening one of its type, and never nest deeper than ``D``. The recognizers read ``BOS w_1 .. w_L``
with ``BOS = 2k``.

Task (specification, plain NumPy and Python integers, seeded ``numpy.random.default_rng``):
:func:`is_member` (a stack), :func:`members`, :func:`all_strings` (every string of a length), and
:func:`sample`: members (uniform over the depth-bounded bracket shapes, uniform types) and *hard*
non-members of three kinds, cycled: ``"swap"`` (two closing brackets of different types
exchanged: the counts per type and the Dyck-1 shape stay right, the matching is wrong, e.g.
``( [ ) ]``), ``"overflow"`` (a well-matched string one level too deep, ``D + 1``) and ``"dip"``
(the opening bracket of one top-level block moved after its closing one: right counts, a prefix
below zero).

The recognizer (:func:`build`) is a :class:`~transformer_theory.params.ModelParams` run by
:func:`transformer_theory.core.forward` on the embedding of :func:`embed` (one-hot token, then the
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
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory import _validate, budget
from transformer_theory.papers.formal_languages.constructions import _layer
from transformer_theory.params import ModelConfig, ModelParams

__all__ = [
    "ALL_STRINGS_LIMIT",
    "ATTENTIONS",
    "DyckKSettings",
    "NEGATIVE_KINDS",
    "Layout",
    "all_strings",
    "build",
    "check_record",
    "decision_margins",
    "embed",
    "is_member",
    "leftmost_tail",
    "margin_records",
    "members",
    "prefix_members",
    "random_member",
    "run",
    "sample",
    "softmax_scales",
    "tolerance",
]

ATTENTIONS = ("hard", "softmax")
NEGATIVE_KINDS = ("swap", "overflow", "dip")
ALL_STRINGS_LIMIT = 2**20


def _int(name: str, value: object, minimum: int) -> int:
    return _validate.check_int_arg(name, value, minimum=minimum)


# --------------------------------------------------------------------------- the language


def _check_string(string: Sequence[int] | np.ndarray, k: int) -> list[int]:
    symbols = [int(x) for x in np.asarray(string).reshape(-1)]
    if any(not 0 <= x < 2 * k for x in symbols):
        raise ValueError(f"string: symbols must be in 0..{2 * k - 1} (k = {k}), got {symbols}")
    return symbols


def is_member(string: Sequence[int] | np.ndarray, k: int, depth: int) -> bool:
    """Whether ``string`` is in Dyck-(k, depth), by a stack: push an opening bracket's type, pop
    on a closing one of the same type, refuse a mismatch, an empty pop, a stack deeper than
    ``depth`` or a non-empty stack at the end."""
    k, depth = _int("k", k, 1), _int("depth", depth, 1)
    stack: list[int] = []
    for x in _check_string(string, k):
        if x < k:
            stack.append(x)
            if len(stack) > depth:
                return False
        elif not stack or stack.pop() != x - k:
            return False
    return not stack


def members(strings_BxL: ArrayLike, k: int, depth: int) -> np.ndarray:
    """:func:`is_member` of every row, a boolean ``(B,)`` array."""
    strings = np.asarray(strings_BxL)
    _validate.check_ndim("strings_BxL", strings, 2)
    return np.array([is_member(row, k, depth) for row in strings], dtype=bool)


def prefix_members(strings_BxL: ArrayLike, k: int, depth: int) -> np.ndarray:
    """``out[b, i]``: whether the prefix ``w_1 .. w_i`` of row ``b`` is in Dyck-(k, depth),
    ``(B, L + 1)`` (column 0: the empty string), by one pass of the stack of :func:`is_member`
    per row (a prefix that broke a rule stays broken)."""
    k, depth = _int("k", k, 1), _int("depth", depth, 1)
    strings = np.asarray(strings_BxL)
    _validate.check_ndim("strings_BxL", strings, 2)
    out = np.zeros((strings.shape[0], strings.shape[1] + 1), dtype=bool)
    for row, string in enumerate(strings):
        stack: list[int] = []
        out[row, 0] = True
        for i, x in enumerate(_check_string(string, k)):
            if x < k:
                stack.append(x)
                if len(stack) > depth:
                    break
            elif not stack or stack.pop() != x - k:
                break
            out[row, i + 1] = not stack
    return out


def all_strings(length: int, k: int, *, limit: int | None = ALL_STRINGS_LIMIT) -> np.ndarray:
    """Every string of ``length`` over the ``2k`` symbols, ``((2k)^length, length)`` int32 in
    lexicographic order; more than ``limit`` strings (default ``2^20``) raises ``ValueError``
    naming ``length`` before anything is allocated."""
    length, k = _int("length", length, 0), _int("k", k, 1)
    base = 2 * k
    budget.check_count("length", base**length, limit, unit="strings")
    rows = np.arange(base**length, dtype=np.int64)[:, None]
    powers = base ** np.arange(length - 1, -1, -1, dtype=np.int64)[None, :]
    return ((rows // powers) % base).astype(np.int32).reshape(base**length, length)


def _completions(length: int, depth: int) -> np.ndarray:
    """``ways[i, d]``: bracket shapes from height ``d`` after ``i`` steps to height 0 at
    ``length`` within ``[0, depth]`` (Python integers: exact for any length)."""
    ways = np.zeros((length + 1, depth + 2), dtype=object)
    ways[length, 0] = 1
    for i in range(length - 1, -1, -1):
        for d in range(depth + 1):
            ways[i, d] = ways[i + 1, d + 1] * (d < depth) + (ways[i + 1, d - 1] if d else 0)
    return ways


def random_member(rng: np.random.Generator, length: int, k: int, depth: int) -> np.ndarray:
    """A member of even ``length``: a bracket shape uniform among those of depth at most
    ``depth`` (drawn step by step from :func:`_completions`), each pair's type uniform."""
    ways = _completions(length, depth)
    out, stack, d = np.zeros(length, np.int32), [], 0
    for i in range(length):
        up = ways[i + 1, d + 1] if d < depth else 0
        total = up + (ways[i + 1, d - 1] if d else 0)
        if rng.random() * float(total) < float(up):
            t = int(rng.integers(k))
            stack.append(t)
            out[i], d = t, d + 1
        else:
            out[i], d = k + stack.pop(), d - 1
    return out


def _pairs(string: np.ndarray, k: int) -> list[tuple[int, int]]:
    """``(open, close)`` positions of every matched pair of a member, by a stack."""
    stack, pairs = [], []
    for i, x in enumerate(string):
        if x < k:
            stack.append(i)
        else:
            pairs.append((stack.pop(), i))
    return pairs


def _negative(rng: np.random.Generator, kind: str, length: int, k: int, depth: int) -> np.ndarray:
    if kind == "overflow" and length >= 2 * (depth + 1):
        # A member of the rest, and a nest of depth + 1 inserted where the depth is 0.
        rest = random_member(rng, length - 2 * (depth + 1), k, depth)
        types = rng.integers(k, size=depth + 1)
        nest = np.concatenate([types, k + types[::-1]]).astype(np.int32)
        heights = np.concatenate([[0], np.cumsum(np.where(rest < k, 1, -1))])
        cut = int(rng.choice(np.flatnonzero(heights == 0)))
        return np.concatenate([rest[:cut], nest, rest[cut:]]).astype(np.int32)
    s = random_member(rng, length, k, depth)
    pairs = _pairs(s, k)
    if kind == "swap" and k >= 2 and len(pairs) >= 2:
        a, b = (pairs[int(i)] for i in rng.choice(len(pairs), 2, replace=False))
        if s[a[0]] == s[b[0]]:  # same type: retype pair b first (still a member)
            t = (int(s[b[0]]) + 1 + int(rng.integers(k - 1))) % k
            s[b[0]], s[b[1]] = t, k + t
        s[a[1]], s[b[1]] = s[b[1]], s[a[1]]
        return s
    if kind == "swap" and k >= 2:  # one pair: a closing bracket of another type
        o, c = pairs[0]
        s[c] = k + (int(s[o]) + 1) % k
        return s
    # dip: move a top-level block's opening bracket right after its closing bracket.
    heights = np.concatenate([[0], np.cumsum(np.where(s < k, 1, -1))])
    tops = [p for p in pairs if heights[p[0]] == 0]
    o, c = tops[int(rng.integers(len(tops)))]
    opening = s[o]
    s[o:c] = s[o + 1 : c + 1]
    s[c] = opening
    return s


def sample(
    k: int, depth: int, length: int, count: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``count`` strings of even ``length``: ``count - count // 2`` members (:func:`random_member`)
    then ``count // 2`` hard non-members, their kinds cycling through :data:`NEGATIVE_KINDS`
    (``"overflow"`` falls back to ``"dip"`` below length ``2 (depth + 1)``, ``"swap"`` to
    ``"dip"`` when ``k = 1``; at length 2, one pair, ``"swap"`` gives the closing bracket another
    type, so the counts differ).

    Returns:
      ``(strings_BxL, labels_B, kinds_B)``: int32 symbols, membership from :func:`is_member`
      (a generator bug cannot mislabel a string) and ``"member"`` or the non-member's kind.
    """
    k, depth = _int("k", k, 1), _int("depth", depth, 1)
    length, count, seed = _int("length", length, 2), _int("count", count, 1), _int("seed", seed, 0)
    if length % 2:
        raise ValueError(f"length: Dyck-(k, D) has members only at even lengths, got {length}")
    rng = np.random.default_rng(seed)
    strings = [random_member(rng, length, k, depth) for _ in range(count - count // 2)]
    kinds = ["member"] * len(strings)
    for i in range(count // 2):
        kind = NEGATIVE_KINDS[i % len(NEGATIVE_KINDS)]
        strings.append(_negative(rng, kind, length, k, depth))
        kinds.append(kind)
    out = np.stack(strings).astype(np.int32)
    return out, members(out, k, depth), kinds


# --------------------------------------------------------------------------- the recognizer


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


def build(
    k: int,
    depth: int,
    attention: str = "hard",
    *,
    max_len: int = 256,
    confidence: float = 1.0,
    dtype: jnp.dtype | type = jnp.float64,
) -> ModelParams:
    """The Dyck-(k, depth) recognizer after Yao et al. 2021 (module docstring): ``depth + 2``
    causal single-head layers reading :func:`embed`.

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


def embed(params: ModelParams, strings_BxL: ArrayLike) -> jax.Array:
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
        after1 = forward_trace(params.replace(layers=params.layers[:1]), h).streams_LxNxD[-1]
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
    inputs = embed(params, strings_BxL)
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


# --------------------------------------------------------------------------- checks

_UNIT_ROUNDOFF = {"float32": 2.0**-24, "float64": 2.0**-53}


def tolerance(n: int, dtype: str) -> float:
    """The float error allowed on one margin (per unit of ``confidence``) at ``n`` positions:
    ``16 n u`` (``u`` the unit roundoff of ``dtype``). Each quantity the decision reads is an
    average of at most ``n`` terms of size at most 1 (within ``n u`` of the exact one, Higham's
    ``gamma_n``), passed through ReLUs of slope 1 and copied by attention; the classifier adds
    three of them. This bounds the margin only while every attention choice is the exact one:
    a level head's choice moves when its score error, about ``n`` times that of ``A_l``, reaches
    the gap ``1/(2n)``, i.e. near ``16 n^3 u ~ 1`` (float64: far beyond the lengths checked;
    float32: ``n`` in the hundreds, which :func:`margin_records` measures)."""
    _validate.check_choice("dtype", dtype, tuple(_UNIT_ROUNDOFF))
    return 16.0 * int(n) * _UNIT_ROUNDOFF[dtype]


def _entry(
    margins_BxN: np.ndarray, truth_BxN: np.ndarray, lengths: Sequence[int], dtype: str, exh: bool
) -> list[dict]:
    out = []
    for length in lengths:
        m, t = margins_BxN[:, length], truth_BxN[:, length]
        n = length + 1
        signed = np.where(t, m, -m)
        tol = tolerance(n, dtype)
        member_err = float(np.max(np.abs(m[t] - 1 / (4 * n)), initial=0.0))
        worst_non = float(np.max(m[~t] + 3 / (4 * n), initial=-np.inf))
        out.append(
            {
                "length": int(length),
                "strings": int(len(m)),
                "members": int(t.sum()),
                "exhaustive": exh,
                "accuracy": float(np.mean(signed > 0)),
                "min_margin": float(signed.min()),
                "member_margin_error": member_err,
                "nonmember_excess": worst_non,
                "tolerance": tol,
                "derived": bool(member_err <= tol and worst_non <= tol),
            }
        )
    return out


def check_record(
    k: int,
    depth: int,
    *,
    attention: str = "hard",
    exhaustive_up_to: int = 6,
    sampled_lengths: Sequence[int] = (),
    samples: int = 64,
    seed: int = 0,
    dtype: str = "float64",
    max_len: int | None = None,
    leftmost: bool = True,
) -> dict:
    """The recognizer :func:`build` ``(k, depth, attention)`` checked against the stack
    (:func:`prefix_members`): on every string of lengths ``0 .. exhaustive_up_to`` (as the
    prefixes of every string of the longest, which for the hard recognizer give the decision on
    the prefix itself: :func:`decision_margins`) and on :func:`sample`'s ``samples`` strings of
    each even length of ``sampled_lengths`` (seed ``seed + length``; evaluated in one batch,
    right-padded to the longest, each read at its own length).

    Per length: accuracy, the smallest margin signed by the truth, and whether the margins are
    the derived ones (members ``1/(4n)``, non-members at most ``-3/(4n)``, within
    :func:`tolerance`; the softmax recognizer keeps the members' value and its non-members'
    bound is ``-0.15/n``, so ``derived`` there reads the members only). With ``leftmost`` (hard
    recognizer) the largest difference between the average-hard and leftmost-hard margins.

    ``dtype`` is ``"float32"`` or ``"float64"`` (float64 needs ``jax_enable_x64``).
    """
    from transformer_theory import precision

    _validate.check_choice("dtype", dtype, tuple(_UNIT_ROUNDOFF))
    exhaustive_up_to = _int("exhaustive_up_to", exhaustive_up_to, 0)
    lengths = sorted({_int("sampled_lengths", n, 2) for n in sampled_lengths})
    longest = max([exhaustive_up_to, *lengths])
    params = build(
        k,
        depth,
        attention,
        max_len=longest if max_len is None else max_len,
        dtype=precision.dtype_of(dtype),
    )
    strings = all_strings(exhaustive_up_to, k)
    margins = decision_margins(params, strings, prefixes=True)
    truth = prefix_members(strings, k, depth)
    entries = _entry(margins, truth, range(exhaustive_up_to + 1), dtype, True)
    for e in entries:  # each shorter string appears as the prefix of many rows: count it once
        e["strings"] = (2 * k) ** e["length"]
    leftmost_diff = 0.0
    use_leftmost = leftmost and attention == "hard"
    if use_leftmost:
        other = decision_margins(params, strings, prefixes=True, leftmost=True)
        leftmost_diff = float(np.max(np.abs(other - margins)))
    drawn = [n for n in lengths if n > exhaustive_up_to and n % 2 == 0]
    if drawn:
        # One batch (one compilation): every sample right-padded to the longest length, its
        # decision read in the column of its own length.
        width = max(drawn)
        rows = [sample(k, depth, n, samples, seed=seed + n)[0] for n in drawn]
        padded = np.stack([np.pad(r, (0, width - len(r))) for g in rows for r in g])
        m = decision_margins(params, padded, prefixes=True)
        truth = prefix_members(padded, k, depth)
        for i, n in enumerate(drawn):
            part = slice(i * samples, (i + 1) * samples)
            entries += _entry(m[part], truth[part], [n], dtype, False)
        if use_leftmost:
            other = decision_margins(params, padded, prefixes=True, leftmost=True)
            cols = np.repeat(np.array(drawn), samples)
            pick = np.arange(len(cols))
            diff = np.abs(other[pick, cols] - m[pick, cols])
            leftmost_diff = max(leftmost_diff, float(diff.max()))
    if attention == "softmax":
        for e in entries:
            e["derived"] = bool(e["member_margin_error"] <= e["tolerance"])
    total = sum(e["strings"] for e in entries)
    return {
        "k": int(k),
        "depth": int(depth),
        "attention": attention,
        "dtype": dtype,
        "layers": int(depth) + 2,
        "exhaustive_up_to": exhaustive_up_to,
        "sampled_lengths": [e["length"] for e in entries if not e["exhaustive"]],
        "strings_checked": int(total),
        "accuracy": float(sum(e["accuracy"] * e["strings"] for e in entries) / total),
        "min_margin": float(min(e["min_margin"] for e in entries)),
        "min_margin_times_n": float(min(e["min_margin"] * (e["length"] + 1) for e in entries)),
        "derived": all(e["derived"] for e in entries),
        "leftmost_max_difference": leftmost_diff if use_leftmost else None,
        "by_length": entries,
    }


def margin_records(
    k: int,
    depth: int,
    lengths: Sequence[int],
    *,
    dtypes: Sequence[str] = ("float32", "float64"),
    attention: str = "hard",
    samples: int = 16,
    seed: int = 0,
) -> list[dict]:
    """The smallest margin against ``n`` per float format: :func:`sample`'s ``samples`` strings
    of each even length, one record ``{n, dtype, attention, strings, accuracy, min_margin,
    min_margin_times_n, member_margin_error, tolerance}`` per (length, format); the softmax
    recognizer is built for the longest length."""
    from transformer_theory import precision

    lengths = sorted({_int("lengths", n, 2) for n in lengths})
    records = []
    for name in dtypes:
        _validate.check_choice("dtypes", name, tuple(_UNIT_ROUNDOFF))
        params = build(k, depth, attention, max_len=max(lengths), dtype=precision.dtype_of(name))
        for n in lengths:
            if n % 2:
                continue
            s, y, _ = sample(k, depth, n, samples, seed=seed + n)
            m = decision_margins(params, s).astype(np.float64)
            signed = np.where(y, m, -m)
            records.append(
                {
                    "k": int(k),
                    "depth": int(depth),
                    "n": n + 1,
                    "dtype": name,
                    "attention": attention,
                    "strings": int(samples),
                    "accuracy": float(np.mean(signed > 0)),
                    "min_margin": float(signed.min()),
                    "min_margin_times_n": float(signed.min() * (n + 1)),
                    "member_margin_error": float(
                        np.max(np.abs(m[y] - 1 / (4 * (n + 1))), initial=0.0)
                    ),
                    "tolerance": tolerance(n + 1, name),
                }
            )
    return records


# --------------------------------------------------------------------------- the experiment


@dataclasses.dataclass(frozen=True)
class DyckKSettings:
    """What :func:`run` checks (the config :mod:`.configs.dyck_k` chooses the sizes).

    Attributes:
      size: the config size that made these settings (recorded with the results).
      exhaustive: ``(k, E)`` pairs: every string of length ``<= E`` over ``2k`` symbols.
      depths: the depths ``D`` checked for every ``k``.
      attentions: the recognizers (:data:`ATTENTIONS`).
      sampled_lengths: even lengths of the sampled members and hard non-members.
      samples: strings per sampled length.
      precision_k, precision_depth: the recognizer of the margin-against-``n`` sweep.
      precision_lengths: its string lengths.
      precision_samples: its strings per length.
      dtypes: its float formats.
      seed: seed of the samples (length ``n`` uses ``seed + n``).
    """

    size: str = "default"
    exhaustive: tuple[tuple[int, int], ...] = ((2, 7), (3, 5))
    depths: tuple[int, ...] = (1, 2, 3, 4)
    attentions: tuple[str, ...] = ATTENTIONS
    sampled_lengths: tuple[int, ...] = (16, 64, 256)
    samples: int = 32
    precision_k: int = 2
    precision_depth: int = 4
    precision_lengths: tuple[int, ...] = (16, 64, 256, 1024)
    precision_samples: int = 16
    dtypes: tuple[str, ...] = ("float32", "float64")
    seed: int = 0

    def __post_init__(self) -> None:
        for k, e in self.exhaustive:
            _int("exhaustive", k, 1)
            _int("exhaustive", e, 0)
            budget.check_count("exhaustive", (2 * k) ** e, ALL_STRINGS_LIMIT, unit="strings")
        for d in self.depths:
            _int("depths", d, 1)
        for a in self.attentions:
            _validate.check_choice("attentions", a, ATTENTIONS)
        for n in (*self.sampled_lengths, *self.precision_lengths):
            if _int("sampled_lengths", n, 2) % 2:
                raise ValueError(f"sampled_lengths: lengths must be even, got {n}")
        for name in self.dtypes:
            _validate.check_choice("dtypes", name, tuple(_UNIT_ROUNDOFF))
        _int("samples", self.samples, 1)
        _int("precision_samples", self.precision_samples, 1)
        _int("seed", self.seed, 0)


def _bar(items: list, desc: str, progress: bool) -> list:
    if not progress:
        return items
    from transformer_theory.progress import tqdm

    return tqdm(items, desc=desc, disable=None)


def run(config: DyckKSettings, out_dir: str | None = None, *, progress: bool = False) -> dict:
    """Every recognizer of ``config`` checked (:func:`check_record`, float64), then the margin
    sweep (:func:`margin_records`); with ``out_dir``, ``dyck_k.json`` (``records``,
    ``precision``, ``settings``) rewritten after each record and the figure ``dyck_k_margin.png``
    (:func:`.plots.dyck_k_margins`) at the end.

    Returns:
      ``{"rows", "records", "precision", "failed"}``: one table row per record, the records,
      the sweep, and whether any recognizer misclassified a string or left its derived margin.
    """
    import os

    import jax

    from transformer_theory.jsonio import write_json

    jax.config.update("jax_enable_x64", True)  # float64 is one of the formats compared
    records: list[dict] = []
    sweep: list[dict] = []

    def save() -> None:
        if out_dir is not None:
            blob = {
                "records": records,
                "precision": sweep,
                "settings": dataclasses.asdict(config),
            }
            write_json(os.path.join(out_dir, "dyck_k.json"), blob)

    jobs = [
        (a, k, e, d) for a in config.attentions for k, e in config.exhaustive for d in config.depths
    ]
    for attention, k, e, depth in _bar(jobs, "Dyck-(k, D)", progress):
        records.append(
            check_record(
                k,
                depth,
                attention=attention,
                exhaustive_up_to=e,
                sampled_lengths=config.sampled_lengths,
                samples=config.samples,
                seed=config.seed,
            )
        )
        save()
    for attention in config.attentions:
        sweep += margin_records(
            config.precision_k,
            config.precision_depth,
            config.precision_lengths,
            dtypes=config.dtypes,
            attention=attention,
            samples=config.precision_samples,
            seed=config.seed,
        )
        save()
    if out_dir is not None:
        from transformer_theory.papers.formal_languages import plots

        plots.dyck_k_margins(sweep, os.path.join(out_dir, "dyck_k_margin.png"))
    rows = [
        {
            "attention": r["attention"],
            "k": r["k"],
            "D": r["depth"],
            "layers": r["layers"],
            "strings": r["strings_checked"],
            "lengths": ", ".join([f"0-{r['exhaustive_up_to']}", *map(str, r["sampled_lengths"])]),
            "accuracy": r["accuracy"],
            "min margin x n": round(r["min_margin_times_n"], 6),
            "derived": r["derived"],
        }
        for r in records
    ]
    failed = any(r["accuracy"] < 1.0 or not r["derived"] for r in records)
    return {"rows": rows, "records": records, "precision": sweep, "failed": failed}
