"""Over-squashing (Barbero et al. 2024, §5): how much the last token's representation can feel
each input token, against the paths through the causal attention graph.

- :func:`sensitivities`: ``||d v^(l)_n / d v_i||`` for every layer count ``l`` and
  ``||d y_n / d v_i||`` for the final representation, exact, through ``jax.jacrev`` (one reverse
  sweep per output coordinate gives the derivative for every input position at once), with the
  spectral norm taken position by position (``jax.vmap`` over positions).
- :func:`attention_paths`: the products ``Lambda^(l) ... Lambda^(1)`` of the layers' attention
  matrices (row-stochastic, lower-triangular; heads averaged), whose last row weighs the paths
  from each input token to the last one; :func:`causal_path_counts`: the number of those paths in
  the all-causal graph, ``C(n - i + L - 1, L - 1)`` (exact integers). Early tokens have more paths
  -- Barbero et al. 2024's qualitative claim that information from early tokens reaches the end
  more easily.
- :func:`sensitivity_bound`: a product-of-attention upper bound (a theorem; checked in float64
  against the exact Jacobians, where at one layer it is attained). For a layer with attention
  weights ``alpha^h_ik`` (query ``i``, key ``k``), the derivative of the layer's output at ``i``
  with respect to its input at ``k < i`` is EXACTLY ``sum_h alpha^h_ik B^h_ik`` with

      B^h_ik = c M_i (W_V^h + (W_V^h x_k - o^h_i) g^h_ik^T) P_k,

  where ``x = norm1(h)``, ``P_k`` is ``norm1``'s Jacobian at ``h_k``, ``o^h_i = sum_m alpha^h_im
  W_V^h x_m`` the head's output, ``g^h_ik = d s^h_ik / d x_k`` the score's key gradient (RoPE
  rotates it by the relative position; ALiBi's bias has none), ``M_i = I + d psi(norm2(z)) / dz``
  at ``z_i`` and ``c`` the head weight (``1/H`` when heads are averaged). The softmax derivative
  contributes ``alpha_ik (W_V x_k - o_i)``, proportional to ``alpha_ik`` too, so every edge of the
  layer's Jacobian graph carries its attention weight. The diagonal block adds the residual
  ``I`` and the query's own derivative. By the chain rule, the triangle inequality and
  ``||XY|| <= ||X|| ||Y||``:

      ||d y_n / d v_i|| <= gamma (A^(L) ... A^(1))_{n, i} <= gamma (Lbar^(L) ... Lbar^(1))_{n, i},

  ``A^(l)_ik = sum_h alpha^h_ik ||B^h_ik||`` off the diagonal and the exact diagonal block's norm
  on it, ``Lbar^(l) = d_l I + sum_h c_lh Lambda^(l,h)`` with ``c_lh = max ||B^h_ik||`` and ``d_l``
  the largest diagonal norm -- the paper's form (Barbero et al. 2024, Theorem 5.1: a constant
  times a sum over paths of products of attention weights plus the residual), with its constants
  computed from this model's weights at this input. ``gamma`` is ``norm3``'s Jacobian norm at
  ``v^(L)_n``. The constants are local (LayerNorm's Jacobian ``~ 1/sqrt(var + eps)`` has no useful
  global bound), so the bound certifies the input it is computed at.

Spectral norms throughout. Supports softmax attention with any mask, ``w_qk`` or factored
queries/keys, RoPE, ALiBi, score scaling, norms and the MLP. Shape letters:
:mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.core import masks, positional
from transformer_theory.core.forward import forward_trace
from transformer_theory.papers.barbero2024._models import final_norm, mlp_map, norm1_map
from transformer_theory.params import LayerParams, ModelConfig, ModelParams

__all__ = [
    "attention_matrices",
    "attention_paths",
    "causal_path_counts",
    "check_record_memory",
    "early_late_ratio",
    "layer_jacobian",
    "layer_jacobian_blocks",
    "oversquash_record",
    "record_bytes",
    "sensitivities",
    "sensitivity_bound",
    "spectral_norm",
]


def _check(params: ModelParams, embedding_NxD) -> None:
    if not isinstance(params, ModelParams) or params.config is None:
        raise ValueError("params: expected a ModelParams carrying its ModelConfig")
    if params.batch_shape:
        raise ValueError(f"params: expected ONE model, got a batch of shape {params.batch_shape}")
    _validate.check_float("embedding_NxD", embedding_NxD)
    _validate.check_shape("embedding_NxD", embedding_NxD, (None, params.config.width))


def _last_outputs(params: ModelParams, embedding_NxD: jax.Array) -> jax.Array:
    """``(L + 1, D)``: the last token's stream after each layer ``1..L``, then ``y_n``."""
    streams_LxNxD = forward_trace(params, embedding_NxD).streams_LxNxD
    return jnp.concatenate(
        [streams_LxNxD[1:, -1], final_norm(params, streams_LxNxD[-1, -1])[None]], axis=0
    )


