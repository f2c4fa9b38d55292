"""The Post-LN encoder-decoder of Conti 2024 (§1.1-1.2) as a Flax NNX module over the core's math.

:class:`EncoderDecoder` stores exactly the arrays of a
:class:`~transformer_theory.core.encdec.Seq2SeqParams` (the functional side's one parameter
format: the module holds that very pytree, each array an ``nnx.Param``) plus a static
:class:`Seq2SeqConfig`. It has no math of its own: ``__call__`` rebuilds the ``Seq2SeqParams``
view (:func:`to_params`) and calls :func:`transformer_theory.core.encdec.seq2seq_logits` --
sinusoidal positions, Post-LN encoder blocks, masked (causal) decoder self-attention and
cross-attention --, vmapped over the batch. :func:`attention_maps` returns every head's map of one
sentence pair (encoder self-attention, decoder self-attention, cross-attention), the input of the
head analysis of Conti 2024, §3.1.

Shapes follow :mod:`transformer_theory.glossary` (``B`` batch, ``N`` source positions, ``T``
target positions, ``V`` vocabulary, ``H`` heads, ``L`` layers).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
from flax import nnx

from transformer_theory import _validate
from transformer_theory.core import encdec

NORMS = ("layernorm_sigma", "layernorm", "rmsnorm")
# One compiled program per shape: drawing the ~30 arrays op by op compiles each op separately.
_init_seq2seq = jax.jit(
    encdec.init_seq2seq, static_argnums=(1, 2, 3, 4, 5), static_argnames="dtype"
)


@dataclasses.dataclass(frozen=True)
class Seq2SeqConfig:
    """Static description of an encoder-decoder (Conti 2024, §1.2.2: d = 512, H = 8, m = 2048,
    L = 6; ours are small).

    Attributes:
      vocab_size: one vocabulary for source and target (the embedding is shared).
      width: model width ``d`` (even: the sinusoidal code pairs coordinates).
      num_heads: heads of every attention (``width`` must be a multiple of it).
      ffn_hidden: feed-forward width ``m``.
      num_layers: encoder blocks, and as many decoder blocks.
      norm: ``"layernorm_sigma"`` (Conti 2024, eq. 2: ``(z - mu) / (sigma + eps)``),
        ``"layernorm"`` or ``"rmsnorm"``.
    """

    vocab_size: int
    width: int = 64
    num_heads: int = 1
    ffn_hidden: int = 128
    num_layers: int = 1
    norm: str = "layernorm_sigma"

    def __post_init__(self):
        for name in ("vocab_size", "width", "num_heads", "ffn_hidden", "num_layers"):
            _validate.check_positive(name, getattr(self, name))
        if self.width % 2:
            raise ValueError(f"width: the sinusoidal code needs an even width, got {self.width}")
        if self.width % self.num_heads:
            raise ValueError(f"num_heads: must divide width = {self.width}, got {self.num_heads}")
        _validate.check_choice("norm", self.norm, NORMS)

    def replace(self, **changes: Any) -> Seq2SeqConfig:
        return dataclasses.replace(self, **changes)


def check_params(params: encdec.Seq2SeqParams, config: Seq2SeqConfig) -> None:
    """Raise a ``ValueError`` naming the field when ``params`` does not have ``config``'s shapes."""
    if not isinstance(params, encdec.Seq2SeqParams):
        raise ValueError(f"params: expected a Seq2SeqParams, got {type(params).__name__}")
    V, D, H = config.vocab_size, config.width, config.num_heads
    _validate.check_shape("params.embed", params.embed, (V, D))
    _validate.check_shape("params.w_p", params.w_p, (D, V))
    for side, blocks in (("encoder", params.encoder), ("decoder", params.decoder)):
        if len(blocks) != config.num_layers:
            raise ValueError(
                f"params.{side}: config has {config.num_layers} layers, params have {len(blocks)}"
            )
        for i, b in enumerate(blocks):
            attn = b.attn if side == "encoder" else b.self_attn
            _validate.check_shape(f"params.{side}[{i}] w_q", attn.w_q, (H, D, D // H))
            _validate.check_shape(f"params.{side}[{i}] ffn.w1", b.ffn.w1, (config.ffn_hidden, D))


class EncoderDecoder(nnx.Module):
    """Conti 2024's encoder-decoder (Fig. 2): a :class:`Seq2SeqParams` held in ``nnx.Param`` leaves.

    Build it from a config and random streams (``EncoderDecoder(config, rngs=nnx.Rngs(0))``) or
    from existing parameters (``EncoderDecoder(config, params=p)``, same as :func:`from_params`).
    """

    def __init__(
        self,
        config: Seq2SeqConfig,
        *,
        rngs: nnx.Rngs | None = None,
        params: encdec.Seq2SeqParams | None = None,
        dtype=jnp.float32,
    ):
        if not isinstance(config, Seq2SeqConfig):
            raise ValueError(f"config: expected a Seq2SeqConfig, got {type(config).__name__}")
        if params is None:
            if rngs is None:
                raise ValueError("rngs: needed to draw random parameters when params is None")
            params = _init_seq2seq(
                rngs.params(),
                config.vocab_size,
                config.width,
                config.num_heads,
                config.ffn_hidden,
                config.num_layers,
                dtype=dtype,
            )
        check_params(params, config)
        self.config = config
        self.params = nnx.data(jax.tree.map(lambda x: nnx.Param(jnp.asarray(x)), params))

    def __call__(self, src_BxN: jax.Array, tgt_in_BxT: jax.Array) -> jax.Array:
        """Next-token logits ``(B, T, V)`` under teacher forcing: row ``t`` scores the token after
        ``tgt_in_BxT[:, : t + 1]`` (``core.encdec.seq2seq_logits``)."""
        _validate.check_ndim("src_BxN", src_BxN, 2)
        _validate.check_ndim("tgt_in_BxT", tgt_in_BxT, 2)
        if src_BxN.shape[0] != tgt_in_BxT.shape[0]:
            raise ValueError(
                f"tgt_in_BxT: expected {src_BxN.shape[0]} rows like src_BxN, got {tgt_in_BxT.shape}"
            )
        p = to_params(self)
        norm = self.config.norm
        return jax.vmap(lambda s, t: encdec.seq2seq_logits(p, s, t, norm=norm))(src_BxN, tgt_in_BxT)


def to_params(module: EncoderDecoder) -> encdec.Seq2SeqParams:
    """The :class:`Seq2SeqParams` view of ``module``: the same arrays, no copy."""
    if not isinstance(module, EncoderDecoder):
        raise ValueError(f"module: expected an EncoderDecoder, got {type(module).__name__}")
    return jax.tree.map(
        lambda v: v[...], module.params, is_leaf=lambda x: isinstance(x, nnx.Variable)
    )


def from_params(params: encdec.Seq2SeqParams, config: Seq2SeqConfig) -> EncoderDecoder:
    """An :class:`EncoderDecoder` holding exactly ``params``' arrays."""
    return EncoderDecoder(config, params=params)


def attention_maps(
    params: encdec.Seq2SeqParams, src_N: jax.Array, tgt_in_T: jax.Array, **kwargs: Any
) -> dict[str, jax.Array]:
    """Every head's attention weights for one sentence pair (rows = queries, columns = keys).

    Runs the same blocks as :func:`~transformer_theory.core.encdec.seq2seq_logits` and keeps their
    weights. Returns ``{"encoder": (L, H, N, N), "decoder": (L, H, T, T), "cross": (L, H, T, N)}``.
    """
    _validate.check_ndim("src_N", src_N, 1)
    _validate.check_ndim("tgt_in_T", tgt_in_T, 1)
    x = encdec.seq2seq_embed(params.embed, src_N)
    enc = []
    for b in params.encoder:
        x, w = encdec.encoder_block(b, x, **kwargs)
        enc.append(w)
    y = encdec.seq2seq_embed(params.embed, tgt_in_T)
    dec, cross = [], []
    for b in params.decoder:
        y, (ws, wc) = encdec.decoder_block(b, y, x, **kwargs)
        dec.append(ws)
        cross.append(wc)
    return {"encoder": jnp.stack(enc), "decoder": jnp.stack(dec), "cross": jnp.stack(cross)}
