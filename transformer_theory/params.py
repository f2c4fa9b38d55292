"""The one parameter format: a pytree every model maker produces and every consumer reads.

Random initialization (:func:`init_params`), the constructions of Chen & Zou 2024, trained Flax NNX
modules and the verifier all speak :class:`ModelParams`. A batch of ``M`` models is the same
pytree with a leading axis of size ``M`` on every array leaf (see :func:`stack_params`), so
``jax.vmap(forward, in_axes=(0, None))`` evaluates many models at once.

Conventions (Chen & Zou 2024, §3.1, eq. 2), in the library's row-major layout ``H: (n, D)``:

- ``w_qk[h]`` is the paper's ``W_QK`` of head ``h``: the score of query position ``i`` for key
  position ``j`` is ``h_j^T W_QK h_i`` (the paper's ``sigma(H^T W_QK H)[j, i]``, whose column ``i``
  is the attention of position ``i``). Constructions copy the paper's matrices verbatim.
- Alternatively (``ModelConfig.qk_dim`` set), ``w_q[h], w_k[h]: (E, D)`` and the score is
  ``(W_Q h_i) . (W_K h_j)`` -- needed for RoPE, which rotates queries and keys separately.
- ``w_v[h]: (D, D)`` maps a key's stream ``h_j`` to ``W_V h_j``; the layer adds the mean over heads.
- ``w_o: (C, D)`` is the classifier: ``o = W_O h_{n-1}``.

Shape letters as in :mod:`transformer_theory.glossary`: ``L`` layers, ``H`` heads in a layer, ``D``
width ``d'``, ``E`` query/key width, ``F`` MLP hidden width, ``C`` classes, ``V`` vocabulary size
``d``, ``N`` sequence length ``n``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
from jax.typing import DTypeLike

from transformer_theory import _validate

ATTENTION_KINDS = ("relu", "softmax", "hard_leftmost", "hard_average", "sparsemax")
NORM_KINDS = (None, "layernorm", "layernorm_sigma", "rmsnorm")
POSITIONAL_KINDS = ("onehot", "sinusoidal", "svete", "none", "ngram_window", "chiang_cholak")
RELATIVE_KINDS = (None, "alibi", "rope")
MLP_ACTIVATIONS = ("relu", "gelu")


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """Static description of a model; hashable, so it can be a ``static_argnames`` of ``jit``.

    Attributes:
      vocab_size: ``d``, the number of token ids (Chen & Zou 2024 counts the response sign among
        them).
      seq_len: ``n``, the sequence length the positional encoding is laid out for.
      width: ``d'``, the residual-stream width; must hold the token one-hot plus the positional
        code.
      num_classes: ``C``, the classifier size.
      heads: heads per layer, e.g. ``(1, 1)`` for two single-head layers; ``len(heads)`` is the
        depth.
      attention: ``"relu"`` (Chen & Zou 2024, eq. 2), ``"softmax"``,
        ``"hard_leftmost"``/``"hard_average"``
        (Strobl et al. 2024), applied over keys for each query.
      scale_scores: multiply scores by ``1/sqrt(E)`` (Conti 2024); off in Chen & Zou 2024.
      causal: restrict query ``i`` to keys ``j <= i``. Chen & Zou's layer is bidirectional (False).
      head_mean: Chen & Zou 2024 averages heads (``1/m`` sum); False sums them.
      positional: the absolute code written into the embedding (``"onehot"`` is Chen & Zou 2024, eq.
        3).
      relative: an extra relative-position term: ALiBi bias or RoPE (RoPE needs ``qk_dim``).
      qk_dim: if set, queries and keys are factored (``w_q, w_k: (H, E, D)``) instead of ``w_qk``.
      norm1: token-wise norm applied to the stream before attention (Barbero et al.'s ``norm1``,
        Pre-LN).
      mlp_hidden: if set, an MLP ``psi`` after ``norm2`` with this hidden width (Barbero et al.
        2024).
      norm2: norm before the MLP.
      final_norm: Barbero et al.'s ``norm3`` before the classifier.
      mlp_activation: ``"relu"`` or ``"gelu"``.
      norm_eps: epsilon of every norm.
      positional_window: offsets of the ``"svete"`` code / window of ``"ngram_window"`` (Svete &
        Cotterell 2024: ``n - 1`` for an n-gram LM); 1 keeps the single ``"svete"`` pair.
      causal_lm: a causal language model (Svete & Cotterell 2024) instead of a classifier: the
        input ids are ``Sigma = [0, vocab_size - 1)`` plus ``BOS = vocab_size - 1``; the output at
        EVERY position is a distribution over ``Sigma`` plus ``EOS = num_classes - 1`` (so
        ``num_classes == vocab_size``), read by :func:`transformer_theory.core.forward_all` and
        :func:`transformer_theory.core.lm_log_probs`. Needs ``causal=True``.
      bos_pad: how many BOS tokens precede a string of a ``causal_lm`` (``n - 1`` for the n-gram
        constructions, so every history is BOS-padded).
    """

    vocab_size: int
    seq_len: int
    width: int
    num_classes: int
    heads: tuple[int, ...] = (1,)
    attention: str = "relu"
    scale_scores: bool = False
    causal: bool = False
    head_mean: bool = True
    positional: str = "onehot"
    relative: str | None = None
    qk_dim: int | None = None
    norm1: str | None = None
    mlp_hidden: int | None = None
    norm2: str | None = None
    final_norm: str | None = None
    mlp_activation: str = "relu"
    norm_eps: float = 1e-5
    positional_window: int = 1
    causal_lm: bool = False
    bos_pad: int = 1

    def __post_init__(self):
        object.__setattr__(self, "heads", tuple(int(h) for h in self.heads))
        for name in ("vocab_size", "seq_len", "width", "num_classes"):
            _validate.check_positive(name, getattr(self, name))
        if not self.heads:
            raise ValueError("heads: expected at least one layer, got an empty list")
        for h in self.heads:
            _validate.check_positive("heads", h)
        _validate.check_choice("attention", self.attention, ATTENTION_KINDS)
        _validate.check_choice("positional", self.positional, POSITIONAL_KINDS)
        _validate.check_choice("relative", self.relative, RELATIVE_KINDS)
        for name in ("norm1", "norm2", "final_norm"):
            _validate.check_choice(name, getattr(self, name), NORM_KINDS)
        _validate.check_choice("mlp_activation", self.mlp_activation, MLP_ACTIVATIONS)
        if self.qk_dim is not None:
            _validate.check_positive("qk_dim", self.qk_dim)
        if self.relative == "rope" and (self.qk_dim is None or self.qk_dim % 2):
            raise ValueError(
                "qk_dim: RoPE rotates pairs of query/key coordinates and needs an even "
                f"qk_dim, got {self.qk_dim}"
            )
        if self.mlp_hidden is not None:
            _validate.check_positive("mlp_hidden", self.mlp_hidden)
        _validate.check_positive("positional_window", self.positional_window)
        _validate.check_positive("bos_pad", self.bos_pad)
        if self.causal_lm and not self.causal:
            raise ValueError("causal_lm: a language model needs causal=True")
        if self.causal_lm and self.num_classes != self.vocab_size:
            raise ValueError(
                "num_classes: a causal_lm predicts Sigma + EOS and reads Sigma + BOS, so "
                f"num_classes must equal vocab_size = {self.vocab_size}, got {self.num_classes}"
            )
        if self.width < self.embed_dim:
            raise ValueError(
                f"width: d' must be at least d + p = {self.vocab_size} + {self.pos_dim} "
                f"= {self.embed_dim} "
                f"(tokens, then the {self.positional!r} positional code), got {self.width}"
            )

    @property
    def depth(self) -> int:
        return len(self.heads)

    @property
    def pos_dim(self) -> int:
        """Width of the absolute positional code inside the embedding."""
        from transformer_theory.core import positional

        return positional.code_dim(
            self.positional, self.seq_len, window=self.positional_window, vocab_size=self.vocab_size
        )

    @property
    def embed_dim(self) -> int:
        return embed_dim(self.vocab_size, self.seq_len, self.positional)

    def replace(self, **changes: Any) -> ModelConfig:
        return dataclasses.replace(self, **changes)


def config_dict(config: ModelConfig) -> dict[str, Any]:
    """A :class:`ModelConfig` as a JSON-ready dictionary (``ModelConfig(**d)`` rebuilds it)."""
    d = dataclasses.asdict(config)
    d["heads"] = list(d["heads"])
    return d


def embed_dim(vocab_size: int, seq_len: int, positional: str = "onehot") -> int:
    """Width ``d + p`` of the embedding: one-hot tokens, then the absolute positional code.

    The smallest ``width`` a :class:`ModelConfig` with these settings accepts.
    """
    from transformer_theory.core import positional as positional_codes

    return vocab_size + positional_codes.code_dim(positional, seq_len)


@flax.struct.dataclass
class NormParams:
    """Gain ``scale: (D,)`` and ``bias: (D,)`` of a token-wise norm."""

    scale: jax.Array
    bias: jax.Array


@flax.struct.dataclass
class MLPParams:
    """``psi(x) = w2 act(w1 x + b1) + b2`` with ``w1: (F, D)``, ``b1: (F,)``, ``w2: (D, F)``, ``b2:
    (D,)``."""

    w1: jax.Array
    b1: jax.Array
    w2: jax.Array
    b2: jax.Array


@flax.struct.dataclass
class AttentionParams:
    """One multi-head attention layer. Either ``w_qk: (H, D, D)`` or ``w_q, w_k: (H, E, D)``; ``w_v:
    (H, D, D)``."""

    w_v: jax.Array
    w_qk: jax.Array | None = None
    w_q: jax.Array | None = None
    w_k: jax.Array | None = None


@flax.struct.dataclass
class LayerParams:
    attn: AttentionParams
    norm1: NormParams | None = None
    norm2: NormParams | None = None
    mlp: MLPParams | None = None


@flax.struct.dataclass
class ModelParams:
    """All parameters of a model plus its static :class:`ModelConfig` (not a pytree leaf)."""

    layers: tuple[LayerParams, ...]
    w_o: jax.Array
    final_norm: NormParams | None = None
    config: ModelConfig = flax.struct.field(pytree_node=False, default=None)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Leading axes shared by all leaves beyond a single model's shapes (``()`` for one
        model)."""
        return tuple(self.w_o.shape[:-2])


