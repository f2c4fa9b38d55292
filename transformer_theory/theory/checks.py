"""Batched float64 checks of Chen & Zou's Propositions 7-10, their stronger affine form, and
controls.

For a batch of ``M`` models (one :class:`~transformer_theory.params.ModelParams` with a leading
model axis: random, constructed or trained) and dependent sets or a whole dataset:

- **Props. 7 / 8** (§11): ``sum_i lambda_i t_i = 0`` where ``t_i`` is the last-position stream after
  the first attention layer (Prop. 7, ``TF_1(X)[n-1]``) or the classifier output ``o_i`` (Prop. 8).
- **Props. 9 / 10** (§16): the same with ``lambda'_i = Z_i lambda_i``, ``Z_i`` the softmax
  denominator of the first layer's (only) head at the last query (eq. 18:
  ``sum_j sigma'(x_j, x_{n-1})``), computed from the model with
  ``core.attention.softmax_normalizer``.
- **Affine form** (the library's strengthening of Prop. 7): in scope, ``w_i t_i = a + M c_i`` with
  ``c_i`` the flattened one-hot
  sequence (``w_i = 1`` for ReLU, ``Z_i`` for one softmax head). One least-squares fit of all
  ``w_i t_i`` on ``[1, c_i]`` over the whole dataset tests every dependence ``lambda`` at once;
  its residual ``||W T - X beta||_F / ||W T||_F`` is ~ machine epsilon exactly when the form holds.

The statistic for a set is the relative residual ``||sum_i w_i t_i|| / sum_i |w_i| ||t_i||``
(scale-free: 0 when the relation holds, O(1) when it fails).

Why the scope is what it is (§11 proof): in ONE attention layer the contribution of key ``j`` to the
last query depends only on ``(token_j, j)`` and the shared last token, provided the last query's
score for key ``j`` depends on ``j`` alone besides the tokens (one-hot, sinusoidal absolute, ALiBi,
RoPE) and any norm before attention is token-wise (Barbero et al.'s ``norm1``). An MLP after
attention, a
final LayerNorm, a second layer or several softmax heads (each with its own ``Z``) break it: these
are the *controls*, reported beside the in-scope families with their residuals.

Tolerances (printed with each verdict), for unit roundoff ``eps`` of the dtype:

- sets: ``tol = 16 * eps * (D + N + C)``. Each ``t_i`` is a sum of ``N`` weighted values, each a
  ``D``-long dot product, then a ``D``-long classifier row: the forward error is at most
  ``~(D + N + D) eps`` times the sum of the absolute terms (Higham's ``gamma_k`` bound), and that
  sum
  is within a small factor of ``||t_i||`` for generic models; 16 is the headroom for that factor.
- affine: ``tol = 16 * eps * (D + N + C + p) * sqrt(s)`` with ``p`` the number of independent
  columns of ``[1, C]`` and ``s`` the number of streamed chunks: the same data error plus
  Householder QR's backward error ``~ p eps`` per TSQR step, accumulating like a random walk
  (measured: 3.8e-14 after 123 chunks of 8192 on 10^6 sequences, tolerance 4.2e-12). Measured
  in-scope
  residuals (float64, random models) are 1e-16 .. 5e-16, ~200x below both; controls sit at 1e-3 ..
  1.

Memory (streamed): the dataset goes through in chunks of ``b`` sequences; one chunk holds, per
model,
the residual streams ``(L+1) b N D``, the attention maps ``b N^2 sum_l H_l`` (twice: scores and
weights) and the QR workspace ``(p + K + b)(p + K)``, all in 8-byte floats, so peak bytes ~
``8 M [b ((L+1) N D + 2 N^2 sum_l H_l) + (p + K + b)(p + K)] + 8 (p+1)^2``, independent of the
dataset size (for ``M = 8, b = 4096, N = 12, D = 24, H = 4, p + K = 140``: ~ 0.2 GB; 10^7
sequences stream through the same buffers). This is an upper bound: one-layer models are evaluated
at the last query only (``b (N D + H N)`` per model). Pass 1 keeps the ``(p+1)^2`` Gram counts and
one
``b x (N V + 1)`` design block. Measured (``experiments/verify_10m.py --limit 1000000``, M = 2,
b = 8192, N = 14, V = 17): peak resident memory 0.52 GB for the whole process, JAX included.

Shape glossary: ``M`` models, ``S`` sets, ``B`` sequences, ``N`` length, ``D`` width ``d'``,
``C`` classes, ``K`` the target's width (``D`` or ``C``), ``P = N V`` one-hot columns, ``p``
independent ones.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate, parallel
from transformer_theory.core import attention, norms
from transformer_theory.core.forward import embed, forward_trace
from transformer_theory.core.layers import attention_scores, mlp
from transformer_theory.params import ModelConfig, ModelParams, embed_dim, init_params_batch
from transformer_theory.theory import dependence as dep

PROPOSITIONS = ("7", "8", "9", "10", "affine")
TOL_SAFETY = 16.0


# --------------------------------------------------------------------------------------------
# Families and scope
# --------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Family:
    """A model family: config overrides on top of a dataset's ``(V, N, C)``.

    Attributes:
      name: short label used in tables and ``--families``.
      attention: ``"relu"`` or ``"softmax"``.
      heads: heads per layer (depth = ``len(heads)``).
      positional, relative, qk_dim, norm1, mlp_hidden, final_norm: as in :class:`ModelConfig`.
    """

    name: str
    attention: str = "relu"
    heads: tuple = (1,)
    positional: str = "onehot"
    relative: str | None = None
    qk_dim: int | None = None
    norm1: str | None = None
    mlp_hidden: int | None = None
    final_norm: str | None = None

    def config(self, vocab_size: int, seq_len: int, num_classes: int) -> ModelConfig:
        """The :class:`ModelConfig` of this family for a dataset (width = embedding + 2 spare
        dims)."""
        return ModelConfig(
            vocab_size=vocab_size,
            seq_len=seq_len,
            width=embed_dim(vocab_size, seq_len, self.positional) + 2,
            num_classes=num_classes,
            heads=tuple(self.heads),
            attention=self.attention,
            positional=self.positional,
            relative=self.relative,
            qk_dim=self.qk_dim,
            norm1=self.norm1,
            mlp_hidden=self.mlp_hidden,
            final_norm=self.final_norm,
        )

    def mismatches(self, config: ModelConfig) -> list[str]:
        """The fields in which ``config`` is not a model of this family (empty if it is one).

        Compared: what decides which propositions are in scope -- the attention kind, the heads per
        layer (hence the depth), the positional code and relative scheme, the factored query/key
        width, ``norm1``, the MLP and the final norm. Width, vocabulary, length and classes are the
        dataset's, not the family's.
        """
        wanted = {
            "attention": self.attention,
            "heads": tuple(self.heads),
            "positional": self.positional,
            "relative": self.relative,
            "qk_dim": self.qk_dim,
            "norm1": self.norm1,
            "mlp_hidden": self.mlp_hidden,
            "final_norm": self.final_norm,
        }
        return [
            f"{field}={getattr(config, field)!r} (family: {value!r})"
            for field, value in wanted.items()
            if getattr(config, field) != value
        ]

    def propositions(self) -> tuple[str, ...]:
        """Which statistics to report: ReLU -> 7, 8, affine; softmax -> 8 (plain lambda, a control),
        9, 10, affine."""
        return ("7", "8", "affine") if self.attention == "relu" else ("8", "9", "10", "affine")

    def in_scope(self, prop: str) -> bool:
        """Whether Chen & Zou 2024 (as corrected in the module docstring) predicts the relation to
        hold."""
        _validate.check_choice("prop", prop, PROPOSITIONS)
        relu, soft = self.attention == "relu", self.attention == "softmax"
        first_attention_only = self.mlp_hidden is None
        one_layer = len(self.heads) == 1 and first_attention_only and self.final_norm is None
        one_head = self.heads[0] == 1
        if prop == "7":  # first layer of ANY attention-only transformer
            return relu and first_attention_only
        if prop == "8":
            return relu and one_layer
        if prop == "9":
            return soft and one_head and first_attention_only
        if prop == "10":
            return soft and one_head and one_layer
        return (relu and one_layer) or (soft and one_head and one_layer)

    def weighted(self, prop: str) -> bool:
        """Props. 9, 10 and the softmax affine form use ``lambda'_i = Z_i lambda_i``."""
        return prop in ("9", "10") or (prop == "affine" and self.attention == "softmax")