def spectral_norm(a_DxD: jax.Array) -> jax.Array:
    """Largest singular value of one matrix."""
    return jnp.linalg.norm(a_DxD, ord=2)


def sensitivities(params: ModelParams, embedding_NxD: jax.Array) -> jax.Array:
    """``||d v^(l)_n / d v_i||_2`` for ``l = 1..L`` (rows ``0..L-1``) and ``||d y_n / d v_i||_2``
    (row ``L``), for every input position ``i``: ``(L + 1, N)``.

    ``v_i`` is row ``i`` of the input embedding (token and position); exact Jacobians by
    ``jax.jacrev``. Jit at the call site.
    """
    _check(params, embedding_NxD)
    jac = jax.jacrev(lambda e: _last_outputs(params, e))(embedding_NxD)  # (L+1, D, N, D)
    per_position = jnp.moveaxis(jac, 2, 1)  # (L+1, N, D, D)
    return jax.vmap(jax.vmap(spectral_norm))(per_position)


def attention_matrices(params: ModelParams, embedding_NxD: jax.Array) -> jax.Array:
    """``Lambda^(l)`` for every layer, heads averaged: ``(L, N, N)`` (row ``i`` = query ``i``).

    Every layer must have the same number of heads or be averaged separately -- this is the head
    mean of each layer, which is row-stochastic for softmax attention.
    """
    _check(params, embedding_NxD)
    trace = forward_trace(params, embedding_NxD)
    return jnp.stack([jnp.mean(w_HxNxN, axis=0) for w_HxNxN in trace.attention])


def attention_paths(lambdas_LxNxN: jax.Array) -> jax.Array:
    """``Lambda^(l) ... Lambda^(1)`` for ``l = 1..L``: ``(L, N, N)``; row ``n`` of product ``l``
    weighs the paths from each token to token ``n`` through ``l`` layers of attention."""
    _validate.check_ndim("lambdas_LxNxN", lambdas_LxNxN, 3)

    def step(acc_NxN, lam_NxN):
        out = lam_NxN @ acc_NxN
        return out, out

    eye = jnp.eye(lambdas_LxNxN.shape[1], dtype=lambdas_LxNxN.dtype)
    return jax.lax.scan(step, eye, lambdas_LxNxN)[1]


def causal_path_counts(n: int, depth: int) -> list[int]:
    """Number of paths from token ``i`` (``0..n-1``) to the last token through ``depth`` layers of
    the all-causal graph (every query sees itself and every earlier key): exact integers
    ``C(n - 1 - i + depth - 1, depth - 1)`` -- the entries ``(T^depth)_{n-1, i}`` of the
    lower-triangular all-ones matrix ``T``.
    """
    n = _validate.check_int_arg("n", n, 1)
    depth = _validate.check_int_arg("depth", depth, 1)
    return [math.comb(n - 1 - i + depth - 1, depth - 1) for i in range(n)]


