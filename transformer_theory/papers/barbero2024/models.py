"""Barbero et al. 2024, §2's model: a causal Pre-LN transformer, its random instances, its size,
and the token-wise maps of one layer that the collapse and over-squashing derivations use.

- :func:`causal_pre_ln_config`: the model as a :class:`~transformer_theory.params.ModelConfig`
  (causal softmax attention, ``norm1`` before attention, an MLP ``psi`` after ``norm2``, the
  final ``norm3``), with a positional code from :data:`POSITIONAL`;
- :func:`random_model`: a random float64 instance; :func:`model_bytes`: its size from the sizes
  alone (a command checks it before building anything);
- :func:`final_norm`, :func:`norm1_map`, :func:`mlp_map`: ``norm3``, ``norm1`` and
  ``z -> z + psi(norm2(z))`` as maps of one token.

Shape letters: :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import norms
from transformer_theory.core.layers import mlp
from transformer_theory.params import LayerParams, ModelConfig, ModelParams, init_params

__all__ = [
    "POSITIONAL",
    "causal_pre_ln_config",
    "final_norm",
    "mlp_map",
    "model_bytes",
    "norm1_map",
    "random_model",
]

#: The positional codes of the studies: none, an absolute code in the stream, or relative codes
#: in the scores.
POSITIONAL = ("none", "sinusoidal", "rope", "alibi")


def causal_pre_ln_config(
    depth: int,
    heads: int,
    positional: str,
    *,
    width: int = 32,
    qk_dim: int = 8,
    vocab_size: int = 5,
    seq_len: int = 16,
    mlp_ratio: int = 2,
    num_classes: int = 2,
) -> ModelConfig:
    """Barbero et al. 2024, §2's model as a :class:`ModelConfig`: causal softmax attention with
    ``1/sqrt(E)`` scores, ``norm1`` (LayerNorm) before attention, an MLP ``psi`` after ``norm2``,
    the final ``norm3``, ``heads`` heads in each of ``depth`` layers.

    Args:
      depth, heads: layers, and heads per layer.
      positional: ``"none"``, ``"sinusoidal"`` (an absolute code of ``code_dim(seq_len)``
        frequencies written into the stream), ``"rope"`` or ``"alibi"`` (relative, in the scores).
      width, qk_dim, vocab_size, seq_len, mlp_ratio, num_classes: the sizes (``d'``, ``E``, ``d``,
        the length the absolute code is laid out for, ``F / d'``, ``C``).
    Returns:
      The config (validated by :class:`ModelConfig`).
    """
    _validate.check_choice("positional", positional, POSITIONAL)
    _validate.check_positive("depth", depth)
    _validate.check_positive("heads", heads)
    _validate.check_positive("mlp_ratio", mlp_ratio)
    return ModelConfig(
        vocab_size=vocab_size,
        seq_len=seq_len,
        width=width,
        num_classes=num_classes,
        heads=(heads,) * depth,
        attention="softmax",
        scale_scores=True,
        causal=True,
        positional="sinusoidal" if positional == "sinusoidal" else "none",
        relative=positional if positional in ("rope", "alibi") else None,
        qk_dim=qk_dim,
        norm1="layernorm",
        mlp_hidden=mlp_ratio * width,
        norm2="layernorm",
        final_norm="layernorm",
    )


def model_bytes(
    depth: int,
    heads: int,
    *,
    width: int = 32,
    qk_dim: int = 8,
    mlp_ratio: int = 2,
    num_classes: int = 2,
    itemsize: int = 8,
) -> int:
    """Bytes of the parameters of :func:`causal_pre_ln_config` ``(depth, heads, ...)`` in a dtype
    of ``itemsize`` bytes (8: the float64 model of :func:`random_model`), from the sizes alone.

    Python integers and nothing built: a config of ``10^12`` layers would be a tuple of ``10^12``
    head counts, so a command checks this figure first (per layer: ``W_V`` ``(H, D, D)``,
    ``W_Q`` and ``W_K`` ``(H, E, D)``, the MLP ``(F, D)``, ``(F,)``, ``(D, F)``, ``(D,)`` with
    ``F = mlp_ratio D``, two LayerNorms; then ``w_o`` ``(C, D)`` and the final LayerNorm).
    """
    for name, value in (("depth", depth), ("heads", heads), ("width", width)):
        if int(value) != value or value < 1:  # not check_positive: float(10^400) overflows
            raise ValueError(f"{name}: expected a positive integer, got {value!r}")
    d, e, f = int(width), int(qk_dim), int(mlp_ratio) * int(width)
    layer = int(heads) * (d * d + 2 * e * d) + (2 * f * d + f + d) + 2 * 2 * d
    return int(itemsize) * (int(depth) * layer + int(num_classes) * d + 2 * d)


def random_model(config: ModelConfig, seed: int = 0) -> ModelParams:
    """A random float64 model of ``config`` (entries ``N(0, 1/d')``, norms at gain 1, bias 0)."""
    return init_params(jax.random.key(seed), config, dtype=jnp.float64)


def final_norm(params: ModelParams, v_D: jax.Array) -> jax.Array:
    """``norm3`` (Barbero et al. 2024's final normalization; identity when the model has none)."""
    fn = params.final_norm
    if fn is None:
        return v_D
    cfg = params.config
    return norms.apply_norm(cfg.final_norm, v_D, fn.scale, fn.bias, cfg.norm_eps)


def norm1_map(layer: LayerParams, cfg: ModelConfig) -> Callable[[jax.Array], jax.Array]:
    """The layer's ``norm1`` as a token-wise map (identity when it has none)."""
    if layer.norm1 is None:
        return lambda x: x
    n1 = layer.norm1
    return lambda x: norms.apply_norm(cfg.norm1, x, n1.scale, n1.bias, cfg.norm_eps)


def mlp_map(layer: LayerParams, cfg: ModelConfig) -> Callable[[jax.Array], jax.Array]:
    """``z -> z + psi(norm2(z))`` on one token ``z_D`` (identity when the layer has no MLP)."""
    if layer.mlp is None:
        return lambda z: z

    def fn(z_D: jax.Array) -> jax.Array:
        u = z_D
        if layer.norm2 is not None:
            n2 = layer.norm2
            u = norms.apply_norm(cfg.norm2, u, n2.scale, n2.bias, cfg.norm_eps)
        return z_D + mlp(layer.mlp, u[None, :], cfg.mlp_activation)[0]

    return fn