def prop_target(prop: str) -> str:
    """``"stream1"`` (first-layer last-position stream) for Props. 7, 9; ``"logits"`` otherwise."""
    return "stream1" if prop in ("7", "9") else "logits"


FAMILIES = {
    f.name: f
    for f in (
        # in scope
        Family("relu-1h"),
        Family("relu-3h", heads=(3,)),
        Family("relu-sinusoidal", heads=(2,), positional="sinusoidal"),
        Family("relu-alibi", heads=(2,), relative="alibi"),
        Family("relu-rope", heads=(2,), positional="none", relative="rope", qk_dim=4),
        Family("relu-norm1", heads=(2,), norm1="layernorm"),
        Family("softmax-1h", attention="softmax"),
        Family(
            "softmax-rope-1h", attention="softmax", positional="none", relative="rope", qk_dim=4
        ),
        Family("softmax-norm1-1h", attention="softmax", norm1="rmsnorm"),
        # controls (partly in scope: Prop. 7 still holds for the first layer of a deep model)
        Family("relu-2layer", heads=(2, 2)),
        Family("relu-mlp", heads=(2,), mlp_hidden=8),
        Family("relu-finalnorm", heads=(2,), final_norm="layernorm"),
        Family("softmax-3h", attention="softmax", heads=(3,)),
    )
}