def _norm_init(kind, width, dtype):
    if kind is None:
        return None
    return NormParams(scale=jnp.ones((width,), dtype), bias=jnp.zeros((width,), dtype))


def init_params(
    key: jax.Array,
    config: ModelConfig,
    *,
    dtype: DTypeLike = jnp.float32,
    scheme: str = "normal",
    scale: float = 1.0,
) -> ModelParams:
    """Random parameters for ``config``.

    Args:
      key: a PRNG key.
      config: the model description.
      dtype: float32 or float64 (needs ``jax_enable_x64``).
      scheme: ``"normal"`` -- entries ``N(0, scale^2 / D)``, a generic random model;
        ``"paper"`` -- Chen & Zou 2024, §9.1: every ``W_QK`` and ``W_O`` uniform in ``[0, 1)`` and
        every
        ``W_V`` equal to the all-ones matrix ("initialize W_V ... with a value of 1").
      scale: standard-deviation multiplier for ``"normal"``.

    Returns:
      A :class:`ModelParams` for one model.
    """
    _validate.check_choice("scheme", scheme, ("normal", "paper"))
    if not jnp.issubdtype(dtype, jnp.floating):
        raise ValueError(f"dtype: expected a floating dtype, got {dtype}")
    if not isinstance(config, ModelConfig):
        raise ValueError(f"config: expected a ModelConfig, got {type(config).__name__}")
    # One compiled program per (config, dtype, scheme): eager jax.random calls compile once per
    # shape, which made model creation the slowest step of short scripts and tests.
    return _init_params_jit(key, config, jnp.dtype(dtype), scheme, scale)


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def _init_params_jit(key, config: ModelConfig, dtype, scheme: str, scale) -> ModelParams:
    D, C = config.width, config.num_classes
    std = scale / jnp.sqrt(D)

    def normal(k, shape):
        return (std * jax.random.normal(k, shape)).astype(dtype)

    def uniform(k, shape):
        return jax.random.uniform(k, shape, dtype=dtype)

    layers = []
    keys = jax.random.split(key, config.depth + 1)
    for layer_key, H in zip(keys[:-1], config.heads):
        kq, kk, kv, k1, k2 = jax.random.split(layer_key, 5)
        if scheme == "paper":
            w_v = jnp.ones((H, D, D), dtype)
            qk_fn = uniform
        else:
            w_v = normal(kv, (H, D, D))
            qk_fn = normal
        if config.qk_dim is None:
            attn = AttentionParams(w_v=w_v, w_qk=qk_fn(kq, (H, D, D)))
        else:
            E = config.qk_dim
            attn = AttentionParams(w_v=w_v, w_q=qk_fn(kq, (H, E, D)), w_k=qk_fn(kk, (H, E, D)))
        mlp = None
        if config.mlp_hidden is not None:
            F = config.mlp_hidden
            mlp = MLPParams(
                w1=(jax.random.normal(k1, (F, D)) * scale / jnp.sqrt(D)).astype(dtype),
                b1=jnp.zeros((F,), dtype),
                w2=(jax.random.normal(k2, (D, F)) * scale / jnp.sqrt(F)).astype(dtype),
                b2=jnp.zeros((D,), dtype),
            )
        layers.append(
            LayerParams(
                attn=attn,
                norm1=_norm_init(config.norm1, D, dtype),
                norm2=_norm_init(config.norm2 if config.mlp_hidden is not None else None, D, dtype),
                mlp=mlp,
            )
        )
    w_o = uniform(keys[-1], (C, D)) if scheme == "paper" else normal(keys[-1], (C, D))
    return ModelParams(
        layers=tuple(layers),
        w_o=w_o,
        final_norm=_norm_init(config.final_norm, D, dtype),
        config=config,
    )


