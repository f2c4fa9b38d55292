"""Explicit self-attention units of Sanford, Hsu & Telgarsky 2023 in the library's ONE parameter
format: q-sparse averaging (their Theorem 2, proof outline with a restricted-isometry matrix) and
Match2 (their Theorem 6, embedding dimension 3).

Sanford et al. write a unit as ``psi(softmax(phi(X) Q K^T phi(X)^T) phi(X) V)`` with an input map
``phi``, query/key/value matrices and an output MLP ``psi``. Here ``phi`` is the embedding the
forward pass is given (for Match2 the one-hot token embedding, whose columns ``w_q``/``w_k`` are the
table of ``Q^T phi(x)``/``K^T phi(x)``; for qSA the rows ``(z_i; alpha w~_{y_i}; u_i; 0)`` built by
:func:`qsa_embed`), ``Q, K`` are the factored ``w_q, w_k`` with ``qk_dim = m`` (the paper's
embedding dimension), ``V`` is ``w_v`` writing into a zero block of the residual stream, and
``psi`` is the layer's MLP. The per-position outputs are read from the last residual stream
(``forward_trace(...).streams_LxNxD[-1]``); nothing in
:class:`~transformer_theory.params.ModelParams` had to be extended.

Shape letters: :mod:`transformer_theory.glossary` (``E`` = the query/key width ``m``, ``K`` key
positions, ``Y`` the width ``d'`` of the averaged vectors).
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize

from transformer_theory.core.forward import forward_trace
from transformer_theory.papers.sanford2023 import tasks as tasks_sanford
from transformer_theory.params import (
    AttentionParams,
    LayerParams,
    MLPParams,
    ModelConfig,
    ModelParams,
)

# ---------------------------------------------------------------------------------------------
# Restricted isometry and orthogonality (Candes & Tao 2005), checked on the drawn matrix


def rademacher(seed: int, rows: int, seq_len: int) -> np.ndarray:
    """``U_ExK``: ``m x N`` independent signs scaled by ``1/sqrt(m)`` (columns of norm 1)."""
    if int(rows) < 1:
        raise ValueError(f"rows: expected m >= 1, got {rows}")
    if int(seq_len) < 1:
        raise ValueError(f"seq_len: expected N >= 1, got {seq_len}")
    rng = np.random.default_rng(seed)
    return rng.choice([-1.0, 1.0], size=(rows, seq_len)) / math.sqrt(rows)


@dataclasses.dataclass(frozen=True)
class RIPReport:
    """The constants of the ``(q, delta)`` restricted isometry and orthogonality property.

    ``isometry = max |lambda - 1|`` over the eigenvalues of ``U_T^T U_T``, ``|T| = q``;
    ``orthogonality = max ||U_T^T U_T'||_2`` over disjoint ``|T| = q``, ``|T'| = min(2q, N - q)``
    (Candes & Tao 2005, "Decoding by linear programming", their ``theta_{q,2q}``). The slides
    omit "disjoint"; without it ``v = v'`` would force ``||Uv||^2 <= delta``, contradicting the
    isometry, so disjoint supports are what is meant. ``U`` has the property for ``delta`` iff
    both constants are ``<= delta``. ``exhaustive``: every pair ``(T, T')`` was enumerated,
    otherwise ``pairs`` random pairs.
    """

    isometry: float
    orthogonality: float
    pairs: int
    exhaustive: bool

    def holds(self, delta: float) -> bool:
        return self.isometry <= delta and self.orthogonality <= delta


def rip_constants(
    u_ExK: np.ndarray, q: int, *, max_pairs: int = 200_000, seed: int = 0
) -> RIPReport:
    """Measure the RIP/ROP constants of ``u_ExK`` at sparsity ``q`` (see :class:`RIPReport`).

    Enumerates all ``C(N, q) * C(N - q, 2q)`` pairs when that is at most ``max_pairs``, otherwise
    samples ``max_pairs`` random disjoint pairs (a lower bound on the true constants).
    """
    u = np.asarray(u_ExK, np.float64)
    n = u.shape[1]
    if not 1 <= int(q) < n:
        raise ValueError(f"q: expected 1 <= q < N = {n}, got {q}")
    other = min(2 * q, n - q)
    total = math.comb(n, q) * math.comb(n - q, other)
    rng = np.random.default_rng(seed)
    if total <= max_pairs:
        firsts = tasks_sanford.all_subsets(n, q)
        t_list, s_list = [], []
        for row in firsts:
            rest = np.flatnonzero(~row)
            for c in tasks_sanford.all_subsets(len(rest), other):
                t_list.append(np.flatnonzero(row))
                s_list.append(rest[c])
        t_idx, s_idx = np.array(t_list), np.array(s_list)
    else:
        perm = np.argsort(rng.uniform(size=(max_pairs, n)), axis=-1)
        t_idx, s_idx = perm[:, :q], perm[:, q : q + other]
    iso, orth = 0.0, 0.0
    for start in range(0, len(t_idx), 20_000):
        ut = u[:, t_idx[start : start + 20_000]].transpose(1, 0, 2)  # (B, E, q)
        us = u[:, s_idx[start : start + 20_000]].transpose(1, 0, 2)
        eig = np.linalg.eigvalsh(np.einsum("bet,bes->bts", ut, ut))
        iso = max(iso, float(np.max(np.abs(eig - 1.0))))
        sv = np.linalg.norm(np.einsum("bet,bes->bts", ut, us), ord=2, axis=(1, 2))
        orth = max(orth, float(np.max(sv)))
    return RIPReport(iso, orth, len(t_idx), total <= max_pairs)


# ---------------------------------------------------------------------------------------------
# The vectors w_y


def subset_weights(u_ExK: np.ndarray, members_BxK: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each q-subset ``y`` a ``w_y`` with ``<u_j, w> = 1`` on ``y`` and ``<= 1/2`` off it.

    Sanford et al. 2023 take ``w_y`` from Candes & Tao 2005 (``||w|| <= sqrt(q)/(1 - 2 delta)
    = 2 sqrt(q)`` at ``delta = 1/4``); here it is computed: the least-norm solution of the
    equalities, and where that one violates ``<= 1/2`` off ``y``, the minimum-l1 solution of the
    linear program (SciPy/HiGHS). Returns ``(w_BxE, ok_B)``; ``ok[b]`` is False when no ``w``
    exists (then ``w`` is the least-norm one).
    """
    u = np.asarray(u_ExK, np.float64)
    members = np.asarray(members_BxK, bool)
    if members.ndim != 2 or members.shape[1] != u.shape[1]:
        raise ValueError(f"members_BxK: expected shape (B, {u.shape[1]}), got {members.shape}")
    q = int(members[0].sum())
    if np.any(members.sum(-1) != q):
        raise ValueError("members_BxK: every subset must have the same size q")
    idx = np.nonzero(members)[1].reshape(len(members), q)
    ut = u[:, idx].transpose(1, 0, 2)  # (B, E, q)
    gram = np.einsum("bet,bes->bts", ut, ut)
    sol = np.linalg.pinv(gram) @ np.ones((len(members), q, 1))
    w = np.einsum("bet,bto->be", ut, sol)
    ok = _w_valid(u, members, w)
    for b in np.flatnonzero(~ok):
        m = u.shape[0]
        a_eq = np.concatenate([u[:, members[b]].T, -u[:, members[b]].T], axis=1)
        a_ub = np.concatenate([u[:, ~members[b]].T, -u[:, ~members[b]].T], axis=1)
        res = scipy.optimize.linprog(
            np.ones(2 * m),
            A_ub=a_ub,
            b_ub=np.full(a_ub.shape[0], 0.5),
            A_eq=a_eq,
            b_eq=np.ones(q),
            bounds=(0, None),
            method="highs",
        )
        if res.status == 0:
            w[b] = res.x[:m] - res.x[m:]
            ok[b] = _w_valid(u, members[b : b + 1], w[b : b + 1])[0]
    return w, ok


def _w_valid(u, members, w, tol=1e-9):
    ip = w @ u  # (B, K)
    on = np.all(np.abs(ip - 1.0) <= tol, axis=-1, where=members)
    off = np.all(ip <= 0.5 + tol, axis=-1, where=~members)
    return on & off


def alpha_scale(seq_len: int, epsilon: float) -> int:
    """``alpha = ceil(2 log(4 N / eps))``: an off-``y`` score ``<= alpha/2`` below the on-``y``
    ones gets softmax weight ``<= e^{-alpha/2} <= eps / (4N)``."""
    if not 0 < epsilon < 1:
        raise ValueError(f"epsilon: expected 0 < eps < 1, got {epsilon}")
    return math.ceil(2 * math.log(4 * seq_len / epsilon))


def bits_needed(rows: int, alpha: int, epsilon: float) -> int:
    """Fraction bits ``p`` with ``||w~ - w||_2 <= sqrt(m) 2^{-p-1} <= eps / (4 alpha)`` when every
    coordinate of ``w`` is rounded to the nearest multiple of ``2^-p``."""
    return max(0, math.ceil(math.log2(2 * alpha * math.sqrt(rows) / epsilon)))


def round_bits(w: np.ndarray, bits: int | None) -> np.ndarray:
    """Round to the nearest multiple of ``2^-bits`` (``None``: unchanged)."""
    if bits is None:
        return np.asarray(w, np.float64)
    return np.round(np.asarray(w, np.float64) * 2.0**bits) / 2.0**bits


# ---------------------------------------------------------------------------------------------
# qSA


@dataclasses.dataclass(frozen=True)
class QSAConstruction:
    """A self-attention unit that ``epsilon``-approximates qSA (Sanford et al. 2023, Theorem 2).

    Stream layout (width ``D = 2 d' + 2 m``): ``[z_i | alpha w~_{y_i} | u_i | output]``; ``w_q``
    reads the second block, ``w_k`` the third, ``w_v`` copies the first into the output block.
    """

    params: ModelParams
    u_ExK: np.ndarray
    q: int
    dim: int
    epsilon: float
    alpha: int
    bits: int | None

    @property
    def rows(self) -> int:
        return self.u_ExK.shape[0]


def qsa_construction(
    seq_len: int,
    q: int,
    dim: int,
    epsilon: float,
    rows: int,
    *,
    seed: int = 0,
    bits: int | None = None,
    dtype=jnp.float64,
) -> QSAConstruction:
    """Build the unit with ``m = rows`` Rademacher rows drawn from ``seed``.

    ``bits=None`` keeps ``w`` unrounded; an integer rounds ``alpha w`` 's ``w`` to that many
    fraction bits (:func:`bits_needed` gives the proof's choice).
    """
    if not 1 <= int(q) <= int(seq_len):
        raise ValueError(f"q: expected 1 <= q <= N = {seq_len}, got {q}")
    if int(dim) < 1:
        raise ValueError(f"dim: expected d' >= 1, got {dim}")
    if bits is not None and int(bits) < 0:
        raise ValueError(f"bits: expected >= 0, got {bits}")
    alpha = alpha_scale(seq_len, epsilon)
    u = rademacher(seed, rows, seq_len)
    m, y = rows, dim
    width = 2 * y + 2 * m
    eye = np.eye(width)
    w_q = eye[y : y + m]
    w_k = eye[y + m : y + 2 * m]
    w_v = np.zeros((width, width))
    w_v[y + 2 * m :, :y] = np.eye(y)
    cfg = ModelConfig(
        vocab_size=1,
        seq_len=seq_len,
        width=width,
        num_classes=y,
        heads=(1,),
        attention="softmax",
        positional="none",
        qk_dim=m,
    )
    layer = LayerParams(
        attn=AttentionParams(
            w_v=jnp.asarray(w_v[None], dtype),
            w_q=jnp.asarray(w_q[None], dtype),
            w_k=jnp.asarray(w_k[None], dtype),
        )
    )
    params = ModelParams(layers=(layer,), w_o=jnp.asarray(eye[y + 2 * m :], dtype), config=cfg)
    return QSAConstruction(params, u, int(q), int(dim), float(epsilon), alpha, bits)


def qsa_embed(
    c: QSAConstruction, z_BxNxY: np.ndarray, members_BxNxK: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The input map ``phi(x_i) = (z_i; alpha w~_{y_i}; u_i; 0)``. Returns ``(stream_BxNxD,
    ok_BxN)`` where ``ok`` says a valid ``w_{y_i}`` was found."""
    z = np.asarray(z_BxNxY, np.float64)
    members = np.asarray(members_BxNxK, bool)
    b, n, _ = z.shape
    # one w per DISTINCT subset (at most C(N, q)): the LP fallback is then solved once per subset
    distinct, inverse = np.unique(members.reshape(b * n, n), axis=0, return_inverse=True)
    w, ok = subset_weights(c.u_ExK, distinct)
    w, ok = w[inverse.reshape(-1)], ok[inverse.reshape(-1)]
    w = c.alpha * round_bits(w, c.bits)
    u_rows = np.broadcast_to(c.u_ExK.T[None], (b, n, c.rows))
    stream = np.concatenate([z, w.reshape(b, n, c.rows), u_rows, np.zeros_like(z)], axis=-1)
    return stream, ok.reshape(b, n)


@jax.jit
def _run(params: ModelParams, stream_BxNxD: jax.Array):
    trace = jax.vmap(lambda s: forward_trace(params, s))(stream_BxNxD)
    return trace.streams_LxNxD[:, -1], trace.attention[0][:, 0]


def qsa_apply(
    c: QSAConstruction, z_BxNxY: np.ndarray, members_BxNxK: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Run the model: ``f(X)_BxNxY`` (the output block of the last stream) and ``ok_BxN``."""
    stream, ok = qsa_embed(c, z_BxNxY, members_BxNxK)
    dtype = c.params.w_o.dtype
    out, _ = _run(c.params, jnp.asarray(stream, dtype))
    return np.asarray(out, np.float64)[..., -c.dim :], ok


def qsa_worst_error(c: QSAConstruction, members_BxK: np.ndarray | None = None) -> dict:
    """The supremum of ``max_i ||f(X)_i - qSA(X)_i||`` over the WHOLE input space (all subsets).

    The attention row of query ``i`` depends only on ``y_i`` (keys ``u_j`` are fixed per position),
    and ``f(X)_i - qSA(X)_i = sum_j (a_ij - 1{j in y_i}/q) z_j`` is linear in the ``z_j``, so its
    supremum over ``z_j`` in the unit ball is ``sum_j |a_ij - 1{j in y_i}/q|`` (attained by
    ``z_j = sign(.) e_1``). The attention rows are read from the model's own forward pass for every
    q-subset (default: all ``C(N, q)``). Returns ``{"max_error", "subsets", "valid_w"}``.
    """
    n = c.u_ExK.shape[1]
    subsets = tasks_sanford.all_subsets(n, c.q) if members_BxK is None else members_BxK
    pad = (-len(subsets)) % n
    rows = np.concatenate([subsets, np.repeat(subsets[:1], pad, axis=0)]).reshape(-1, n, n)
    z = np.zeros(rows.shape[:2] + (c.dim,))
    stream, ok = qsa_embed(c, z, rows)
    _, attn = _run(c.params, jnp.asarray(stream, c.params.w_o.dtype))
    target = rows / c.q
    err = np.abs(np.asarray(attn, np.float64) - target).sum(-1)
    return {
        "max_error": float(err.max()),
        "subsets": int(len(subsets)),
        "valid_w": bool(ok.all()),
    }


def _layer(dtype, w_v, w_q, w_k, w1, b1, w2) -> LayerParams:
    """One softmax layer of the Match constructions: heads' ``w_v``/``w_q``/``w_k`` (stacked on a
    leading head axis), the MLP ``psi`` (``w1``, ``b1``, ``w2`` of shape ``(D, hidden)``; no output
    bias), in ``dtype``."""

    def arr(a):
        return jnp.asarray(a, dtype)

    return LayerParams(
        attn=AttentionParams(w_v=arr(w_v), w_q=arr(w_q), w_k=arr(w_k)),
        mlp=MLPParams(w1=arr(w1), b1=arr(b1), w2=arr(w2), b2=arr(np.zeros(np.shape(w2)[0]))),
    )


# ---------------------------------------------------------------------------------------------
# Match2


def match2_scale(seq_len: int, modulus: int) -> float:
    """``c = M^2 log(6N)`` (Sanford et al. 2023, proof of Theorem 6)."""
    return modulus**2 * math.log(6 * seq_len)


MANTISSA_BITS = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}


def exact_scale(task: str, seq_len: int, modulus: int, window: int = 1) -> float:
    """The largest number the ``task`` construction must resolve to one part in itself, as
    ``log2`` (a float even where ``M`` is beyond int64): ``c = M^2 log(6N)`` for Match2 and
    Match3Bigram (a score ``c cos(2 pi s / M)`` must tell ``s = 0`` from ``s = 1``, a difference of
    ``2 pi^2 log(6N)`` against a rounding of ``c`` times the format's unit), and for Match3Local the
    larger of the integer sums ``x_i + x_a + x_b < 3M`` and the positional scale ``c_1``.

    A format with ``t`` mantissa bits (:data:`MANTISSA_BITS`) is within its exact range when this
    is ``<= t``; beyond it the construction is not guaranteed (float32 measured: exact at ``c ~
    5.5e6 < 2^24``, 0.889 at ``c ~ 1e8``, README), so a float64 miss there is a precision limit,
    not a failed construction, and ``transformer-theory sanford`` refuses such sizes. The
    condition is necessary, not sufficient: other roundings can miss inside it (Match3Bigram at
    N = 3, M = 9 in bfloat16, scale 2^7.9 <= 2^8: 0.849 on 500 samples, 2026-11-24).
    """
    if int(seq_len) < 1:
        raise ValueError(f"seq_len: expected N >= 1, got {seq_len}")
    if int(modulus) < 2:
        raise ValueError(f"modulus: expected M >= 2, got {modulus}")
    if task in ("match2", "match3bigram"):
        return 2 * math.log2(int(modulus)) + math.log2(math.log(6 * seq_len))
    if task in ("match3local", "match3local1"):
        total = seq_len + 2 * int(window)
        # 1 - cos(x) written as 2 sin^2(x / 2): the same number, without the cancellation that
        # makes it exactly 0.0 (a ZeroDivisionError) once the window is ~1e8 or more.
        c1 = (math.log(100 * total * 3) + math.log(int(modulus))) / (
            2 * math.sin(math.pi / (2 * total)) ** 2
        )
        return max(math.log2(3) + math.log2(int(modulus)), math.log2(c1))
    raise ValueError(f"task: expected match2, match3bigram or match3local, got {task!r}")


def match2_construction(seq_len: int, modulus: int, dtype=jnp.float64) -> ModelParams:
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

    layer = _layer(dtype, w_v[None], w_q[None], w_k[None], w1, [-1.0, -2.0], w2)
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
    out, _ = _run(params, stream)
    return np.asarray(out[:, :-1, 5], np.float64) > 0.5


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


def match3bigram_construction(seq_len: int, modulus: int, dtype=jnp.float64) -> ModelParams:
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

    layer1 = _layer(dtype, w_v1[None], w_q1[None], w_k1[None], w1, -knots, w2)
    layer2 = _layer(dtype, w_v2[None], w_q2[None], w_k2[None], w1b, b1b, w2b)
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
    out, _ = _run(params, jnp.asarray(match3bigram_embed(x, modulus), params.w_o.dtype))
    return np.asarray(out[:, :-1, _ANS], np.float64) > 0.5


# ---------------------------------------------------------------------------------------------
# Match3Local, depth 1


def match3local_construction(
    seq_len: int, modulus: int, window: int, dtype=jnp.float64
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
    if int(window) < 0:
        raise ValueError(f"window: expected K >= 0, got {window}")
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

    layer = _layer(dtype, w_v, w_q, w_k, np.stack(rows), bias, w2)
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
    out, _ = _run(params, jnp.asarray(stream, params.w_o.dtype))
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
    seq_len: int, modulus: int, window: int, dtype=jnp.float64
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

    layer = _layer(dtype, w_v, w_q, w_k, np.stack(rows), bias, w2)
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
    out, _ = _run(params, jnp.asarray(stream, params.w_o.dtype))
    return np.asarray(out[:, k : k + n, lay["ans"]], np.float64) > 0.5
