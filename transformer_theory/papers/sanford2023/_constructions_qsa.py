"""The q-sparse averaging unit of Sanford, Hsu & Telgarsky 2023 (Theorem 2, proof outline with a
restricted-isometry matrix) in the library's ONE parameter format.

Sanford et al. write a unit as ``psi(softmax(phi(X) Q K^T phi(X)^T) phi(X) V)`` with an input map
``phi``, query/key/value matrices and an output MLP ``psi``. Here ``phi`` is the row ``(z_i; alpha
w~_{y_i}; u_i; 0)`` built by :func:`qsa_embed`, ``Q, K`` are the factored ``w_q, w_k`` with
``qk_dim = m`` (the paper's embedding dimension), ``V`` is ``w_v`` writing into a zero block of the
residual stream. The per-position outputs are read from the last residual stream; nothing in
:class:`~transformer_theory.params.ModelParams` had to be extended. The vectors ``w_y`` are
computed (:func:`subset_weights`) for the drawn ``U`` (:mod:`.rip`). :func:`reduction_unit` is the
unit at ``N = 2q + 1``, ``eps = 1/(2q)`` that the qSA lower bound's reduction from set
disjointness runs (:mod:`._theory_disjointness`).

Shape letters: :mod:`transformer_theory.glossary` (``E`` = the query/key width ``m``, ``K`` key
positions, ``Z`` the width ``d'`` of the averaged vectors).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterable

import jax.numpy as jnp
import numpy as np
import scipy.optimize
from jax.typing import DTypeLike

from transformer_theory import _validate
from transformer_theory.papers.sanford2023 import _tasks as tasks_sanford
from transformer_theory.papers.sanford2023._constructions import run_streams
from transformer_theory.params import AttentionParams, LayerParams, ModelConfig, ModelParams

__all__ = [
    "QSAConstruction",
    "QSASearch",
    "UNIT_ROWS",
    "alpha_scale",
    "bits_needed",
    "qsa_apply",
    "qsa_construction",
    "qsa_embed",
    "qsa_queries",
    "qsa_sampled_error",
    "qsa_smallest",
    "qsa_worst_error",
    "rademacher",
    "reduction_unit",
    "reduction_unit_of",
    "round_bits",
    "subset_weights",
]


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


def rademacher(seed: int, rows: int, seq_len: int) -> np.ndarray:
    """``U_ExK``: ``m x N`` independent signs scaled by ``1/sqrt(m)`` (columns of norm 1), the
    keys of the unit (re-exported by :mod:`._theory_rip`, which measures its constants)."""
    rows = _validate.check_int_arg("rows", rows, 1)
    seq_len = _validate.check_int_arg("seq_len", seq_len, 1)
    rng = np.random.default_rng(_validate.check_seed("seed", seed))
    return rng.choice([-1.0, 1.0], size=(rows, seq_len)) / math.sqrt(rows)


def alpha_scale(seq_len: int, epsilon: float) -> int:
    """``alpha = ceil(2 log(4 N / eps))``: an off-``y`` score ``<= alpha/2`` below the on-``y``
    ones gets softmax weight ``<= e^{-alpha/2} <= eps / (4N)``."""
    seq_len = _validate.check_int_arg("seq_len", seq_len, 1)
    if not 0 < epsilon < 1:
        raise ValueError(f"epsilon: expected 0 < eps < 1, got {epsilon}")
    return math.ceil(2 * math.log(4 * seq_len / epsilon))


def bits_needed(rows: int, alpha: int, epsilon: float) -> int:
    """Fraction bits ``p`` with ``||w~ - w||_2 <= sqrt(m) 2^{-p-1} <= eps / (4 alpha)`` when every
    coordinate of ``w`` is rounded to the nearest multiple of ``2^-p``."""
    rows = _validate.check_int_arg("rows", rows, 1)
    _validate.check_positive("alpha", alpha)
    _validate.check_positive("epsilon", epsilon)
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
    dtype: DTypeLike = jnp.float64,
) -> QSAConstruction:
    """Build the unit with ``m = rows`` Rademacher rows drawn from ``seed``.

    ``bits=None`` keeps ``w`` unrounded; an integer rounds ``alpha w`` 's ``w`` to that many
    fraction bits (:func:`bits_needed` gives the proof's choice).
    """
    alpha = alpha_scale(seq_len, epsilon)  # checks seq_len (before q is read against it), eps
    u = rademacher(seed, rows, seq_len)  # checks rows and seed
    seq_len, rows = int(seq_len), int(rows)
    dim = _validate.check_int_arg("dim", dim, 1)
    if not 1 <= int(q) <= int(seq_len):
        raise ValueError(f"q: expected 1 <= q <= N = {seq_len}, got {q}")
    if int(dim) < 1:
        raise ValueError(f"dim: expected d' >= 1, got {dim}")
    if bits is not None and int(bits) < 0:
        raise ValueError(f"bits: expected >= 0, got {bits}")
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
    c: QSAConstruction, z_BxNxZ: np.ndarray, members_BxNxK: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The input map ``phi(x_i) = (z_i; alpha w~_{y_i}; u_i; 0)``. Returns ``(stream_BxNxD,
    ok_BxN)`` where ``ok`` says a valid ``w_{y_i}`` was found."""
    z = np.asarray(z_BxNxZ, np.float64)
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


def qsa_queries(c: QSAConstruction, stream_BxNxD: np.ndarray, position: int) -> np.ndarray:
    """The unit's query ``Q(x_position)`` of each embedded input: its ``w_q`` applied to row
    ``position`` of :func:`qsa_embed`'s stream, ``(B, m)`` float64."""
    w_q = np.asarray(c.params.layers[0].attn.w_q[0], np.float64)
    return np.asarray(stream_BxNxD)[:, position] @ w_q.T


def qsa_apply(
    c: QSAConstruction, z_BxNxZ: np.ndarray, members_BxNxK: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Run the model: ``f(X)_BxNxZ`` (the output block of the last stream) and ``ok_BxN``."""
    stream, ok = qsa_embed(c, z_BxNxZ, members_BxNxK)
    dtype = c.params.w_o.dtype
    out, _ = run_streams(c.params, jnp.asarray(stream, dtype))
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
    _, attn = run_streams(c.params, jnp.asarray(stream, c.params.w_o.dtype))
    target = rows / c.q
    err = np.abs(np.asarray(attn, np.float64) - target).sum(-1)
    return {
        "max_error": float(err.max()),
        "subsets": int(len(subsets)),
        "valid_w": bool(ok.all()),
    }


@dataclasses.dataclass(frozen=True)
class QSASearch:
    """What :func:`qsa_smallest` found: ``alpha`` (:func:`alpha_scale`) and, when some ``m`` is
    within ``eps`` (else ``construction`` and the rest are ``None``), the unrounded unit of the
    smallest ``m``, its worst-case error over the subsets searched and their count, the fewest
    fraction bits of ``w`` that keep it within ``eps`` (``bits_min``), the proof's
    (``bits_proof``, :func:`bits_needed`) and the largest ``||w_y||``."""

    alpha: int
    construction: QSAConstruction | None = None
    max_error: float | None = None
    subsets: int | None = None
    bits_min: int | None = None
    bits_proof: int | None = None
    w_norm_max: float | None = None


def qsa_smallest(
    seq_len: int,
    q: int,
    dim: int,
    epsilon: float,
    subsets: np.ndarray,
    *,
    seed: int = 0,
    max_rows: int = 4096,
) -> QSASearch:
    """Search the smallest ``m`` (steps of ``x 1.25`` from ``max(1, q)``) whose drawn unit has
    worst-case error ``<= eps`` over every subset of ``subsets`` (:func:`qsa_worst_error`), then
    the fewest fraction bits of ``w`` that keep it and ``w``'s largest norm (see
    :class:`QSASearch`; no ``m <= max_rows`` works: ``construction`` is ``None``)."""
    alpha = alpha_scale(seq_len, epsilon)
    rows = max(1, q)
    while rows <= max_rows:
        c = qsa_construction(seq_len, q, dim, epsilon, rows, seed=seed)
        worst = qsa_worst_error(c, subsets)
        if worst["valid_w"] and worst["max_error"] <= epsilon:
            break
        rows = max(rows + 1, math.ceil(rows * 1.25))
    else:
        return QSASearch(alpha)
    proof_bits = bits_needed(c.rows, c.alpha, epsilon)
    bits = next(
        p
        for p in range(proof_bits + 1)
        if qsa_worst_error(
            qsa_construction(seq_len, q, dim, epsilon, c.rows, seed=seed, bits=p), subsets
        )["max_error"]
        <= epsilon
    )
    w, _ = subset_weights(c.u_ExK, subsets)
    return QSASearch(
        alpha,
        c,
        worst["max_error"],
        worst["subsets"],
        bits,
        proof_bits,
        float(np.linalg.norm(w, axis=-1).max()),
    )


def qsa_sampled_error(
    c: QSAConstruction, chunks: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]
) -> float:
    """The largest ``||f(X)_i - qSA(X)_i||`` of the unit run (:func:`qsa_apply`) on the drawn
    inputs, chunk by chunk: ``chunks`` yields ``(z_BxNxZ, members_BxNxK, target_BxNxZ)``
    (:func:`._tasks.qsa_sample_chunks`)."""
    sampled = 0.0
    for z, members, target in chunks:
        out, _ = qsa_apply(c, z, members)
        sampled = max(sampled, float(np.linalg.norm(out - target, axis=-1).max()))
    return sampled


# ---------------------------------------------------------------------------------------------
# the unit of the reduction from set disjointness (:mod:`._theory_disjointness`)


#: The fewest rows ``m`` (seed 0) at which :func:`reduction_unit`'s search reaches ``1/(2q)`` on
#: every input, found by ``reduction_unit(q)`` (2026-11-25): ``q -> m``.
UNIT_ROWS = {1: 9, 2: 6, 3: 7, 4: 11}


def reduction_unit_of(
    q: int, rows: int | None, subsets: np.ndarray, *, seed: int = 0, max_rows: int = 64
) -> tuple[QSAConstruction, dict]:
    """The qSA unit of :func:`qsa_construction` at ``N = 2q + 1``, ``d' = 1``, ``eps = 1/(2q)``
    with ``m = rows`` query/key rows, or (``rows=None``) the fewest ``m <= max_rows`` whose error
    over every subset of ``subsets`` (all ``C(N, q)`` of them: every input,
    :func:`.._tasks.all_subsets`) is ``<= 1/(2q)`` (:func:`qsa_worst_error`). Returns
    ``(construction, worst_error)``."""
    q = _validate.check_int_arg("q", q, 1)  # an int: 2.5 was read as 2
    n, eps = 2 * q + 1, 1.0 / (2 * q)
    candidates = range(1, max_rows + 1) if rows is None else [int(rows)]
    if rows is not None and int(rows) < 1:
        raise ValueError(f"rows: expected m >= 1, got {rows}")
    for m in candidates:
        c = qsa_construction(n, q, 1, eps, m, seed=seed)
        worst = qsa_worst_error(c, subsets)
        if rows is not None or (worst["valid_w"] and worst["max_error"] <= eps):
            return c, worst
    raise ValueError(f"max_rows: no m <= {max_rows} reaches eps = 1/(2q) at q = {q}")


@functools.lru_cache(maxsize=32)
def reduction_unit(
    q: int, rows: int | None = None, *, seed: int = 0, max_rows: int = 64
) -> tuple[QSAConstruction, dict]:
    """:func:`reduction_unit_of` over every input (all ``C(2q + 1, q)`` subsets). Cached: the
    construction is frozen; do not modify the returned record."""
    q = _validate.check_int_arg("q", q, 1)
    subsets = tasks_sanford.all_subsets(2 * q + 1, q)
    return reduction_unit_of(q, rows, subsets, seed=seed, max_rows=max_rows)