def init_params_batch(
    key: jax.Array, config: ModelConfig, num_models: int, **kwargs: Any
) -> ModelParams:
    """``num_models`` independent random models stacked on a leading axis (vmap-ready)."""
    _validate.check_positive("num_models", num_models)
    keys = jax.random.split(key, num_models)
    return jax.vmap(lambda k: init_params(k, config, **kwargs))(keys)


def stack_params(models: Sequence[ModelParams]) -> ModelParams:
    """Stack models that share one config into a batch with a leading model axis."""
    if not models:
        raise ValueError("models: expected at least one model")
    configs = {m.config for m in models}
    if len(configs) != 1:
        raise ValueError(
            f"models: all models must share one ModelConfig, got {len(configs)} different ones"
        )
    return jax.tree.map(lambda *xs: jnp.stack(xs), *models)


def unstack_params(batch: ModelParams) -> list[ModelParams]:
    """Inverse of :func:`stack_params`."""
    if not batch.batch_shape:
        raise ValueError(
            "batch: expected a batch of models with a leading axis, got a single model"
        )
    m = batch.batch_shape[0]
    return [jax.tree.map(lambda x, i=i: x[i], batch) for i in range(m)]


def cast_params(params: ModelParams, dtype: DTypeLike) -> ModelParams:
    """Cast every array leaf to ``dtype`` (e.g. float64 for exact verification)."""
    return jax.tree.map(lambda x: jnp.asarray(x, dtype), params)


