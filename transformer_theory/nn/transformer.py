"""The attention-only transformer of Chen & Zou 2024 (eq. 1-3) as a Flax NNX module.

The module stores exactly the arrays of :class:`~transformer_theory.params.ModelParams` (same names,
same shapes, same dtypes) as ``nnx.Param`` leaves, plus the static, hashable
:class:`~transformer_theory.params.ModelConfig`. It has no math of its own: ``__call__`` builds the
``ModelParams`` view (:func:`to_params`) and calls :func:`transformer_theory.core.forward`, vmapped
over the batch. Any depth, heads per layer as a list, ReLU/softmax/hard attention, optional norms
and MLP -- whatever ``ModelConfig`` describes.

Shapes use the letters of :mod:`transformer_theory.glossary` (``B`` batch, ``N`` sequence length,
``D`` width ``d'``, ``H`` heads of a layer, ``E`` query/key width, ``F`` MLP hidden width, ``C``
classes).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx

from transformer_theory import _validate
from transformer_theory.core.forward import ForwardTrace, forward, forward_trace
from transformer_theory.params import (
    AttentionParams,
    LayerParams,
    MLPParams,
    ModelConfig,
    ModelParams,
    NormParams,
    init_params,
    validate_params,
)


def _param(x):
    return None if x is None else nnx.Param(jnp.asarray(x))


def _value(p):
    return None if p is None else p[...]


class AttentionLayer(nnx.Module):
    """One layer's trainable arrays, named as in :class:`~transformer_theory.params.LayerParams`.

    ``w_v (H,D,D)``; ``w_qk (H,D,D)`` or ``w_q, w_k (H,E,D)``; optional ``norm1_scale/bias (D,)``,
    ``norm2_scale/bias (D,)`` and MLP ``w1 (F,D), b1 (F,), w2 (D,F), b2 (D,)``. Absent parts are
    None.
    """

    def __init__(self, layer: LayerParams):
        a = layer.attn
        self.w_v = _param(a.w_v)
        self.w_qk = _param(a.w_qk)
        self.w_q = _param(a.w_q)
        self.w_k = _param(a.w_k)
        self.norm1_scale = _param(None if layer.norm1 is None else layer.norm1.scale)
        self.norm1_bias = _param(None if layer.norm1 is None else layer.norm1.bias)
        self.norm2_scale = _param(None if layer.norm2 is None else layer.norm2.scale)
        self.norm2_bias = _param(None if layer.norm2 is None else layer.norm2.bias)
        m = layer.mlp
        self.mlp_w1 = _param(None if m is None else m.w1)
        self.mlp_b1 = _param(None if m is None else m.b1)
        self.mlp_w2 = _param(None if m is None else m.w2)
        self.mlp_b2 = _param(None if m is None else m.b2)

    def to_layer_params(self) -> LayerParams:
        def norm(scale, bias):
            return None if scale is None else NormParams(scale=_value(scale), bias=_value(bias))

        mlp = None
        if self.mlp_w1 is not None:
            mlp = MLPParams(
                w1=_value(self.mlp_w1),
                b1=_value(self.mlp_b1),
                w2=_value(self.mlp_w2),
                b2=_value(self.mlp_b2),
            )
        return LayerParams(
            attn=AttentionParams(
                w_v=_value(self.w_v),
                w_qk=_value(self.w_qk),
                w_q=_value(self.w_q),
                w_k=_value(self.w_k),
            ),
            norm1=norm(self.norm1_scale, self.norm1_bias),
            norm2=norm(self.norm2_scale, self.norm2_bias),
            mlp=mlp,
        )


class Transformer(nnx.Module):
    """Chen & Zou's attention-only transformer ``TF = f_cls o TF_L o ... o TF_1`` (eq. 1).

    Build it from a config and a key (``Transformer(config, rngs=nnx.Rngs(0), scheme="paper")``) or
    from existing parameters (``Transformer(config, params=p)``, same as :func:`from_params`).

    Args:
      config: the static model description (depth = ``len(config.heads)``).
      rngs: random streams; ``rngs.params()`` seeds :func:`~transformer_theory.params.init_params`.
      params: use these parameters instead of a random draw (their config must equal ``config``).
      scheme: ``"normal"`` or ``"paper"`` (Chen & Zou 2024, §9.1), passed to ``init_params``.
      dtype: parameter dtype for a random draw.
    """

    def __init__(
        self,
        config: ModelConfig,
        *,
        rngs: nnx.Rngs | None = None,
        params: ModelParams | None = None,
        scheme: str = "normal",
        dtype=jnp.float32,
    ):
        if not isinstance(config, ModelConfig):
            raise ValueError(f"config: expected a ModelConfig, got {type(config).__name__}")
        if params is None:
            if rngs is None:
                raise ValueError("rngs: needed to draw random parameters when params is None")
            params = init_params(rngs.params(), config, dtype=dtype, scheme=scheme)
        elif params.config != config:
            raise ValueError(f"params: their config {params.config} differs from config {config}")
        validate_params(params)
        if params.batch_shape:
            raise ValueError(
                f"params: expected ONE model, got a batch of shape {params.batch_shape}"
            )
        self.config = config
        self.layers = nnx.List([AttentionLayer(layer) for layer in params.layers])
        self.w_o = nnx.Param(jnp.asarray(params.w_o))
        fn = params.final_norm
        self.final_norm_scale = _param(None if fn is None else fn.scale)
        self.final_norm_bias = _param(None if fn is None else fn.bias)

    def __call__(self, tokens_BxN: jax.Array) -> jax.Array:
        """Logits ``(B, C)``: ``o = W_O h^(L)_{n-1}`` for every sequence (Chen & Zou 2024, §3.1),
        via ``core.forward``."""
        _validate.check_ndim("tokens_BxN", tokens_BxN, 2)
        params = to_params(self)
        return jax.vmap(lambda t: forward(params, t))(tokens_BxN)

    def trace(self, tokens_N: jax.Array) -> ForwardTrace:
        """Logits, residual streams and attention maps of ONE sequence (``core.forward_trace``)."""
        return forward_trace(to_params(self), tokens_N)


def to_params(module: Transformer) -> ModelParams:
    """The :class:`ModelParams` view of ``module``: the same arrays (no copy), its config
    attached."""
    if not isinstance(module, Transformer):
        raise ValueError(f"module: expected a Transformer, got {type(module).__name__}")
    fn = None
    if module.final_norm_scale is not None:
        fn = NormParams(scale=_value(module.final_norm_scale), bias=_value(module.final_norm_bias))
    return ModelParams(
        layers=tuple(layer.to_layer_params() for layer in module.layers),
        w_o=_value(module.w_o),
        final_norm=fn,
        config=module.config,
    )


def from_params(params: ModelParams) -> Transformer:
    """A :class:`Transformer` holding exactly ``params``' arrays (e.g. a construction, to train
    from)."""
    if not isinstance(params, ModelParams):
        raise ValueError(f"params: expected a ModelParams, got {type(params).__name__}")
    if params.config is None:
        raise ValueError("params.config: a ModelParams must carry its ModelConfig")
    return Transformer(params.config, params=params)