# --------------------------------------------------------------------------------------------
# Outputs of a batch of models on a batch of sequences
# --------------------------------------------------------------------------------------------
def _last_query_layer(layer, h_NxD: jax.Array, cfg: ModelConfig):
    """One layer at the LAST query only: ``(h'_{n-1} (D,), scores_HxN)``.

    The same mathematics as ``core.layers.attention_layer`` restricted to query ``n-1`` (the only
    one Props. 7-10 and a one-layer classifier read): scores ``x_j^T W_QK x_{n-1}`` or
    ``(W_Q x_{n-1}) . (W_K x_j)`` (RoPE-rotated at positions ``n-1`` and ``j``), ALiBi's
    ``-slope |n-1-j|``, the attention nonlinearity over keys, and ``W_V`` applied once to the
    weighted key sum (``sum_j w_j W_V x_j = W_V sum_j w_j x_j``); the MLP and norms are token-wise.
    Costs ``O(H D^2 + H N D)`` instead of ``O(H N D^2 + H N^2 D)``; a test pins it to
    ``forward_trace``.
    """
    a = layer.attn
    n = h_NxD.shape[0]
    x = h_NxD
    if layer.norm1 is not None:
        x = norms.apply_norm(cfg.norm1, x, layer.norm1.scale, layer.norm1.bias, cfg.norm_eps)
    s = attention_scores(layer, x, cfg, jnp.asarray([n - 1]))[:, 0, :]  # the last query's row
    # The last query attends to every key, also under a causal mask: no mask needed.
    w = jax.vmap(lambda row: attention.attention_weights(row[None, :], cfg.attention)[0])(s)
    heads = jnp.einsum("hed,hd->he", a.w_v, w @ x)  # W_V[h] (sum_j w_hj x_j)
    z = h_NxD[-1] + (jnp.mean(heads, axis=0) if cfg.head_mean else jnp.sum(heads, axis=0))
    if layer.mlp is not None:
        u = z
        if layer.norm2 is not None:
            u = norms.apply_norm(cfg.norm2, u, layer.norm2.scale, layer.norm2.bias, cfg.norm_eps)
        z = z + mlp(layer.mlp, u[None, :], cfg.mlp_activation)[0]
    return z, s


