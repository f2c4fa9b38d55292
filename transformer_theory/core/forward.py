"""The functional forward pass of the attention-only transformer (Chen & Zou 2024, eq. 1-3) for ONE
sequence.

``forward(params, tokens_N)`` embeds (eq. 3), runs every layer, applies the optional final norm
(Barbero et al.'s ``norm3``) and returns the classifier output ``o = W_O h_{n-1}`` (Chen & Zou 2024,
§3.1).
Batch over sequences or models with ``jax.vmap`` at the call site; jit at the call site too.

A causal language model (``ModelConfig.causal_lm``, Svete & Cotterell 2024) runs the SAME pass and
reads ``W_O`` at every position: :func:`forward_all` returns the logits of every position,
:func:`lm_log_probs` the log-probabilities ``log q(y_t | y_<t)`` of a string's symbols and of EOS.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from transformer_theory import _validate
from transformer_theory.core import norms
from transformer_theory.core.layers import attention_layer
from transformer_theory.core.positional import embed_tokens
from transformer_theory.params import ModelConfig, ModelParams, validate_params


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
    return embed_tokens(
        tokens_N,
        cfg.vocab_size,
        cfg.width,
        cfg.positional,
        dtype=params.w_o.dtype,
        window=cfg.positional_window,
    )


def _inputs_to_stream(params: ModelParams, inputs) -> jax.Array:
    validate_params(params)  # shapes against the config (static: free under jit)
    cfg = params.config
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


def output_logits(w_o_CxD: jax.Array, h_ND: jax.Array) -> jax.Array:
    """``W_O h`` for every row of ``h_ND`` (or one ``h_D``), with ``0 * (-inf) = 0``.

    An n-gram LM's conditional table has exact zeros, ``log 0 = -inf``; Svete & Cotterell 2024
    write those logarithms into the output matrix. A plain matmul turns ``-inf * 0`` into NaN; here
    a ``-inf`` weight contributes ``-inf`` only where its stream coordinate is positive (``+inf``
    where negative) and nothing where it is 0, the extended-real convention of the paper. Finite
    weights take the plain matmul path (and its gradient) unchanged.
    """
    neg_inf = jnp.isneginf(w_o_CxD)
    finite = jnp.where(neg_inf, 0.0, w_o_CxD)
    logits = h_ND @ finite.T
    # The -inf part is piecewise constant in h: no gradient, and none of the NaN that sign * inf
    # would send back through jnp.where.
    h = jax.lax.stop_gradient(h_ND)
    sign = jnp.sign(h)[..., None, :]
    neg_inf = neg_inf.reshape((1,) * (sign.ndim - 2) + neg_inf.shape)
    inf_part = jnp.where(neg_inf & (sign != 0), -sign * jnp.inf, 0.0)
    return logits + jnp.sum(inf_part, axis=-1).astype(logits.dtype)


def forward_all(
    params: ModelParams, inputs: jax.Array, mask_NxN: jax.Array | None = None
) -> jax.Array:
    """Logits ``logits_NxC`` at EVERY position: ``W_O norm3(h^(L)_i)`` for ``i = 0..n-1``.

    The per-position output of a causal language model (``ModelConfig.causal_lm``); the same
    layers as :func:`forward`, whose output is the last row. ``W_O`` may hold ``-inf``
    (:func:`output_logits`).
    """
    tr = forward_trace(params, inputs, mask_NxN)
    cfg = params.config
    h = tr.streams_LxNxD[-1]
    if params.final_norm is not None:
        h = norms.apply_norm(
            cfg.final_norm, h, params.final_norm.scale, params.final_norm.bias, cfg.norm_eps
        )
    return output_logits(params.w_o, h)


def lm_inputs(config: ModelConfig, string_N: jax.Array) -> jax.Array:
    """``BOS^bos_pad y_1 .. y_L``: what a causal LM reads for the string ``y`` (ids in Sigma)."""
    _validate.check_ndim("string_N", string_N, 1)
    _validate.check_int("string_N", string_N)
    bos = config.vocab_size - 1
    return jnp.concatenate([jnp.full((config.bos_pad,), bos, jnp.result_type(string_N)), string_N])


def lm_log_probs(params: ModelParams, string_N: jax.Array) -> jax.Array:
    """``log q(y_t | y_<t)`` for ``t = 1..L`` and then ``log q(EOS | y)``: ``L + 1`` entries.

    The general decomposition ``q(y) = q(EOS | y) prod_t q(y_t | y_<t)`` of the lecture slides
    (Svete & Cotterell 2024, §2): the sum of the entries is ``log q(y)``. The model reads
    ``BOS^bos_pad y``; position ``bos_pad - 1 + t`` predicts ``y_{t+1}`` (EOS after the last).

    Args:
      params: one causal LM (``config.causal_lm``).
      string_N: symbol ids in ``[0, |Sigma|)`` (``|Sigma| = vocab_size - 1``); may be empty.
    """
    cfg = params.config
    if cfg is None or not cfg.causal_lm:
        raise ValueError("params: lm_log_probs needs a model whose config has causal_lm=True")
    _validate.check_ndim("string_N", string_N, 1)
    _validate.check_token_ids("string_N", string_N, cfg.vocab_size - 1)
    L = string_N.shape[0]
    logits = forward_all(params, lm_inputs(cfg, string_N))[cfg.bos_pad - 1 :]
    targets = jnp.concatenate(
        [string_N, jnp.full((1,), cfg.num_classes - 1, jnp.result_type(string_N))]
    )
    log_q = jax.nn.log_softmax(logits, axis=-1)
    return jnp.take_along_axis(log_q, targets[:, None], axis=-1)[:, 0].reshape(L + 1)


def lm_log_prob(params: ModelParams, string_N: jax.Array) -> jax.Array:
    """``log q(y)`` of a string under a causal LM, EOS included (sum of :func:`lm_log_probs`)."""
    return jnp.sum(lm_log_probs(params, string_N))
