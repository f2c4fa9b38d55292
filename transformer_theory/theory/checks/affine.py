"""The affine form over a whole dataset: the exact pivot columns of ``[1, C]`` and a streamed per-
model TSQR least-squares fit whose residual tests every dependence at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import jax
import jax.numpy as jnp
import numpy as np

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


# --------------------------------------------------------------------------------------------
# The affine form over a whole dataset (streamed)
# --------------------------------------------------------------------------------------------
def _iter_token_chunks(data, chunk_size: int) -> Iterable[np.ndarray]:
    if hasattr(data, "chunks"):
        for item in data.chunks(chunk_size):
            yield np.asarray(item[0] if isinstance(item, tuple) else item)
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
    data, vocab_size: int, *, chunk_size: int = 4096, progress: bool = False
) -> tuple[np.ndarray, int]:
    """Pass 1, exact: the pivot columns of ``X = [1, C]`` over the whole dataset.

    Accumulates the integer Gram matrix ``G = X^T X`` chunk by chunk (exact: integer counts below
    2^53 in float64 BLAS; memory
    ``(P+1)^2``), then finds its pivot columns with an exact rational row reduction (python-flint).
    ``G`` and ``X`` have the same null space, hence the same pivot columns; keeping only those makes
    the least-squares problem of pass 2 full rank, so the QR residual is exactly the distance to
    the affine span.

    Returns:
      ``(cols, B)``: int array of column indices into ``[1, C]`` (0 = intercept) and the dataset
      size.
    """
    import flint

    G = None
    total = 0
    chunks = _iter_token_chunks(data, chunk_size)
    if progress:
        from tqdm.auto import tqdm

        chunks = tqdm(chunks, desc="pass 1 (exact counts)", unit="chunk", leave=False)
    for tok in chunks:
        # float64 BLAS on 0/1 entries: every partial sum is an integer < 2^53, hence exact.
        X = _design(np.asarray(tok), vocab_size, slice(None)).astype(np.float64)
        g = X.T @ X
        G = g if G is None else G + g
        total += len(tok)
    if G is None:
        raise ValueError("data: the dataset is empty")
    if total >= 2**53:
        raise ValueError(f"data: {total} sequences exceed the exact float64 count range 2^53")
    G = G.astype(np.int64)
    keep = np.flatnonzero(np.diag(G) > 0)  # never-seen one-hot columns are zero columns of X
    Gk = G[np.ix_(keep, keep)]
    rref, rank = flint.fmpq_mat(Gk.tolist()).rref()
    pivots = []
    row = 0
    for c in range(Gk.shape[1]):
        if row < rank and rref[row, c] != 0:
            pivots.append(c)
            row += 1
    return keep[np.asarray(pivots, np.int64)], total


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
    data,
    *,
    target: str = "logits",
    weighted: bool = False,
    chunk_size: int = 4096,
    width: int | None = None,
    columns: tuple[np.ndarray, int] | None = None,
    mesh=None,
    progress: bool = False,
    path: str = "auto",
) -> AffineResult:
    """The stronger form: fit every model's ``w_i t_i`` on ``[1, c_i]`` over a whole dataset.

    Two streamed passes: :func:`independent_columns` (exact, tokens only), then the models'
    outputs chunk by chunk into a per-model TSQR of ``[X_sub | W T]``; the trailing ``Y x Y`` block
    of the final R factor holds the least-squares residual (its Frobenius norm), with no
    cancellation.
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
    """
    cfg = _check_params(params_M)
    _validate.check_choice("target", target, ("stream1", "logits"))
    _validate.check_positive("chunk_size", chunk_size)
    if columns is None:
        columns = independent_columns(
            data, cfg.vocab_size, chunk_size=chunk_size, progress=progress
        )
    cols, total = columns
    W = _chunk_width(total, chunk_size, mesh) if width is None else int(width)
    dtype = params_M.w_o.dtype
    M = params_M.batch_shape[0]
    Y = cfg.width if target == "stream1" else cfg.num_classes
    p = len(cols)
    if mesh is not None:
        params_M = parallel.shard_models(params_M, mesh)
    R = jnp.zeros((M, p + Y, p + Y), dtype)
    ss = jnp.zeros((M,), dtype)
    step = min(W, chunk_size)
    chunks = _iter_token_chunks(data, step)
    if progress:
        from tqdm.auto import tqdm

        chunks = tqdm(chunks, total=-(-total // step), desc="affine", unit="chunk", leave=False)
    last = None
    steps = 0
    for tok in chunks:
        steps += 1
        tok = np.asarray(tok)
        if last is None:
            last = tok[0, -1]
            evaluate = target_evaluator(params_M, target, [last], need_z=weighted, path=path)
        if np.any(tok[:, -1] != last):
            raise ValueError(
                "data: the affine form relates sequences sharing their last token (Definition 3)"
            )
        b = len(tok)
        valid = np.zeros(W, bool)
        valid[:b] = True
        tok = _pad_rows(tok, W)  # one compiled shape: padded rows are masked out by `valid`
        _validate.check_token_ids("data", tok, cfg.vocab_size)
        X = jnp.asarray(_design(tok, cfg.vocab_size, cols), dtype)
        t, z = evaluate(_put_tokens(tok, mesh))
        w = _weights(t, z, weighted)
        vj = jnp.asarray(valid, dtype)
        R = _qr_update(R, X, t, w, vj)
        ss = ss + _sumsq(t, w, vj)
    resid = jnp.linalg.norm(R[:, p:, p:], axis=(1, 2)) / jnp.sqrt(ss)
    return AffineResult(parallel.to_host(resid), p, total, steps)
