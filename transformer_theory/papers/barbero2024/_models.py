"""Barbero et al. 2024, §2's model: a causal Pre-LN transformer, its random instances, its size,
and the token-wise maps of one layer that the collapse and over-squashing derivations use.

- :func:`causal_pre_ln_config`: the model as a :class:`~transformer_theory.params.ModelConfig`
  (causal softmax attention, ``norm1`` before attention, an MLP ``psi`` after ``norm2``, the
  final ``norm3``), with a positional code from :data:`POSITIONAL`;
- :func:`random_model`: a random float64 instance; :func:`model_bytes`: its size from the sizes
  alone (a command checks it before building anything);
- :func:`final_norm`, :func:`norm1_map`, :func:`mlp_map`: ``norm3``, ``norm1`` and
  ``z -> z + psi(norm2(z))`` as maps of one token;
- :func:`check_grid`, :func:`model_grid`, :func:`check_model_size`: the grid of random models
  the ``collapse`` and ``oversquash`` studies measure (depths x heads x positional codes x seeds),
  its fields checked and its largest model's size refused before anything is built.

Shape letters: :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import norms
from transformer_theory.core.layers import mlp
from transformer_theory.params import LayerParams, ModelConfig, ModelParams, init_params
from transformer_theory.precision import require_x64

__all__ = [
    "POSITIONAL",
    "GridModel",
    "check_distinct",
    "check_grid",
    "check_model_size",
    "largest_per_code",
    "model_grid",
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
    """A random float64 model of ``config`` (entries ``N(0, 1/d')``, norms at gain 1, bias 0);
    needs JAX's 64-bit mode (:func:`transformer_theory.precision.enable_x64`)."""
    require_x64("random_model")
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


# --- the grid of models of a study ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class GridModel:
    """One model of a grid: ``name`` (``L{depth}_H{heads}_{positional}_seed{seed}``), its
    ``labels`` (``depth``, ``heads``, ``positional``, ``seed``) and its ``config``."""

    name: str
    labels: dict
    config: ModelConfig


def check_distinct(name: str, values: Sequence) -> None:
    """ValueError naming ``name`` when a value of ``values`` is repeated."""
    repeated = sorted({v for v in values if list(values).count(v) > 1}, key=str)
    if repeated:
        raise ValueError(f"{name}: {', '.join(map(str, repeated))} given more than once")


def check_grid(
    depths: Sequence[int],
    heads: Sequence[int],
    positionals: Sequence[str],
    seeds: Sequence[int],
    width: int,
) -> None:
    """ValueError naming the argument (``depths: expected integers >= 1``, ``width: d' must be at
    least ...``) unless every axis of the grid holds distinct valid values and ``width`` fits
    every positional code (checked on one-layer configs: nothing is built)."""
    axes = dict(depths=depths, heads=heads, positionals=positionals, seeds=seeds)
    for name, values in axes.items():
        if not values:
            raise ValueError(f"{name}: expected at least one value")
        check_distinct(
            name, values
        )  # a repeated value would measure one model twice under one name
    for name in ("depths", "heads"):
        if min(axes[name]) < 1:
            raise ValueError(f"{name}: expected integers >= 1, got {axes[name]}")
    if min(seeds) < 0 or max(seeds) >= 2**32:
        raise ValueError(f"seeds: expected integers in 0..2**32 - 1, got {seeds}")
    for p in positionals:
        if p not in POSITIONAL:
            raise ValueError(f"positionals: unknown {p!r}; choose from {', '.join(POSITIONAL)}")
    if width < 1:
        raise ValueError(f"width: expected a positive integer, got {width}")
    for p in positionals:
        causal_pre_ln_config(1, 1, p, width=width)  # "width: d' must be at least ..."


def check_model_size(depth: int, heads: int, width: int) -> float:
    """Refuse (BudgetError naming ``depth/heads/width``) a model that cannot be held, from its
    sizes alone (:func:`model_bytes`): BEFORE any config is built, since the config of ``depth =
    10^12`` is itself a tuple of ``10^12`` head counts. Returns the estimate in bytes."""
    return _check_model_bytes(depth, heads, width, "depth/heads/width")


def _check_model_bytes(depth: int, heads: int, width: int, names: str) -> float:
    from transformer_theory import budget

    estimate = model_bytes(depth, heads, width=width)
    return budget.check_memory(
        float(estimate) if estimate < 2**1000 else float("inf"),  # float(10^400) overflows
        what=f"the float64 model of {depth} layer(s) x {heads} head(s) at width {width}",
        option=names,
    )


def model_grid(
    depths: Sequence[int],
    heads: Sequence[int],
    positionals: Sequence[str],
    seeds: Sequence[int],
    width: int,
) -> list[GridModel]:
    """Every model of the grid (depth, then heads, positional code, seed), the largest's size
    checked first (BudgetError naming ``depths/heads/width``, :func:`check_model_size`)."""
    _check_model_bytes(max(depths), max(heads), width, "depths/heads/width")
    grid = []
    for depth in depths:
        for h in heads:
            for pos in positionals:
                cfg = causal_pre_ln_config(depth, h, pos, width=width)
                for seed in seeds:
                    labels = dict(depth=depth, heads=h, positional=pos, seed=seed)
                    grid.append(GridModel(f"L{depth}_H{h}_{pos}_seed{seed}", labels, cfg))
    return grid


def largest_per_code(grid: Sequence[GridModel]) -> list[ModelConfig]:
    """The config of the largest (depth, heads) per positional code: one compile each."""
    biggest: dict[str, ModelConfig] = {}
    for model in grid:
        key, cfg = model.labels["positional"], model.config
        if key not in biggest or (cfg.depth, max(cfg.heads)) > (
            biggest[key].depth,
            max(biggest[key].heads),
        ):
            biggest[key] = cfg
    return list(biggest.values())