# --- the bound -----------------------------------------------------------------------------------


def _token_jacobians(fn, x_NxD: jax.Array) -> jax.Array:
    """``(N, D, D)``: the Jacobian of a token-wise map at every row."""
    return jax.vmap(jax.jacfwd(fn))(x_NxD)


def _score_gradients(layer: LayerParams, x_NxD: jax.Array, cfg: ModelConfig):
    """``(g, f)``, each ``(H, N, N, D)``: ``g[h, i, k] = d s^h_ik / d x_k`` (key side) and
    ``f[h, i, k] = d s^h_ik / d x_i`` (query side) of :func:`attention_scores`."""
    a = layer.attn
    n = x_NxD.shape[0]
    if cfg.qk_dim is None:
        tau = 1.0 / math.sqrt(cfg.width) if cfg.scale_scores else 1.0
        # s[h, i, k] = x_k^T W[h] x_i
        g_HxNxD = tau * jnp.einsum("hed,id->hie", a.w_qk, x_NxD)
        f_HxNxD = tau * jnp.einsum("hed,ke->hkd", a.w_qk, x_NxD)
        g = jnp.broadcast_to(g_HxNxD[:, :, None, :], (g_HxNxD.shape[0], n, n, cfg.width))
        f = jnp.broadcast_to(f_HxNxD[:, None, :, :], (f_HxNxD.shape[0], n, n, cfg.width))
        return g, f
    tau = 1.0 / math.sqrt(cfg.qk_dim) if cfg.scale_scores else 1.0
    q_HxNxE = jnp.einsum("hed,nd->hne", a.w_q, x_NxD)
    k_HxNxE = jnp.einsum("hed,nd->hne", a.w_k, x_NxD)
    pos_N = jnp.arange(n)
    if cfg.relative == "rope":
        q_HxNxE = jax.vmap(lambda q: positional.rope(q, pos_N))(q_HxNxE)
        k_HxNxE = jax.vmap(lambda k: positional.rope(k, pos_N))(k_HxNxE)

        # s_ik = rope(q)_i . rope(k)_k; d/dx_k = W_K^T R_k^T rope(q)_i, R_k^T = rotation by -k.
        def unrotate(v_E, by_N):  # (N, E): v rotated back by every position in by_N
            return positional.rope(jnp.broadcast_to(v_E, (n, v_E.shape[0])), -by_N)

        qk_HxNxNxE = jax.vmap(jax.vmap(lambda v: unrotate(v, pos_N)))(q_HxNxE)  # [h, i, k]
        kq_HxNxNxE = jax.vmap(jax.vmap(lambda v: unrotate(v, pos_N)))(k_HxNxE)  # [h, k, i]
        g = tau * jnp.einsum("hed,hike->hikd", a.w_k, qk_HxNxNxE)
        f = tau * jnp.einsum("hed,hkie->hikd", a.w_q, kq_HxNxNxE)
        return g, f
    g_HxNxD = tau * jnp.einsum("hed,hie->hid", a.w_k, q_HxNxE)
    f_HxNxD = tau * jnp.einsum("hed,hke->hkd", a.w_q, k_HxNxE)
    h = g_HxNxD.shape[0]
    g = jnp.broadcast_to(g_HxNxD[:, :, None, :], (h, n, n, cfg.width))
    f = jnp.broadcast_to(f_HxNxD[:, None, :, :], (h, n, n, cfg.width))
    return g, f


