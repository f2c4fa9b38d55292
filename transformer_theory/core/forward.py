"""The functional forward pass of the attention-only transformer (Chen & Zou 2024, eq. 1-3) for ONE
sequence.

``forward(params, tokens_N)`` embeds (eq. 3), runs every layer, applies the optional final norm
(Barbero et al.'s ``norm3``) and returns the classifier output ``o = W_O h_{n-1}`` (Chen & Zou 2024,
§3.1).
Batch over sequences or models with ``jax.vmap`` at the call site; jit at the call site too.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import norms
from transformer_theory.core.layers import attention_layer
from transformer_theory.core.positional import embed_tokens
from transformer_theory.params import ModelParams


class ForwardTrace(NamedTuple):
    """Everything a forward pass computed.

    Attributes:
      logits_C: the classifier output ``o``.
      streams_LxNxD: residual streams ``H^(0) .. H^(L)`` stacked, ``L+1`` entries.
      attention: one ``(H_l, N, N)`` weight array per layer (``[h, i, j]``: query i, key j).
    """

    logits_C: jax.Array
    streams_LxNxD: jax.Array
    attention: tuple[jax.Array, ...]


def embed(params: ModelParams, tokens_N: jax.Array) -> jax.Array:
    """The Chen & Zou 2024, eq. 3 embedding for ``params.config`` in the params' dtype."""
    cfg = params.config
    return embed_tokens(tokens_N, cfg.vocab_size, cfg.width, cfg.positional, dtype=params.w_o.dtype)


def _inputs_to_stream(params: ModelParams, inputs) -> jax.Array:
    cfg = params.config
    if cfg is None:
        raise ValueError("params.config: a ModelParams must carry its ModelConfig")
    if params.batch_shape:
        raise ValueError(
            f"params: forward takes ONE model, got a batch of shape {params.batch_shape}; "
            "use jax.vmap(forward, in_axes=(0, None)) for many models"
        )
    if jnp.issubdtype(jnp.result_type(inputs), jnp.integer):
        _validate.check_ndim("inputs", inputs, 1)
        return embed(params, inputs)
    _validate.check_float("inputs", inputs)
    _validate.check_ndim("inputs", inputs, 2)
    if inputs.shape[-1] != cfg.width:
        raise ValueError(
            f"inputs: embeddings must have width d' = {cfg.width}, got shape {inputs.shape}"
        )
    return inputs.astype(params.w_o.dtype)


def forward_trace(
    params: ModelParams, inputs: jax.Array, mask_NxN: jax.Array | None = None
) -> ForwardTrace:
    """Run the model and return logits, all residual streams and all attention maps.

    Args:
      params: one model.
      inputs: token ids ``(n,)`` (embedded by eq. 3) or an embedding ``(n, d')``.
      mask_NxN: optional attention mask (True = may attend), e.g. padding.
    """
    h = _inputs_to_stream(params, inputs)
    cfg = params.config
    streams, maps = [h], []
    for layer in params.layers:
        h, w = attention_layer(layer, h, cfg, mask_NxN)
        streams.append(h)
        maps.append(w)
    last = h[-1]
    if params.final_norm is not None:
        last = norms.apply_norm(
            cfg.final_norm, last, params.final_norm.scale, params.final_norm.bias, cfg.norm_eps
        )
    logits = params.w_o @ last
    return ForwardTrace(logits, jnp.stack(streams), tuple(maps))


def forward(params: ModelParams, inputs: jax.Array, mask_NxN: jax.Array | None = None) -> jax.Array:
    """Classifier output ``o_C = W_O h^(L)_{n-1}`` (Chen & Zou 2024, §3.1) for one sequence."""
    return forward_trace(params, inputs, mask_NxN).logits_C


def last_hidden(params: ModelParams, inputs: jax.Array, layer: int | None = None) -> jax.Array:
    """The last-token stream ``h^(l)_{n-1}`` after ``layer`` layers (default: all, before the final
    norm)."""
    tr = forward_trace(params, inputs)
    idx = params.config.depth if layer is None else layer
    if not 0 <= idx <= params.config.depth:
        raise ValueError(f"layer: expected 0..{params.config.depth}, got {layer}")
    return tr.streams_LxNxD[idx, -1]


def predict(params: ModelParams, tokens_BxN: jax.Array) -> jax.Array:
    """``argmax`` predictions for a batch of sequences (vmapped; jit it at the call site)."""
    _validate.check_ndim("tokens_BxN", tokens_BxN, 2)
    return jnp.argmax(jax.vmap(lambda t: forward(params, t))(tokens_BxN), axis=-1)
