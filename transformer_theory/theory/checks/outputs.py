"""The batched outputs the propositions read -- the first layer's last-position stream, the logits
and the softmax normalizers, at the last query only -- and the relative residuals of dependent
sets.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.typing import ArrayLike

from transformer_theory import _validate, parallel
from transformer_theory.core import attention, norms
from transformer_theory.core.forward import embed, forward_trace
from transformer_theory.core.layers import attention_scores
from transformer_theory.params import ModelConfig, ModelParams
from transformer_theory.theory.checks import first_layer


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
    return first_layer.finish_first_layer(layer, z, cfg), s


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
        logits = first_layer.classify_last(params, stream1)
    else:
        logits = forward_trace(params, tokens_N).logits_C
    return stream1, logits, z_H


@jax.jit
def model_outputs_general(
    params_M: ModelParams, tokens_BxN: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Outputs of ``M`` models on ``B`` sequences by the general path (the embedding as a dense
    stream), vmapped and jit-compiled.

    Args:
      params_M: a batch of models (leading axis ``M``).
      tokens_BxN: token ids.
    Returns:
      ``(stream1_MxBxD, logits_MxBxC, z_MxBxH)`` (see :func:`_outputs_one`).
    """
    per_model = jax.vmap(_outputs_one, in_axes=(None, 0))
    return jax.vmap(per_model, in_axes=(0, None))(params_M, tokens_BxN)


@functools.partial(jax.jit, static_argnames=("target", "need_z"))
def _lookup_targets(params_M, tables_M, tokens_WxN, target: str, need_z: bool):
    per_model = functools.partial(
        first_layer.lookup_targets, tokens_WxN=tokens_WxN, target=target, need_z=need_z
    )
    return jax.vmap(per_model)(params_M, tables_M)


def _use_lookup(cfg: ModelConfig, path: str) -> bool:
    _validate.check_choice("path", path, ("auto", "lookup", "general"))
    if path == "lookup" and not first_layer.lookup_applies(cfg):
        raise ValueError(
            f"path: the first layer of positional={cfg.positional!r} is not a (token, position) "
            "lookup; use 'general' or 'auto'"
        )
    return path == "lookup" or (path == "auto" and first_layer.lookup_applies(cfg))


def target_evaluator(
    params_M: ModelParams,
    target: str,
    lasts: ArrayLike | Sequence[int],
    *,
    need_z: bool = True,
    path: str = "auto",
) -> Callable[[jax.Array], tuple[jax.Array, jax.Array | None]]:
    """A function ``tokens_WxN -> (t_MxWxY, z_MxWxH)``: the checked target of every model and its
    first-layer softmax normalizers.

    ``path="auto"`` uses the first-layer lookup tables (:mod:`.first_layer`, built once here for
    the last tokens ``lasts``: every sequence passed later must end in one of them) when the first
    layer is a lookup and the general dense path otherwise; ``"lookup"`` / ``"general"`` force one
    (a test pins them to each other). ``need_z=False`` lets a ReLU model skip its ``Z`` (then
    None).
    """
    cfg = params_M.config
    _validate.check_choice("target", target, ("stream1", "logits"))
    if not _use_lookup(cfg, path):

        def general(tokens_WxN):
            stream1, logits, z = model_outputs_general(params_M, tokens_WxN)
            return (stream1 if target == "stream1" else logits), z

        return general
    fold = target == "logits" and first_layer.folds_classifier(cfg)
    tables_M = first_layer.first_layer_tables(params_M, lasts, fold)
    return lambda tokens_WxN: _lookup_targets(params_M, tables_M, tokens_WxN, target, need_z)