def _outputs_one(params: ModelParams, tokens_N: jax.Array):
    """``(stream1_D, logits_C, z_H)`` for one model and one sequence.

    ``stream1`` is ``TF_1(X)[n-1]`` (after the first layer); ``z_H[h]`` is head ``h``'s softmax
    denominator at the last query of the FIRST layer, ``sum_j exp(s_{n-1, j})`` (Prop. 9's
    ``sum_j sigma'(x_j, x_{n-1})``). One-layer models are evaluated at the last query only;
    deeper ones run ``core.forward`` for the logits.
    """
    cfg = params.config
    h0 = embed(params, tokens_N)
    stream1, scores_HxN = _last_query_layer(params.layers[0], h0, cfg)
    z_H = jax.vmap(lambda row: attention.softmax_normalizer(row[None, :])[0])(scores_HxN)
    if cfg.depth == 1:
        last = stream1
        if params.final_norm is not None:
            last = norms.apply_norm(
                cfg.final_norm, last, params.final_norm.scale, params.final_norm.bias, cfg.norm_eps
            )
        logits = params.w_o @ last
    else:
        logits = forward_trace(params, tokens_N).logits_C
    return stream1, logits, z_H


@jax.jit
def model_outputs(params_M: ModelParams, tokens_BxN: jax.Array):
    """Outputs of ``M`` models on ``B`` sequences, vmapped and jit-compiled.

    Args:
      params_M: a batch of models (leading axis ``M``).
      tokens_BxN: token ids.
    Returns:
      ``(stream1_MxBxD, logits_MxBxC, z_MxBxH)`` (see :func:`_outputs_one`).
    """
    per_model = jax.vmap(_outputs_one, in_axes=(None, 0))
    return jax.vmap(per_model, in_axes=(0, None))(params_M, tokens_BxN)


def _select(outputs, target: str, weighted: bool):
    stream1, logits, z = outputs
    t = stream1 if target == "stream1" else logits
    w = z[..., 0] if weighted else jnp.ones(t.shape[:-1], t.dtype)
    return t, w


@functools.partial(jax.jit, static_argnames=("num_sets", "num_seqs"))
def _set_residual_kernel(t_MxWxK, w_MxW, lam_SxB, num_sets: int, num_seqs: int):
    """Rows ``[0, S*B)`` of the (padded) chunk hold ``S`` sets of ``B`` sequences."""
    M, _, K = t_MxWxK.shape
    R = num_sets * num_seqs
    t = t_MxWxK[:, :R].reshape(M, num_sets, num_seqs, K)
    w = w_MxW[:, :R].reshape(M, num_sets, num_seqs) * lam_SxB[None, :, :]
    num = jnp.linalg.norm(jnp.sum(w[..., None] * t, axis=2), axis=-1)
    den = jnp.sum(jnp.abs(w) * jnp.linalg.norm(t, axis=-1), axis=2)
    return num / jnp.where(den > 0, den, 1.0)


def _check_params(params_M: ModelParams) -> ModelConfig:
    if not isinstance(params_M, ModelParams):
        raise ValueError(f"params_M: expected a ModelParams batch, got {type(params_M).__name__}")
    if len(params_M.batch_shape) != 1:
        raise ValueError(
            f"params_M: expected ONE leading model axis, got batch shape {params_M.batch_shape}"
        )
    return params_M.config


def _check_sets(cfg: ModelConfig, tokens_SxBxN, lam_SxB):
    tok = np.asarray(tokens_SxBxN)
    _validate.check_ndim("tokens_SxBxN", tok, 3)
    _validate.check_token_ids("tokens_SxBxN", tok, cfg.vocab_size)
    if tok.shape[2] != cfg.seq_len:
        raise ValueError(
            f"tokens_SxBxN: sequences must have length n = {cfg.seq_len}, got shape {tok.shape}"
        )
    lam = np.asarray(lam_SxB, np.float64)
    _validate.check_shape("lam_SxB", lam, tok.shape[:2])
    return tok, lam


def _chunk_width(num_rows: int, chunk_size: int, mesh) -> int:
    _validate.check_positive("chunk_size", chunk_size)
    w = max(1, min(int(chunk_size), int(num_rows)))
    if mesh is not None:
        w = parallel.round_up(w, parallel.data_size(mesh))
    return w


def _put_tokens(tok_WxN: np.ndarray, mesh):
    x = jnp.asarray(tok_WxN, jnp.int32)
    if mesh is not None:
        x = parallel.shard_data(x, mesh)
    return x


