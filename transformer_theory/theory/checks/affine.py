"""The affine form over a whole dataset: the exact pivot columns of ``[1, C]`` and a streamed per-
model TSQR least-squares fit whose residual tests every dependence at once.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh

from transformer_theory import _validate, parallel
from transformer_theory.params import ModelParams
from transformer_theory.theory import dependence as dep
from transformer_theory.theory.checks.outputs import (
    _check_params,
    _chunk_width,
    _pad_rows,
    _put_tokens,
    _weights,
    target_evaluator,
)

if TYPE_CHECKING:
    from transformer_theory.tasks import Task


# --------------------------------------------------------------------------------------------
# The affine form over a whole dataset (streamed)
# --------------------------------------------------------------------------------------------
def _iter_token_chunks(data, chunk_size: int) -> Iterable[np.ndarray]:
    if hasattr(data, "chunks"):
        # one chunk ahead: the next chunk's (device) generation is dispatched before the current
        # one is handed on, so it overlaps the caller's model evaluation
        prev = None
        for item in data.chunks(chunk_size):
            item = item[0] if isinstance(item, tuple) else item
            if prev is not None:
                yield np.asarray(prev)
            prev = item
        if prev is not None:
            yield np.asarray(prev)
    else:
        arr = np.asarray(data)
        for lo in range(0, len(arr), chunk_size):
            yield arr[lo : lo + chunk_size]


def _design(tokens_BxN: np.ndarray, vocab_size: int, cols: np.ndarray) -> np.ndarray:
    """``[1, C]`` restricted to ``cols`` (column 0 is the intercept)."""
    C = dep.position_counts(tokens_BxN, vocab_size)
    X = np.concatenate([np.ones((len(C), 1), np.int64), C], axis=1)
    return X[:, cols]


def independent_columns(
    data: np.ndarray | jax.Array | Task,
    vocab_size: int,
    *,
    chunk_size: int = 4096,
    progress: bool = False,
) -> tuple[np.ndarray, int]:
    """Pass 1, exact: the pivot columns of ``X = [1, C]`` over the whole dataset.

    Accumulates the integer Gram matrix ``G = X^T X`` chunk by chunk as co-occurrence counts of
    the one-hot columns (``np.bincount`` of column pairs: exact int64, ``O(B N^2)``, memory
    ``(P+1)^2``), then finds its pivot columns with an exact rational row reduction (python-flint).
    ``G`` and ``X`` have the same null space, hence the same pivot columns; keeping only those makes
    the least-squares problem of pass 2 full rank, so the QR residual is exactly the distance to
    the affine span.

    Returns:
      ``(cols, B)``: int array of column indices into ``[1, C]`` (0 = intercept) and the dataset
      size.
    """
    G = None
    total = 0
    chunks = _iter_token_chunks(data, chunk_size)
    if progress:
        from transformer_theory.progress import tqdm

        chunks = tqdm(chunks, desc="pass 1 (exact counts)", unit="chunk", leave=False, disable=None)
    for tok in chunks:
        tok = np.asarray(tok)
        _validate.check_token_ids("data", tok, vocab_size)
        g = _gram_counts(tok, vocab_size)
        G = g if G is None else G + g
        total += len(tok)
    if G is None:
        raise ValueError("data: the dataset is empty")
    return _pivots(G), total


def _pivots(G: np.ndarray) -> np.ndarray:
    """The pivot columns of the exact integer Gram matrix ``G`` (python-flint rational rref)."""
    import flint

    keep = np.flatnonzero(np.diag(G) > 0)  # never-seen one-hot columns are zero columns of X
    Gk = G[np.ix_(keep, keep)]
    rref, rank = flint.fmpq_mat(Gk.tolist()).rref()
    pivots = []
    row = 0
    for c in range(Gk.shape[1]):
        if row < rank and rref[row, c] != 0:
            pivots.append(c)
            row += 1
    return keep[np.asarray(pivots, np.int64)]


def _columns(tokens_BxN: np.ndarray, vocab_size: int) -> np.ndarray:
    """The active one-hot columns of every row of ``[1, C]`` (``1 + j V + v``; 0 = intercept)."""
    return 1 + np.arange(tokens_BxN.shape[1])[None, :] * vocab_size + tokens_BxN


def _gram_counts(tokens_BxN: np.ndarray, vocab_size: int) -> np.ndarray:
    """``X^T X`` of ``X = [1, C]`` as exact int64 co-occurrence counts of the active columns
    (``np.bincount`` of the column pairs ``j < k``, mirrored; the diagonal and the intercept's row
    are the single-column counts)."""
    cols_BxN = _columns(tokens_BxN, vocab_size)
    N = tokens_BxN.shape[1]
    P1 = N * vocab_size + 1
    j, k = np.triu_indices(N, 1)
    # Position-major and int32 where the pair ids fit: gathering whole rows of a contiguous
    # (N, B) array is ~3x faster than gathering columns of (B, N) (the gather, not the bincount,
    # was most of this function's time).
    idx = np.int32 if P1 * P1 < 2**31 else np.int64
    cols_NxB = np.ascontiguousarray(cols_BxN.T, dtype=idx)
    pairs = (cols_NxB[j] * idx(P1) + cols_NxB[k]).ravel()
    g = np.bincount(pairs, minlength=P1 * P1).reshape(P1, P1).astype(np.int64)
    g = g + g.T  # columns of different positions never coincide: no double-counted diagonal
    first = np.bincount(cols_BxN.ravel(), minlength=P1)
    g[np.arange(1, P1), np.arange(1, P1)] = first[1:]
    g[0, 1:] = first[1:]
    g[1:, 0] = first[1:]
    g[0, 0] = len(tokens_BxN)
    return g


@jax.jit
def _qr_update(R_MxRxR, X_Wxp, T_MxWxY, w_MxW, valid_W):
    """One TSQR step per model: ``R <- R-factor of [R; [X | w T]]`` (Householder, stable)."""

    def one(R, T, w):
        A_ = jnp.concatenate([X_Wxp, w[:, None] * T], axis=1) * valid_W[:, None]
        stacked = jnp.concatenate([R, A_], axis=0)
        Rn = jnp.linalg.qr(stacked, mode="r")
        return Rn[: R.shape[0]]

    return jax.vmap(one)(R_MxRxR, T_MxWxY, w_MxW)


@jax.jit
def _sumsq(T_MxWxY, w_MxW, valid_W):
    wt = w_MxW[..., None] * T_MxWxY * valid_W[None, :, None]
    return jnp.sum(wt * wt, axis=(1, 2))


@dataclasses.dataclass(frozen=True)
class AffineResult:
    """Result of :func:`affine_residuals`.

    Attributes:
      residual_M: ``||W T - X beta||_F / ||W T||_F`` per model.
      rank: ``p``, independent columns of ``[1, C]``.
      num_sequences: ``B``.
      relations: ``B - p``, the dimension of the dependence lattice tested at once.
    """

    residual_M: np.ndarray
    rank: int
    num_sequences: int
    num_chunks: int = 1

    @property
    def relations(self) -> int:
        return self.num_sequences - self.rank


def affine_residuals(
    params_M: ModelParams,
    data: np.ndarray | jax.Array | Task,
    *,
    target: str = "logits",
    weighted: bool = False,
    chunk_size: int = 4096,
    width: int | None = None,
    columns: tuple[np.ndarray, int] | None = None,
    mesh: Mesh | None = None,
    progress: bool = False,
    path: str = "auto",
    method: str = "normal",
) -> AffineResult:
    """The stronger form: fit every model's ``w_i t_i`` on ``[1, c_i]`` over a whole dataset.

    ``method="normal"`` (default): :func:`independent_columns` (exact, tokens only), then one
    streamed pass of model outputs accumulating ``F = X^T (w T)`` (a scatter-add: ``X`` is 0/1)
    beside the EXACT integer Gram counts ``G = X^T X``, the pivot block solved exactly
    (``beta = G_pp^{-1} F_p`` in rationals, python-flint), and a second streamed pass summing the
    residual ``||w T - X beta||^2`` itself (so no ``||w T||^2 - ||X beta||^2`` cancellation). The
    only roundings are the model outputs, the float64 sums of ``F`` and of the residual, and
    ``beta``'s conversion to float64: the residual stays at rounding level for in-scope models
    (measured 1e-16 .. 1e-13, below :func:`affine_tolerance`). Cost per sequence: ``O(N Y)``
    twice, against ``O((p + Y)^2)`` for the QR.
    ``method="qr"``: the models' outputs chunk by chunk into a per-model TSQR of
    ``[X_sub | W T]``; the trailing ``Y x Y`` block of the final R factor holds the least-squares
    residual (its Frobenius norm), with no cancellation.
    Requires all sequences to share their last token (Definition 3's setting).

    Args:
      params_M: ``M`` models.
      data: token ids ``(B, N)`` or a task with ``.chunks(chunk_size)`` (e.g.
        ``tasks.InContextQA``).
      target, weighted: as in :func:`set_residuals`.
      chunk_size: sequences per device call; memory is independent of the dataset size.
      width: padded rows per device call (default ``min(chunk_size, B)``), see
        :func:`set_residuals_multi`.
      columns: a precomputed :func:`independent_columns` result for ``data`` (saves pass 1).
      mesh: optional mesh; models are sharded over ``"models"``, chunks over ``"data"``.
      progress: show a tqdm bar over chunks.
      path: as in :func:`~transformer_theory.theory.checks.outputs.target_evaluator`.
      method: ``"normal"`` (exact Gram counts, exact solve, residual pass) or ``"qr"`` (TSQR).
    """
    cfg = _check_params(params_M)
    _validate.check_choice("target", target, ("stream1", "logits"))
    _validate.check_positive("chunk_size", chunk_size)
    _validate.check_choice("method", method, ("normal", "qr"))
    if columns is None and method == "qr":
        columns = independent_columns(
            data, cfg.vocab_size, chunk_size=chunk_size, progress=progress
        )
    if columns is None:  # the normal equations count G in their own pass: pivots come after it
        cols, total = None, (getattr(data, "size", None) if hasattr(data, "chunks") else len(data))
    else:
        cols, total = columns
    W = _chunk_width(total or chunk_size, chunk_size, mesh) if width is None else int(width)
    dtype = params_M.w_o.dtype
    M = params_M.batch_shape[0]
    Y = cfg.width if target == "stream1" else cfg.num_classes
    if mesh is not None:
        params_M = parallel.shard_models(params_M, mesh)
    step = min(W, chunk_size)

    def padded_chunks(desc):
        """``(tokens_WxN, valid_W)`` per chunk: one compiled shape, padded rows masked out."""
        chunks = _iter_token_chunks(data, step)
        if progress:
            from transformer_theory.progress import tqdm

            chunks = tqdm(
                chunks,
                total=total and -(-total // step),
                desc=desc,
                unit="chunk",
                leave=False,
                disable=None,
            )
        for tok in chunks:
            tok = np.asarray(tok)
            if np.any(tok[:, -1] != tok[0, -1]) or (tok[0, -1] != first_last):
                raise ValueError(
                    "data: the affine form relates sequences sharing their last token "
                    "(Definition 3)"
                )
            valid = np.zeros(W, bool)
            valid[: len(tok)] = True
            tok = _pad_rows(tok, W)
            _validate.check_token_ids("data", tok, cfg.vocab_size)
            yield tok, jnp.asarray(valid, dtype)

    first_last = np.asarray(next(iter(_iter_token_chunks(data, 1))))[0, -1]
    evaluate = target_evaluator(params_M, target, [first_last], need_z=weighted, path=path)

    def weighted_targets(tok):
        t, z = evaluate(_put_tokens(tok, mesh))
        return t, _weights(t, z, weighted)

    if method == "qr":
        p = len(cols)
        R = jnp.zeros((M, p + Y, p + Y), dtype)
        ss = jnp.zeros((M,), dtype)
        steps = 0
        for tok, valid in padded_chunks("affine (TSQR)"):
            steps += 1
            t, w = weighted_targets(tok)
            R = _qr_update(R, jnp.asarray(_design(tok, cfg.vocab_size, cols), dtype), t, w, valid)
            ss = ss + _sumsq(t, w, valid)
        resid = jnp.linalg.norm(R[:, p:, p:], axis=(1, 2)) / jnp.sqrt(ss)
        return AffineResult(parallel.to_host(resid), p, total, steps)

    # normal equations with EXACT integer Gram counts, solved exactly, then a residual pass
    P1 = cfg.seq_len * cfg.vocab_size + 1
    G = np.zeros((P1, P1), np.int64)
    F = jnp.zeros((M, P1, Y), dtype)
    ss = jnp.zeros((M,), dtype)
    steps = 0

    def count(tok_BxN):  # in ONE worker thread, so the chunks' counts are added one at a time
        np.add(G, _gram_counts(tok_BxN, cfg.vocab_size), out=G)

    # The exact pair counts (host NumPy, which releases the GIL in bincount) run in a worker
    # thread beside the models' device calls; at most 2 chunks wait, so memory stays bounded.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending: collections.deque = collections.deque()
        for tok, valid in padded_chunks("affine (X^T W T)"):
            steps += 1
            t, w = weighted_targets(tok)
            F, ss = _moments(F, ss, jnp.asarray(_columns(tok, cfg.vocab_size)), t, w, valid)
            pending.append(pool.submit(count, tok[: int(valid.sum())]))
            if len(pending) > 2:
                pending.popleft().result()
        for job in pending:
            job.result()
    if cols is None:
        cols = _pivots(G)
    total = int(G[0, 0])
    p = len(cols)
    beta = np.zeros((M, P1, Y))
    beta[:, cols] = _exact_solve(G[np.ix_(cols, cols)], parallel.to_host(F)[:, cols])
    beta = jnp.asarray(beta, dtype)
    rr = jnp.zeros((M,), dtype)
    for tok, valid in padded_chunks("affine (residual)"):
        t, w = weighted_targets(tok)
        rr = _residual_sumsq(rr, beta, jnp.asarray(_columns(tok, cfg.vocab_size)), t, w, valid)
    resid = jnp.sqrt(rr / ss)
    return AffineResult(parallel.to_host(resid), p, total, steps)


@jax.jit
def _moments(F_MxPxY, ss_M, cols_WxN, t_MxWxY, w_MxW, valid_W):
    """``F += X^T (w T)`` (a scatter-add of each row into its ``N`` one-hot columns and the
    intercept) and ``ss += ||w T||^2``, padded rows masked."""
    a = (w_MxW * valid_W[None, :])[..., None] * t_MxWxY
    P1 = F_MxPxY.shape[1]

    def one(f_PxY, a_WxY):  # one segment sum per position (10x faster than one flat scatter)
        f_PxY = f_PxY.at[0].add(jnp.sum(a_WxY, axis=0))
        for j in range(cols_WxN.shape[1]):
            f_PxY = f_PxY + jax.ops.segment_sum(a_WxY, cols_WxN[:, j], P1)
        return f_PxY

    return jax.vmap(one)(F_MxPxY, a), ss_M + jnp.sum(a * a, axis=(1, 2))


@jax.jit
def _residual_sumsq(rr_M, beta_MxPxY, cols_WxN, t_MxWxY, w_MxW, valid_W):
    """``rr += ||w T - X beta||^2``: the fit of each row is its intercept plus ``N`` gathered
    rows of ``beta``; no cancellation (the residual itself is summed)."""
    fit = beta_MxPxY[:, :1] + jnp.sum(beta_MxPxY[:, cols_WxN], axis=2)
    r = (w_MxW * valid_W[None, :])[..., None] * t_MxWxY - fit * valid_W[None, :, None]
    return rr_M + jnp.sum(r * r, axis=(1, 2))


def _exact_solve(G_pxp: np.ndarray, F_Mxpxy: np.ndarray) -> np.ndarray:
    """``G^{-1} F`` per model in exact rational arithmetic (python-flint): ``G`` holds integer
    counts and every float of ``F`` is a dyadic rational, so the only rounding is the final
    conversion of ``beta`` to float64."""
    import flint

    Gq = flint.fmpq_mat(G_pxp.tolist())
    out = np.empty(F_Mxpxy.shape)
    for m, F in enumerate(F_Mxpxy):
        Fq = flint.fmpq_mat([[flint.fmpq(*float(x).as_integer_ratio()) for x in row] for row in F])
        sol = Gq.solve(Fq)
        out[m] = np.asarray(
            [[float(sol[i, j]) for j in range(F.shape[1])] for i in range(F.shape[0])]
        )
    return out