def layer_jacobian_blocks(
    layer: LayerParams, h_NxD: jax.Array, cfg: ModelConfig, weights_HxNxN: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """The analytic blocks of one layer's Jacobian (see the module docstring).

    Args:
      layer: the layer's parameters.
      h_NxD: the stream entering the layer.
      cfg: the model's config (softmax attention).
      weights_HxNxN: the layer's attention weights at this input (``forward_trace``).
    Returns:
      ``(edge_HxNxNxDxD, diagonal_NxDxD)``: ``edge[h, i, k] = B^h_ik`` (the off-diagonal block is
      ``sum_h weights[h, i, k] edge[h, i, k]``) and the exact diagonal blocks ``d out_i / d h_i``.
    """
    n, width = h_NxD.shape
    norm1 = norm1_map(layer, cfg)
    x_NxD = norm1(h_NxD)
    p_NxDxD = _token_jacobians(norm1, h_NxD)
    u_HxNxD = jnp.einsum("hed,nd->hne", layer.attn.w_v, x_NxD)
    o_HxNxD = jnp.einsum("hik,hkd->hid", weights_HxNxN, u_HxNxD)
    c = 1.0 / weights_HxNxN.shape[0] if cfg.head_mean else 1.0
    z_NxD = h_NxD + c * jnp.sum(o_HxNxD, axis=0)
    m_NxDxD = _token_jacobians(mlp_map(layer, cfg), z_NxD)
    g, f = _score_gradients(layer, x_NxD, cfg)
    diff_HxNxNxD = u_HxNxD[:, None, :, :] - o_HxNxD[:, :, None, :]  # [h, i, k] = u_k - o_i
    inner = layer.attn.w_v[:, None, None] + jnp.einsum("hikd,hike->hikde", diff_HxNxNxD, g)
    edge = c * jnp.einsum("ide,hikef,kfg->hikdg", m_NxDxD, inner, p_NxDxD)
    query_HxNxDxD = jnp.einsum("hik,hikd,hike->hide", weights_HxNxN, diff_HxNxNxD, f)
    idx = jnp.arange(n)
    own = jnp.einsum("hi,hide->hide", weights_HxNxN[:, idx, idx], inner[:, idx, idx])
    attn_NxDxD = c * jnp.sum(own + query_HxNxDxD, axis=0)
    eye = jnp.eye(width, dtype=h_NxD.dtype)
    # d out_i / d h_i = M_i (I + attn_i P_i): the residual, then the attention through norm1.
    through_NxDxD = jnp.einsum("ide,ief->idf", attn_NxDxD, p_NxDxD)
    diagonal = jnp.einsum("ide,ief->idf", m_NxDxD, eye[None] + through_NxDxD)
    return edge, diagonal


def layer_jacobian(
    layer: LayerParams, h_NxD: jax.Array, cfg: ModelConfig, weights_HxNxN: jax.Array
) -> jax.Array:
    """The full Jacobian ``d out_i / d h_k`` of one layer assembled from its analytic blocks:
    ``(N, D, N, D)`` (for checking the blocks against ``jax.jacrev``)."""
    edge, diagonal = layer_jacobian_blocks(layer, h_NxD, cfg, weights_HxNxN)
    n = h_NxD.shape[0]
    off = jnp.einsum("hik,hikdg->ikdg", weights_HxNxN, edge)
    off = jnp.where(~jnp.eye(n, dtype=bool)[:, :, None, None], off, 0.0)
    off = off.at[jnp.arange(n), jnp.arange(n)].set(diagonal)
    return jnp.transpose(off, (0, 2, 1, 3))


def sensitivity_bound(params: ModelParams, embedding_NxD: jax.Array) -> dict:
    """Certified upper bounds on :func:`sensitivities` (module docstring).

    Returns a dict of arrays::

      ``edge_LxN``: ``(A^(l) ... A^(1))_{n, i}`` for ``l = 1..L`` and, last row, ``gamma`` times
        the full product -- the bound with each edge's own constant;
      ``attention_LxN``: the same with ``Lbar^(l) = d_l I + sum_h c_lh Lambda^(l,h)`` (one
        constant per head and layer: the paper's product-of-attention form);
      ``edge_constants``: per layer, ``c_lh`` (``(H,)``) and ``d_l``; ``gamma``.
    """
    _check(params, embedding_NxD)
    cfg = params.config
    if cfg.attention != "softmax":
        raise ValueError(
            f"params: the product-of-attention bound is derived for softmax attention, got "
            f"{cfg.attention!r}"
        )
    trace = forward_trace(params, embedding_NxD)
    n = embedding_NxD.shape[0]
    eye = jnp.eye(n, dtype=embedding_NxD.dtype)
    lower = masks.causal_mask(n) if cfg.causal else jnp.ones((n, n), bool)
    strict = lower & ~jnp.eye(n, dtype=bool)
    edge_acc, attn_acc = eye, eye
    edge_rows, attn_rows, constants = [], [], []
    for layer, h_NxD, w_HxNxN in zip(params.layers, trace.streams_LxNxD[:-1], trace.attention):
        edge, diagonal = layer_jacobian_blocks(layer, h_NxD, cfg, w_HxNxN)
        edge_norm_HxNxN = jax.vmap(jax.vmap(jax.vmap(spectral_norm)))(edge)
        diag_N = jax.vmap(spectral_norm)(diagonal)
        a_NxN = jnp.where(strict, jnp.einsum("hik,hik->ik", w_HxNxN, edge_norm_HxNxN), 0.0)
        a_NxN = a_NxN + jnp.diag(diag_N)
        c_H = jnp.max(jnp.where(strict[None], edge_norm_HxNxN, 0.0), axis=(1, 2))
        d = jnp.max(diag_N)
        lbar_NxN = d * eye + jnp.einsum("h,hik->ik", c_H, w_HxNxN)
        edge_acc, attn_acc = a_NxN @ edge_acc, lbar_NxN @ attn_acc
        edge_rows.append(edge_acc[-1])
        attn_rows.append(attn_acc[-1])
        constants.append(dict(c=c_H, d=d))
    gamma = spectral_norm(jax.jacfwd(lambda v: final_norm(params, v))(trace.streams_LxNxD[-1, -1]))
    edge_rows.append(gamma * edge_acc[-1])
    attn_rows.append(gamma * attn_acc[-1])
    return dict(
        edge_LxN=jnp.stack(edge_rows),
        attention_LxN=jnp.stack(attn_rows),
        edge_constants=constants,
        gamma=gamma,
    )


def early_late_ratio(values_N: ArrayLike) -> float:
    """Mean over the first quarter of the positions divided by the mean over the last quarter,
    the last position left out (it also reaches itself through every residual connection): above
    1 when early tokens weigh more, Barbero et al. 2024's qualitative claim."""
    v = np.asarray(values_N, np.float64)
    if v.shape[0] < 5:
        raise ValueError(f"values_N: expected at least 5 positions, got {v.shape[0]}")
    q = max(1, (v.shape[0] - 1) // 4)
    late = np.mean(v[-1 - q : -1])
    return float(np.mean(v[:q]) / late) if late > 0 else float("inf")


@jax.jit
def _last_path_rows(params: ModelParams, embedding_NxD: jax.Array):
    """``(L, N)`` twice: the last rows of the ``Lambda`` products and of the ``(I + Lambda) / 2``
    products (with the residual connection every layer also keeps each token)."""
    lam = attention_matrices(params, embedding_NxD)
    eye = jnp.eye(lam.shape[1], dtype=lam.dtype)[None]
    return attention_paths(lam)[:, -1], attention_paths((lam + eye) / 2)[:, -1]


_sensitivities = jax.jit(sensitivities)
_bound = jax.jit(sensitivity_bound)


def record_bytes(config: ModelConfig, n: int, *, bound: bool = True, compiled: bool = True) -> int:
    """Peak bytes of :func:`oversquash_record` for a float64 model of ``config`` at ``n`` tokens.

    ``compiled=True``: the largest of its compiled programs as XLA accounts for them
    (:func:`transformer_theory.budget.compiled_bytes` on shapes: nothing is allocated), plus the
    model and the embedding held beside them. ``compiled=False``: a floor without compiling, the
    model and every layer's ``(H, n, n)`` attention weights, which the reverse sweep of
    :func:`sensitivities` keeps (and, with ``bound``, the bound's ``(H, n, n, D, D)`` edge blocks
    of one layer). Needs x64 enabled."""
    from transformer_theory import budget
    from transformer_theory.params import init_params

    _validate.check_positive("n", n)
    params = jax.eval_shape(lambda: init_params(jax.random.key(0), config, dtype=jnp.float64))
    held = sum(math.prod(x.shape) * 8 for x in jax.tree.leaves(params)) + 8 * n * config.width
    if not compiled:
        floor = 8 * sum(config.heads) * n**2
        if bound:
            floor = max(floor, 8 * max(config.heads) * n**2 * config.width**2)
        return int(held + floor)
    emb = jax.ShapeDtypeStruct((n, config.width), jnp.float64)
    programs = [_sensitivities, _last_path_rows] + ([_bound] if bound else [])
    peak = max(budget.compiled_bytes(f, params, emb) for f in programs)
    return int(peak + held)


def check_record_memory(configs: Sequence[ModelConfig], n: int, bound: bool) -> float:
    """Refuse (BudgetError naming ``length/width/depths/heads``, and ``no_bound`` with the
    ``bound``) a run whose largest program (:func:`record_bytes`) for the model configs
    ``configs`` (a grid's largest per positional code) at ``n`` tokens would not fit: the floor
    first, then XLA's account. Returns the estimate in bytes."""
    from transformer_theory import budget

    option = "length/width/depths/heads" + (" (or no_bound)" if bound else "")
    what = f"the largest program (Jacobians, path products) at n = {n}"
    for compiled in (False, True):
        estimate = max(record_bytes(c, n, bound=bound, compiled=compiled) for c in configs)
        budget.check_memory(estimate, what=what, option=option)
    return estimate


def oversquash_record(params: ModelParams, embedding_NxD: jax.Array, *, bound: bool = True) -> dict:
    """Everything one plot panel needs, as lists: sensitivities by layer count and final,
    attention-path weights (``Lambda`` products, and ``(I + Lambda)/2`` products that count the
    residual connection), path counts and (``bound``) the certified bounds. Ratios that divide by
    zero are ``inf`` (JSON writers turn them into null with the reason)."""
    cfg = params.config
    sens = np.asarray(_sensitivities(params, embedding_NxD), np.float64)
    paths, residual = (np.asarray(a, np.float64) for a in _last_path_rows(params, embedding_NxD))
    n = embedding_NxD.shape[0]
    record = dict(
        depth=cfg.depth,
        length=int(n),
        sensitivity=sens[:-1].tolist(),
        sensitivity_final=sens[-1].tolist(),
        path_weight=paths.tolist(),
        path_weight_residual=residual.tolist(),
        path_count=[str(c) for c in causal_path_counts(n, cfg.depth)],
    )
    record["early_late_ratio"] = early_late_ratio(sens[-1])
    record["path_early_late_ratio"] = early_late_ratio(paths[-1])
    record["residual_path_early_late_ratio"] = early_late_ratio(residual[-1])
    if bound:
        b = _bound(params, embedding_NxD)
        edge = np.asarray(b["edge_LxN"], np.float64)
        att = np.asarray(b["attention_LxN"], np.float64)
        record.update(
            bound_edge=edge[:-1].tolist(),
            bound_edge_final=edge[-1].tolist(),
            bound_attention=att[:-1].tolist(),
            bound_attention_final=att[-1].tolist(),
            bound_holds=bool(np.all(sens <= edge * (1 + 1e-9) + 1e-12)),
            bound_ratio_max=float(np.max(sens / np.maximum(edge, 1e-300))),
        )
    return record
