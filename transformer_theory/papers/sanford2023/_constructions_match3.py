"""Match3Bigram (depth 2) and Match3Local (depth 1; a ``2K + 1``-head unit and a single-head one)
of Sanford, Hsu & Telgarsky 2023: our constructions of their statements (the slides give no
proofs), each with its input map, its prediction and the scale it must resolve.

Shape letters: :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

from transformer_theory import _validate
from transformer_theory.papers.sanford2023._constructions import run_streams, softmax_mlp_layer
from transformer_theory.papers.sanford2023._constructions_match2 import (
    match2_scale,
    match2_scale_log2,
)
from transformer_theory.params import ModelConfig, ModelParams

__all__ = [
    "match3bigram_apply",
    "match3bigram_construction",
    "match3bigram_embed",
    "match3bigram_scale_log2",
    "match3local_apply",
    "match3local_construction",
    "match3local_scale_log2",
    "match3local_single_apply",
    "match3local_single_construction",
]


def match3bigram_scale_log2(seq_len: int, modulus: int, window: int = 0) -> float:
    """``log2 c`` of layer 2, the Match2 unit between ``x_i`` and the bigram sums
    (:func:`~transformer_theory.papers.sanford2023._constructions_match2.match2_scale_log2`)."""
    return match2_scale_log2(seq_len, modulus)


def match3local_scale_log2(seq_len: int, modulus: int, window: int = 1) -> float:
    """``log2`` of the larger of the integer sums ``x_i + x_a + x_b < 3M`` and the positional
    scale ``c_1`` of :func:`match3local_construction` (both units share it)."""
    _validate.check_int_arg("window", window, 0)
    if int(seq_len) < 1:
        raise ValueError(f"seq_len: expected N >= 1, got {seq_len}")
    if int(modulus) < 2:
        raise ValueError(f"modulus: expected M >= 2, got {modulus}")
    total = seq_len + 2 * int(window)
    # 1 - cos(x) written as 2 sin^2(x / 2): the same number, without the cancellation that
    # makes it exactly 0.0 (a ZeroDivisionError) once the window is ~1e8 or more.
    c1 = (math.log(100 * total * 3) + math.log(int(modulus))) / (
        2 * math.sin(math.pi / (2 * total)) ** 2
    )
    return max(math.log2(3) + math.log2(int(modulus)), math.log2(c1))


# ---------------------------------------------------------------------------------------------
# Match3Bigram, depth 2

# stream slots of match3bigram_construction (width 14)
_X, _COS, _SIN, _TOK, _BLANK, _POS, _NEXTPOS, _NEXT, _KEY, _ATT, _ANS = (
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    9,
    10,
    12,
    13,
)


def match3bigram_construction(
    seq_len: int, modulus: int, dtype: DTypeLike = jnp.float64
) -> ModelParams:
    """Two softmax layers (query/key width 3) computing Match3Bigram on ``[M]^N`` exactly.

    Sanford et al. 2023 state depth 2 and embedding dimension 3; the slides give no proof. This
    construction: layer 1 attends from position ``j`` to ``j + 1`` (positional angles, scale
    ``c_1``) and copies ``x_{j+1}``; its MLP is the exact piecewise-linear interpolation (``2M - 1``
    ReLUs, the finite-domain stand-in for the paper's arbitrary element-wise MLP) of
    ``s -> (cos 2 pi s/M, -sin 2 pi s/M)`` at the integers ``s = x_j + x_{j+1}`` in ``[0, 2M - 2]``,
    and 0 for ``s <= -1``; layer 2 is the Match2 unit of :func:`match2_construction` between
    ``x_i`` and these bigram sums. The blank ``x'`` at position ``N`` carries ``x = -2M``, so the
    last position's "bigram" (with the blank) gets key 0 and is never matched. The query/key width
    is 3 in both layers; the residual stream holds the 14 slots the two layers read and write.
    """
    if int(seq_len) < 2:
        raise ValueError(f"seq_len: expected N >= 2, got {seq_len}")
    if int(modulus) < 2:
        raise ValueError(f"modulus: expected M >= 2, got {modulus}")
    n, m = seq_len, modulus
    width, period = 14, 2 * (n + 1)
    c = match2_scale(n, m)
    gap = 1 - math.cos(2 * math.pi / period)
    # leakage of layer 1 times the largest copied value must move layer 2's scores by << c / M^2
    c1 = math.log(40 * math.pi * (n + 1) * c * m) / gap
    eye = np.eye(width)
    zero3 = np.zeros((3, width))
    w_q1, w_k1 = zero3.copy(), zero3.copy()
    w_q1[:2] = c1 * eye[_NEXTPOS : _NEXTPOS + 2]
    w_k1[:2] = eye[_POS : _POS + 2]
    w_v1 = np.zeros((width, width))
    w_v1[_NEXT, _X] = 1.0
    knots = np.arange(-1, 2 * m - 1)  # relu(s - k) for k = -1 .. 2M - 2
    s_pts = np.arange(-1, 2 * m)
    values = np.stack([np.cos(2 * np.pi * s_pts / m), -np.sin(2 * np.pi * s_pts / m)])
    values[:, 0] = 0.0  # f(-1) = 0, and f = 0 below
    slopes = np.diff(values, axis=1)  # slope on [k, k+1], k = -1 .. 2M - 2
    kinks = np.diff(np.concatenate([np.zeros((2, 1)), slopes], axis=1), axis=1)
    hidden = len(knots)
    w1 = np.zeros((hidden, width))
    w1[:, _X] = 1.0
    w1[:, _NEXT] = 1.0
    w2 = np.zeros((width, hidden))
    w2[_KEY : _KEY + 2] = kinks[:, :hidden]
    w_q2 = c * eye[[_COS, _SIN, _TOK]]
    w_k2 = eye[[_KEY, _KEY + 1, _BLANK]]
    w_v2 = np.zeros((width, width))
    w_v2[_ATT, _TOK] = 1.0
    w1b = np.zeros((hidden, width))
    w1b[:2, _ATT] = 6.0
    b1b = np.zeros(hidden)
    b1b[:2] = [-1.0, -2.0]
    w2b = np.zeros((width, hidden))
    w2b[_ANS, :2] = [1.0, -1.0]
    cfg = ModelConfig(
        vocab_size=1,
        seq_len=n + 1,
        width=width,
        num_classes=1,
        heads=(1, 1),
        attention="softmax",
        positional="none",
        qk_dim=3,
        mlp_hidden=hidden,
    )

    layer1 = softmax_mlp_layer(dtype, w_v1[None], w_q1[None], w_k1[None], w1, -knots, w2)
    layer2 = softmax_mlp_layer(dtype, w_v2[None], w_q2[None], w_k2[None], w1b, b1b, w2b)
    w_o = jnp.asarray(eye[_ANS : _ANS + 1], dtype)
    return ModelParams(layers=(layer1, layer2), w_o=w_o, config=cfg)


def match3bigram_embed(x_BxN: np.ndarray, modulus: int) -> np.ndarray:
    """The input map of :func:`match3bigram_construction`: float64 ``(B, N + 1, 14)``."""
    x = np.asarray(x_BxN, np.int64)
    if x.ndim != 2:
        raise ValueError(f"x_BxN: expected a (B, N) array, got shape {x.shape}")
    if x.size and (x.min() < 0 or x.max() >= modulus):
        raise ValueError(f"x_BxN: tokens must lie in [0, {modulus}), got [{x.min()}, {x.max()}]")
    b, n = x.shape
    period = 2 * (n + 1)
    stream = np.zeros((b, n + 1, 14))
    stream[:, :n, _X] = x
    stream[:, n, _X] = -2 * modulus
    angle = 2 * np.pi * x / modulus
    stream[:, :n, _COS], stream[:, :n, _SIN], stream[:, :n, _TOK] = np.cos(angle), np.sin(angle), 1
    stream[:, n, _BLANK] = 1.0
    pos = 2 * np.pi * np.arange(n + 1) / period
    nxt = 2 * np.pi * np.arange(1, n + 2) / period
    stream[:, :, _POS], stream[:, :, _POS + 1] = np.cos(pos), np.sin(pos)
    stream[:, :, _NEXTPOS], stream[:, :, _NEXTPOS + 1] = np.cos(nxt), np.sin(nxt)
    return stream


def match3bigram_apply(params: ModelParams, x_BxN: np.ndarray, modulus: int) -> np.ndarray:
    """Match3Bigram predictions ``bool (B, N)`` of :func:`match3bigram_construction`."""
    x = np.asarray(x_BxN, np.int64)
    if x.ndim != 2 or x.shape[1] + 1 != params.config.seq_len:
        raise ValueError(f"x_BxN: expected shape (B, {params.config.seq_len - 1}), got {x.shape}")
    out, _ = run_streams(params, jnp.asarray(match3bigram_embed(x, modulus), params.w_o.dtype))
    return np.asarray(out[:, :-1, _ANS], np.float64) > 0.5


# ---------------------------------------------------------------------------------------------
# Match3Local, depth 1


def match3local_construction(
    seq_len: int, modulus: int, window: int, dtype: DTypeLike = jnp.float64
) -> ModelParams:
    """One layer of ``2K + 1`` softmax heads (query/key width 2) computing Match3Local exactly.

    Sanford et al. 2023 state depth 1 and embedding dimension ``O(K log N)``; the slides give no
    proof. This construction: the sequence is padded with ``K`` sentinels (``x = -3M``) on each
    side; head ``o`` attends from ``i`` to ``i + o - K`` (positional angles, scale ``c_1``) and
    copies that token into slot ``1 + o``, so the stream of ``i`` holds its whole window
    (``O(K)`` slots; the ``log N`` of the paper is the precision of the positional angles). The
    MLP computes, for every pair of window slots ``(a <= b)``, ``t = x_i + x_a + x_b`` and the
    exact integer bumps ``1{t in {0, M, 2M}}`` (three ReLUs each), summed into the answer slot:
    positive iff some ``j_1, j_2`` in the window make a triple (a sentinel makes ``t < 0``).
    """
    if int(seq_len) < 1:
        raise ValueError(f"seq_len: expected N >= 1, got {seq_len}")
    if int(modulus) < 2:
        raise ValueError(f"modulus: expected M >= 2, got {modulus}")
    window = _validate.check_int_arg("window", window, 0)  # 2.5 was a TypeError
    n, m, k = seq_len, modulus, window
    heads = 2 * k + 1
    total = n + 2 * k
    period = 2 * total
    slots = 1 + heads  # x, then the window copies
    pos0 = slots
    width = pos0 + 2 + 2 * heads + 1
    ans = width - 1
    c1 = math.log(100 * total * 3 * m) / (1 - math.cos(2 * math.pi / period))
    eye = np.eye(width)
    w_q = np.zeros((heads, 2, width))
    w_k = np.zeros((heads, 2, width))
    w_v = np.zeros((heads, width, width))
    for o in range(heads):
        w_q[o] = c1 * eye[pos0 + 2 + 2 * o : pos0 + 4 + 2 * o]
        w_k[o] = eye[pos0 : pos0 + 2]
        w_v[o, 1 + o, 0] = 1.0
    pairs = [(a, b) for a in range(heads) for b in range(a, heads)]
    rows, bias, outs = [], [], []
    for a, b in pairs:
        t = eye[0] + eye[1 + a] + eye[1 + b]
        for target in (0, m, 2 * m):
            for shift, weight in ((-1, 1.0), (0, -2.0), (1, 1.0)):
                rows.append(t)
                bias.append(-(target + shift))
                outs.append(weight)
    w2 = np.zeros((width, len(rows)))
    w2[ans] = outs
    cfg = ModelConfig(
        vocab_size=1,
        seq_len=total,
        width=width,
        num_classes=1,
        heads=(heads,),
        attention="softmax",
        positional="none",
        qk_dim=2,
        head_mean=False,
        mlp_hidden=len(rows),
    )

    layer = softmax_mlp_layer(dtype, w_v, w_q, w_k, np.stack(rows), bias, w2)
    return ModelParams(layers=(layer,), w_o=jnp.asarray(eye[ans : ans + 1], dtype), config=cfg)


def match3local_apply(
    params: ModelParams, x_BxN: np.ndarray, modulus: int, window: int
) -> np.ndarray:
    """Match3Local predictions ``bool (B, N)`` of :func:`match3local_construction`."""
    x = np.asarray(x_BxN, np.int64)
    cfg = params.config
    k = int(window)
    if cfg.heads != (2 * k + 1,):
        raise ValueError(f"window: the model was built for K = {(cfg.heads[0] - 1) // 2}, got {k}")
    if x.ndim != 2 or x.shape[1] + 2 * k != cfg.seq_len:
        raise ValueError(f"x_BxN: expected shape (B, {cfg.seq_len - 2 * k}), got {x.shape}")
    if x.size and (x.min() < 0 or x.max() >= modulus):
        raise ValueError(f"x_BxN: tokens must lie in [0, {modulus}), got [{x.min()}, {x.max()}]")
    b, n = x.shape
    heads, total = 2 * k + 1, n + 2 * k
    pos0 = 1 + heads
    stream = np.zeros((b, total, cfg.width))
    stream[:, :, 0] = -3 * modulus
    stream[:, k : k + n, 0] = x
    pos = np.arange(total)
    for o in range(-1, heads):  # o = -1: the key's own angle; o >= 0: head o's target
        angle = 2 * np.pi * (pos + (0 if o < 0 else o - k)) / (2 * total)
        col = pos0 if o < 0 else pos0 + 2 + 2 * o
        stream[:, :, col], stream[:, :, col + 1] = np.cos(angle), np.sin(angle)
    out, _ = run_streams(params, jnp.asarray(stream, params.w_o.dtype))
    return np.asarray(out[:, k : k + n, cfg.width - 1], np.float64) > 0.5


def _single_local_layout(window: int) -> dict:
    period = 2 * (2 * int(window) + 1)  # P' residues: a window of 2K+1 never wraps onto itself
    placed = 1  # x_j at slot j mod P'
    residue = placed + period  # one-hot of j mod P'
    angle = residue + period  # (cos, sin) of 2 pi j / L
    att = angle + 2  # the attention output, one slot per residue
    ans = att + period
    return dict(period=period, placed=placed, residue=residue, angle=angle, att=att, ans=ans)


def match3local_single_construction(
    seq_len: int, modulus: int, window: int, dtype: DTypeLike = jnp.float64
) -> ModelParams:
    """ONE softmax head (query/key width ``4K + 4``) and an MLP computing Match3Local exactly.

    Our construction, beside the ``2K + 1``-head :func:`match3local_construction`: Sanford et al.
    2023 state one unit of embedding dimension ``O(K log N)`` and the slides give no proof; this
    one has query/key width ``P' + 2 = 4K + 4`` (the ``log N`` is in the precision of the
    positional angle). With ``K`` sentinels (``x = -3M``) padded on each side (``T = N + 2K``
    positions), ``P' = 2(2K + 1)`` and ``L = 2T``:

    - the input map puts ``x_j`` at slot ``j mod P'``, the one-hot of ``j mod P'`` and the angle
      ``(cos, sin)(2 pi j / L)`` into the stream;
    - the score of ``i`` on ``j`` is ``A 1{(j - i) mod P' in [-K, K]} + lam cos(2 pi (i - j) / L)``:
      the indicator (query = the residues of ``i``'s window, key = ``j``'s residue) keeps the
      window and its aliases at distance ``>= 3K + 2``, the cosine pushes the aliases down by
      ``lam (cos(2 pi K/L) - cos(2 pi (3K+2)/L))``;
    - inside the window the weights are KNOWN: ``a_o = exp(lam cos(2 pi o / L)) / sum_{|o'| <= K}
      exp(lam cos(2 pi o' / L))`` for offset ``o`` (every window is full thanks to the padding),
      and each residue occurs once, so the value ``x_j e_{j mod P'}`` leaves ``a_o x_{i+o}`` in
      slot ``(i + o) mod P'``;
    - the MLP, for each residue ``rho`` of ``i`` and each pair of offsets ``a <= b``, forms ``t =
      x_i + slot_{rho+a} / a_a + slot_{rho+b} / a_b`` and the bumps ``1{t in {0, M, 2M}}`` (three
      ReLUs each), gated off by ``-G (1 - 1{i mod P' = rho})`` with ``G = 3M (1 + 2 a_max /
      a_min) + 3``, above ``|t|`` under any residue's decoding (a wrong ``rho`` divides a slot by
      the wrong ``a_o``, up to ``a_max / a_min`` times too large).

    ``A`` and ``lam`` make the leaked weight times ``3M / a_min`` below ``10^-3``, so every decoded
    token is within ``10^-3`` of an integer and a bump reads ``> 1/2`` iff there is a triple.
    """
    if int(seq_len) < 1:
        raise ValueError(f"seq_len: expected N >= 1, got {seq_len}")
    if int(modulus) < 2:
        raise ValueError(f"modulus: expected M >= 2, got {modulus}")
    if int(window) < 0:
        raise ValueError(f"window: expected K >= 0, got {window}")
    n, m, k = int(seq_len), int(modulus), int(window)
    lay = _single_local_layout(k)
    pp, total = lay["period"], n + 2 * k
    ell = 2 * total
    width = lay["ans"] + 1
    need = math.log(1000 * total * 3 * m * (2 * k + 1))
    offsets = np.arange(-k, k + 1)
    if 3 * k + 2 < total:  # aliases exist: the cosine must beat the spread inside the window
        cos = np.cos(2 * np.pi * np.array([k, 3 * k + 2]) / ell)
        lam = need / (2 * cos[0] - 1 - cos[1])
    else:
        lam = 0.0
    weights = np.exp(lam * (np.cos(2 * np.pi * offsets / ell) - 1))
    a_o = weights / weights.sum()  # a_o for o = -K..K
    big = 2 * lam + need + 1  # A
    eye = np.eye(width)
    w_q = np.zeros((1, pp + 2, width))
    w_k = np.zeros((1, pp + 2, width))
    for rho in range(pp):
        for o in offsets:
            w_q[0, (rho + o) % pp, lay["residue"] + rho] = big
        w_k[0, rho] = eye[lay["residue"] + rho]
    w_q[0, pp : pp + 2] = lam * eye[lay["angle"] : lay["angle"] + 2]
    w_k[0, pp : pp + 2] = eye[lay["angle"] : lay["angle"] + 2]
    w_v = np.zeros((1, width, width))
    for r in range(pp):
        w_v[0, lay["att"] + r, lay["placed"] + r] = 1.0
    gate = 3.0 * m * (1 + 2 * a_o.max() / a_o.min()) + 3  # > |t| under ANY residue's decoding
    rows, bias, outs = [], [], []
    pairs = [(a, b) for a in range(2 * k + 1) for b in range(a, 2 * k + 1)]  # offset indices
    for rho in range(pp):
        for a, b in pairs:
            t = eye[0].copy()
            t[lay["att"] + (rho + offsets[a]) % pp] += 1 / a_o[a]
            t[lay["att"] + (rho + offsets[b]) % pp] += 1 / a_o[b]
            t = t + gate * eye[lay["residue"] + rho]
            for target in (0, m, 2 * m):
                for shift, weight in ((-1, 1.0), (0, -2.0), (1, 1.0)):
                    rows.append(t)
                    bias.append(-(target + shift) - gate)
                    outs.append(weight)
    w2 = np.zeros((width, len(rows)))
    w2[lay["ans"]] = outs
    cfg = ModelConfig(
        vocab_size=1,
        seq_len=total,
        width=width,
        num_classes=1,
        heads=(1,),
        attention="softmax",
        positional="none",
        qk_dim=pp + 2,
        mlp_hidden=len(rows),
    )

    layer = softmax_mlp_layer(dtype, w_v, w_q, w_k, np.stack(rows), bias, w2)
    w_o = jnp.asarray(eye[lay["ans"] : lay["ans"] + 1], dtype)
    return ModelParams(layers=(layer,), w_o=w_o, config=cfg)


def match3local_single_apply(
    params: ModelParams, x_BxN: np.ndarray, modulus: int, window: int
) -> np.ndarray:
    """Match3Local predictions ``bool (B, N)`` of :func:`match3local_single_construction`."""
    x = np.asarray(x_BxN, np.int64)
    cfg = params.config
    k = int(window)
    lay = _single_local_layout(k)
    if cfg.qk_dim != lay["period"] + 2:
        raise ValueError(f"window: the model was built for K = {(cfg.qk_dim - 4) // 4}, got {k}")
    if x.ndim != 2 or x.shape[1] + 2 * k != cfg.seq_len:
        raise ValueError(f"x_BxN: expected shape (B, {cfg.seq_len - 2 * k}), got {x.shape}")
    if x.size and (x.min() < 0 or x.max() >= modulus):
        raise ValueError(f"x_BxN: tokens must lie in [0, {modulus}), got [{x.min()}, {x.max()}]")
    b, n = x.shape
    pp, total = lay["period"], n + 2 * k
    tokens = np.full((b, total), -3.0 * modulus)
    tokens[:, k : k + n] = x
    pos = np.arange(total)
    stream = np.zeros((b, total, cfg.width))
    stream[:, :, 0] = tokens
    stream[:, pos, lay["placed"] + pos % pp] = tokens
    stream[:, pos, lay["residue"] + pos % pp] = 1.0
    angle = 2 * np.pi * pos / (2 * total)
    stream[:, :, lay["angle"]], stream[:, :, lay["angle"] + 1] = np.cos(angle), np.sin(angle)
    out, _ = run_streams(params, jnp.asarray(stream, params.w_o.dtype))
    return np.asarray(out[:, k : k + n, lay["ans"]], np.float64) > 0.5