def _pad_rows(x: np.ndarray, width: int) -> np.ndarray:
    if len(x) >= width:
        return x
    return np.concatenate([x, np.repeat(x[-1:], width - len(x), axis=0)])


def set_residuals_multi(
    params_M: ModelParams,
    tokens_SxBxN,
    lam_SxB,
    specs: Sequence[tuple[str, bool]],
    *,
    chunk_size: int = 4096,
    width: int | None = None,
    mesh=None,
) -> list[np.ndarray]:
    """:func:`set_residuals` for several ``(target, weighted)`` specs from ONE pass of model
    outputs.

    ``width`` fixes the padded rows per device call (so one compiled program serves the sets and a
    dataset of the same models); default ``min(chunk_size, S*B)``.
    """
    cfg = _check_params(params_M)
    tok, lam = _check_sets(cfg, tokens_SxBxN, lam_SxB)
    for target, _ in specs:
        _validate.check_choice("target", target, ("stream1", "logits"))
    S, B, N = tok.shape
    W = _chunk_width(S * B, chunk_size, mesh) if width is None else int(width)
    if W < B:
        raise ValueError(f"chunk_size: a chunk must hold a whole set of {B} sequences, got {W}")
    per = min(S, W // B)
    if mesh is not None:
        params_M = parallel.shard_models(params_M, mesh)
    dtype = params_M.w_o.dtype
    out = [[] for _ in specs]
    for lo in range(0, S, per):
        t_sets, l_sets = tok[lo : lo + per], lam[lo : lo + per]
        s = len(t_sets)
        if s < per:  # pad with copies of the last set (cut below): one compiled shape
            t_sets = np.concatenate([t_sets, np.repeat(t_sets[-1:], per - s, axis=0)])
            l_sets = np.concatenate([l_sets, np.repeat(l_sets[-1:], per - s, axis=0)])
        outputs = model_outputs(
            params_M, _put_tokens(_pad_rows(t_sets.reshape(per * B, N), W), mesh)
        )
        lam_j = jnp.asarray(l_sets, dtype)
        for k, (target, weighted) in enumerate(specs):
            t, w = _select(outputs, target, weighted)
            out[k].append(np.asarray(_set_residual_kernel(t, w, lam_j, per, B))[:, :s])
    return [np.concatenate(o, axis=1) for o in out]


def set_residuals(
    params_M: ModelParams,
    tokens_SxBxN,
    lam_SxB,
    *,
    target: str = "logits",
    weighted: bool = False,
    chunk_size: int = 4096,
    mesh=None,
) -> np.ndarray:
    """Relative residuals ``||sum_i w_i t_i|| / sum_i |w_i| ||t_i||`` of every model on every set.

    ``w_i = lambda_i`` (Props. 7, 8) or ``Z_i lambda_i`` (Props. 9, 10, ``weighted=True``);
    ``t_i`` is the first-layer last-position stream (``target="stream1"``) or the logits.

    Args:
      params_M: ``M`` models.
      tokens_SxBxN: ``S`` sets of ``B`` sequences (pad smaller sets with ``lambda = 0`` rows, see
        :func:`dependence.stack_sets`).
      lam_SxB: the coefficients (floats holding integers).
      target: ``"stream1"`` or ``"logits"``.
      weighted: multiply ``lambda_i`` by the model's ``Z_i``.
      chunk_size: sequences per device call (whole sets per chunk; memory bound, see module doc).
      mesh: optional :func:`transformer_theory.parallel.make_mesh` mesh to shard models and sets.
    Returns:
      float array ``(M, S)`` in the params' dtype.
    """
    return set_residuals_multi(
        params_M, tokens_SxBxN, lam_SxB, [(target, weighted)], chunk_size=chunk_size, mesh=mesh
    )[0]


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
def _qr_update(R_MxQxQ, X_bxp, T_MxbxK, w_Mxb, valid_b):
    """One TSQR step per model: ``R <- R-factor of [R; [X | w T]]`` (Householder, stable)."""

    def one(R, T, w):
        A_ = jnp.concatenate([X_bxp, w[:, None] * T], axis=1) * valid_b[:, None]
        stacked = jnp.concatenate([R, A_], axis=0)
        Rn = jnp.linalg.qr(stacked, mode="r")
        return Rn[: R.shape[0]]

    return jax.vmap(one)(R_MxQxQ, T_MxbxK, w_Mxb)


@jax.jit
def _sumsq(T_MxbxK, w_Mxb, valid_b):
    wt = w_Mxb[..., None] * T_MxbxK * valid_b[None, :, None]
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
) -> AffineResult:
    """The stronger form: fit every model's ``w_i t_i`` on ``[1, c_i]`` over a whole dataset.

    Two streamed passes: :func:`independent_columns` (exact, tokens only), then the models'
    outputs chunk by chunk into a per-model TSQR of ``[X_sub | W T]``; the trailing ``K x K`` block
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
    K = cfg.width if target == "stream1" else cfg.num_classes
    p = len(cols)
    if mesh is not None:
        params_M = parallel.shard_models(params_M, mesh)
    R = jnp.zeros((M, p + K, p + K), dtype)
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
        t, w = _select(model_outputs(params_M, _put_tokens(tok, mesh)), target, weighted)
        vj = jnp.asarray(valid, dtype)
        R = _qr_update(R, X, t, w, vj)
        ss = ss + _sumsq(t, w, vj)
    resid = jnp.linalg.norm(R[:, p:, p:], axis=(1, 2)) / jnp.sqrt(ss)
    return AffineResult(np.asarray(resid), p, total, steps)


# --------------------------------------------------------------------------------------------
# Tolerances and verdicts
# --------------------------------------------------------------------------------------------
def set_tolerance(dtype, config: ModelConfig) -> float:
    """``16 * eps * (D + N + C)`` (see the module docstring for the derivation)."""
    eps = float(jnp.finfo(dtype).eps)
    return TOL_SAFETY * eps * (config.width + config.seq_len + config.num_classes)


def affine_tolerance(dtype, config: ModelConfig, rank: int, num_chunks: int = 1) -> float:
    """``16 * eps * (D + N + C + p) * sqrt(s)``: the set tolerance plus Householder QR's ``~p eps``
    backward error per TSQR step, the ``s`` steps' errors adding like a random walk."""
    eps = float(jnp.finfo(dtype).eps)
    return (
        TOL_SAFETY
        * eps
        * (config.width + config.seq_len + config.num_classes + rank)
        * float(np.sqrt(max(1, num_chunks)))
    )


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One row of the verification table.

    ``holds`` means ``max_residual <= tolerance``; ``expected`` says whether the theorem's scope
    predicts it; a verdict is a *failure* (a bug or a discovery) when expected but not holding.
    """

    proposition: str
    family: str
    attention: str
    heads: str
    layers: int
    models: int
    sets: int
    max_residual: float
    tolerance: float
    holds: bool
    expected: bool
    dataset: str = ""
    precision: str = "float64"

    @property
    def failed(self) -> bool:
        return self.expected and not self.holds

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["kind"] = "proposition"
        return d


def _verdict(prop, fam: Family, cfg, models, sets, resid, tol, dataset, dtype) -> Verdict:
    mx = float(np.max(resid)) if np.size(resid) else 0.0
    if not np.isfinite(mx):
        mx = float("inf")
    return Verdict(
        proposition=prop,
        family=fam.name,
        attention=fam.attention,
        heads=",".join(map(str, cfg.heads)),
        layers=cfg.depth,
        models=int(models),
        sets=int(sets),
        max_residual=mx,
        tolerance=float(tol),
        holds=bool(mx <= tol),
        expected=fam.in_scope(prop),
        dataset=dataset,
        precision=str(jnp.dtype(dtype)),
    )


def check_family(
    family: Family,
    params_M: ModelParams,
    sets: Sequence[dep.DependentSet] = (),
    data=None,
    *,
    dataset: str = "",
    chunk_size: int = 4096,
    columns: tuple[np.ndarray, int] | None = None,
    mesh=None,
    progress: bool = False,
) -> list[Verdict]:
    """Every applicable proposition of ``family`` on dependent ``sets`` and the affine form on
    ``data``.

    One compiled program per family and dataset: the sets and the dataset's chunks are padded to
    one width, and the set statistics of all propositions come from one pass of model outputs.

    Args:
      family: the family (decides which propositions are reported and which are expected).
      params_M: ``M`` models of ``family.config(...)`` (random, constructed or trained).
      sets: dependent sets sharing ``(V, N)`` with the models.
      data: optional whole dataset for the affine form (tokens ``(B, N)`` or a task); skipped when
        its sequences have no dependence (``B == p``: nothing to test).
      dataset: a name for the records.
      chunk_size: rows per device call (the memory bound).
      columns: precomputed :func:`independent_columns` of ``data`` (reuse it across families).
      mesh: optional :func:`transformer_theory.parallel.make_mesh` mesh.
      progress: tqdm bar over the dataset's chunks.
    """
    cfg = _check_params(params_M)
    mismatched = family.mismatches(cfg)
    if mismatched:
        raise ValueError(
            f"params_M: not models of family {family.name!r}: " + ", ".join(mismatched)
        )
    dtype = params_M.w_o.dtype
    M = params_M.batch_shape[0]
    props = family.propositions()
    set_props = [q for q in props if q != "affine"]
    rows = 0
    tok = lam = None
    if sets:
        tok, lam = dep.stack_sets(list(sets))
        rows = tok.shape[0] * tok.shape[1]
    if data is not None and columns is None:
        columns = independent_columns(data, cfg.vocab_size, chunk_size=chunk_size)
    if data is not None:
        rows = max(rows, columns[1])
    if rows == 0:
        return []
    width = _chunk_width(rows, chunk_size, mesh)
    if tok is not None:
        width = max(width, _chunk_width(tok.shape[1], chunk_size, mesh))
    out = []
    if tok is not None and set_props:
        specs = [(prop_target(q), family.weighted(q)) for q in set_props]
        res = set_residuals_multi(
            params_M, tok, lam, specs, chunk_size=chunk_size, width=width, mesh=mesh
        )
        tol = set_tolerance(dtype, cfg)
        out += [
            _verdict(q, family, cfg, M, len(tok), r, tol, dataset, dtype)
            for q, r in zip(set_props, res)
        ]
    if "affine" in props and data is not None and columns[1] > len(columns[0]):
        res = affine_residuals(
            params_M,
            data,
            target="logits",
            weighted=family.weighted("affine"),
            chunk_size=chunk_size,
            width=width,
            columns=columns,
            mesh=mesh,
            progress=progress,
        )
        tol = affine_tolerance(dtype, cfg, res.rank, res.num_chunks)
        out.append(
            _verdict("affine", family, cfg, M, res.relations, res.residual_M, tol, dataset, dtype)
        )
    return out


def random_models(
    family: Family,
    vocab_size: int,
    seq_len: int,
    num_classes: int,
    key,
    num_models: int,
    dtype=jnp.float64,
) -> ModelParams:
    """``num_models`` random models of ``family`` for a dataset's ``(V, N, C)``.

    Same distribution as ``init_params(scheme="normal")`` (weights ``N(0, 1/fan_in)``, norm gains 1,
    biases 0), drawn with NumPy from ``key`` (a JAX key or an int): XLA compiles of the threefry
    RNG cost seconds per config on CPU, which would dominate a verification run of many families.
    """
    _validate.check_positive("num_models", num_models)
    cfg = family.config(vocab_size, seq_len, num_classes)
    shapes = jax.eval_shape(
        lambda k: init_params_batch(k, cfg, int(num_models), dtype=dtype), jax.random.PRNGKey(0)
    )
    rng = dep.numpy_rng(key)

    def draw(path, leaf):
        name = jax.tree_util.keystr(path)
        if name.endswith(".scale"):
            return jnp.ones(leaf.shape, leaf.dtype)
        if name.endswith((".bias", ".b1", ".b2")):
            return jnp.zeros(leaf.shape, leaf.dtype)
        fan_in = leaf.shape[-1]
        return jnp.asarray(rng.standard_normal(leaf.shape) / np.sqrt(fan_in), leaf.dtype)

    return jax.tree_util.tree_map_with_path(draw, shapes)