def validate_params(params: ModelParams, *, finite: bool = False) -> None:
    """Raise a ``ValueError`` naming the offending field if ``params`` disagrees with its config.

    The one check of a :class:`ModelParams` against its :class:`ModelConfig`, used by every entry
    that reads weights (the forward pass, the exact engine, the certificates, the model files):
    the depth, every head count, every array's shape (a leading batch axis shared by all leaves
    is allowed), and the presence of each optional norm / MLP. With ``finite`` (the exact and
    certifying entries), every concrete weight must also be finite: a NaN or inf weight has no
    rational value and would make every figure derived from it meaningless. Tracers (under
    ``jit``/``vmap``) are only shape-checked.
    """
    if not isinstance(params, ModelParams):
        raise ValueError(f"params: expected a ModelParams, got {type(params).__name__}")
    cfg = params.config
    if not isinstance(cfg, ModelConfig):
        raise ValueError("params.config: a ModelParams must carry its ModelConfig")
    if not hasattr(params.w_o, "shape") or len(params.w_o.shape) < 2:
        raise ValueError(
            f"params.w_o: expected a ({cfg.num_classes}, {cfg.width}) array, got "
            f"{getattr(params.w_o, 'shape', type(params.w_o).__name__)}"
        )
    bs = params.batch_shape
    D, C = cfg.width, cfg.num_classes
    _validate.check_shape("params.w_o", params.w_o, (*bs, C, D))
    if not isinstance(params.layers, (tuple, list)) or len(params.layers) != cfg.depth:
        got = len(params.layers) if isinstance(params.layers, (tuple, list)) else params.layers
        raise ValueError(
            f"params.layers: config has depth {cfg.depth} (heads={cfg.heads}), "
            f"params have {got} layers"
        )
    named: list[tuple[str, Any]] = [("params.w_o", params.w_o)]
    for li, (layer, H) in enumerate(zip(params.layers, cfg.heads)):
        where = f"params.layers[{li}]"
        a = layer.attn
        _validate.check_shape(f"{where}.attn.w_v", a.w_v, (*bs, H, D, D))
        named.append((f"{where}.attn.w_v", a.w_v))
        if cfg.qk_dim is None:
            if a.w_qk is None:
                raise ValueError(f"{where}.attn.w_qk: required when config.qk_dim is None")
            _validate.check_shape(f"{where}.attn.w_qk", a.w_qk, (*bs, H, D, D))
            named.append((f"{where}.attn.w_qk", a.w_qk))
        else:
            for nm in ("w_q", "w_k"):
                w = getattr(a, nm)
                if w is None:
                    raise ValueError(f"{where}.attn.{nm}: required when config.qk_dim is set")
                _validate.check_shape(f"{where}.attn.{nm}", w, (*bs, H, cfg.qk_dim, D))
                named.append((f"{where}.attn.{nm}", w))
        if (layer.mlp is None) != (cfg.mlp_hidden is None):
            raise ValueError(f"{where}.mlp: presence must match config.mlp_hidden={cfg.mlp_hidden}")
        if layer.mlp is not None:
            F = cfg.mlp_hidden
            for nm, shape in (("w1", (F, D)), ("b1", (F,)), ("w2", (D, F)), ("b2", (D,))):
                w = getattr(layer.mlp, nm)
                _validate.check_shape(f"{where}.mlp.{nm}", w, (*bs, *shape))
                named.append((f"{where}.mlp.{nm}", w))
        if (layer.norm1 is None) != (cfg.norm1 is None):
            raise ValueError(f"{where}.norm1: presence must match config.norm1={cfg.norm1!r}")
        if layer.norm2 is not None and (cfg.norm2 is None or layer.mlp is None):
            raise ValueError(
                f"{where}.norm2: present, but config.norm2={cfg.norm2!r} and "
                f"config.mlp_hidden={cfg.mlp_hidden} (a norm2 precedes an MLP)"
            )
        for nm in ("norm1", "norm2"):
            norm = getattr(layer, nm)
            if norm is not None:
                named += _norm_leaves(f"{where}.{nm}", norm, bs, D)
    if (params.final_norm is None) != (cfg.final_norm is None):
        raise ValueError(
            f"params.final_norm: presence must match config.final_norm={cfg.final_norm!r}"
        )
    if params.final_norm is not None:
        named += _norm_leaves("params.final_norm", params.final_norm, bs, D)
    if finite:
        for name, w in named:
            _validate.check_finite(name, w)


def _norm_leaves(where: str, norm: NormParams, bs: tuple[int, ...], D: int) -> list:
    for nm in ("scale", "bias"):
        _validate.check_shape(f"{where}.{nm}", getattr(norm, nm), (*bs, D))
    return [(f"{where}.scale", norm.scale), (f"{where}.bias", norm.bias)]