def model_outputs(
    params_M: ModelParams, tokens_BxN: jax.Array, *, path: str = "auto"
) -> tuple[jax.Array, jax.Array, jax.Array | None]:
    """Outputs of ``M`` models on ``B`` sequences: ``(stream1_MxBxD, logits_MxBxC, z_MxBxH)``.

    The first layer's stream and ``Z`` come from the lookup tables where the first layer is a
    lookup (``path`` as in :func:`target_evaluator`), else from :func:`model_outputs_general`.
    """
    if not _use_lookup(params_M.config, path):
        return model_outputs_general(params_M, tokens_BxN)
    lasts = np.asarray(tokens_BxN)[:, -1]
    stream1, z = target_evaluator(params_M, "stream1", lasts, path="lookup")(tokens_BxN)
    logits, _ = target_evaluator(params_M, "logits", lasts, path="lookup")(tokens_BxN)
    return stream1, logits, z


def _weights(t, z, weighted: bool):
    return z[..., 0] if weighted else jnp.ones(t.shape[:-1], t.dtype)


@functools.partial(jax.jit, static_argnames=("num_sets", "num_seqs"))
def _set_residual_kernel(t_MxWxY, w_MxW, lam_SxB, num_sets: int, num_seqs: int):
    """Rows ``[0, S*B)`` of the (padded) chunk hold ``S`` sets of ``B`` sequences."""
    M, _, Y = t_MxWxY.shape
    R = num_sets * num_seqs
    t = t_MxWxY[:, :R].reshape(M, num_sets, num_seqs, Y)
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
    tokens_SxBxN: ArrayLike,
    lam_SxB: ArrayLike,
    specs: Sequence[tuple[str, bool]],
    *,
    chunk_size: int = 4096,
    width: int | None = None,
    mesh: Mesh | None = None,
    path: str = "auto",
) -> list[np.ndarray]:
    """:func:`set_residuals` for several ``(target, weighted)`` specs from ONE pass of model
    outputs.

    ``width`` fixes the padded rows per device call (so one compiled program serves the sets and a
    dataset of the same models); default ``min(chunk_size, S*B)``. ``path``: as in
    :func:`target_evaluator`.
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
    lasts = tok[..., -1]
    evaluate = {
        t: target_evaluator(
            params_M, t, lasts, need_z=any(w for u, w in specs if u == t), path=path
        )
        for t in dict.fromkeys(t for t, _ in specs)
    }
    out: list[list[np.ndarray]] = [[] for _ in specs]
    for lo in range(0, S, per):
        t_sets, l_sets = tok[lo : lo + per], lam[lo : lo + per]
        s = len(t_sets)
        if s < per:  # pad with copies of the last set (cut below): one compiled shape
            t_sets = np.concatenate([t_sets, np.repeat(t_sets[-1:], per - s, axis=0)])
            l_sets = np.concatenate([l_sets, np.repeat(l_sets[-1:], per - s, axis=0)])
        tok_j = _put_tokens(_pad_rows(t_sets.reshape(per * B, N), W), mesh)
        outputs = {target: fn(tok_j) for target, fn in evaluate.items()}
        lam_j = jnp.asarray(l_sets, dtype)
        for k, (target, weighted) in enumerate(specs):
            t, z = outputs[target]
            w = _weights(t, z, weighted)
            out[k].append(parallel.to_host(_set_residual_kernel(t, w, lam_j, per, B))[:, :s])
    return [np.concatenate(o, axis=1) for o in out]


def set_residuals(
    params_M: ModelParams,
    tokens_SxBxN: ArrayLike,
    lam_SxB: ArrayLike,
    *,
    target: str = "logits",
    weighted: bool = False,
    chunk_size: int = 4096,
    mesh: Mesh | None = None,
    path: str = "auto",
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
      path: ``"auto"`` (first-layer lookup tables where they apply), ``"lookup"`` or ``"general"``.
    Returns:
      float array ``(M, S)`` in the params' dtype.
    """
    return set_residuals_multi(
        params_M,
        tokens_SxBxN,
        lam_SxB,
        [(target, weighted)],
        chunk_size=chunk_size,
        mesh=mesh,
        path=path,
    )[0]
