"""The networks that Sanford, Hsu & Telgarsky 2023 and Peng et al. 2024 compare transformers with,
as small Flax NNX modules for the trained separations (``experiments/sanford_qsa_separation.py``,
``experiments/composition_depth.py``).

- :class:`SparseAveragingAttention`: ONE softmax self-attention unit ``f(X)_i = sum_j
  softmax_j(<W_q x_i, W_k x_j>) W_v x_j`` whose query/key width ``m`` is the embedding dimension of
  the qSA bounds (Sanford et al. 2023: a unit exists iff ``m >= q``, built for ``m >~ q log N``;
  with ``p``-bit precision ``m p >= q`` is needed, which ``query_bits`` makes testable).
- :class:`FullyConnected`: a ReLU network of depth ``>= 2`` on the flattened sequence (their FNN
  bound: width ``>= N d' / 2`` to ``1/(2q)``-approximate qSA).
- :class:`Recurrent`: a GRU (``nnx.RNN(nnx.GRUCell)``) that reads the sequence twice and answers
  position ``i`` in the second pass, so every answer may depend on every input; its hidden state
  (the whole carry of a GRU) is the memory of their RNN bound, which counts BITS (``m >= (N -
  1)/2`` bits): a float32 state of 2 already holds 64, so ``state_bits`` rounds it to a grid.
- :class:`CompositionTransformer`: an ``L``-layer, ``H``-head transformer with embedding ``d`` whose
  weights and activations can be fake-quantized to ``p`` bits (:func:`fake_quantize`), for the
  function-composition bound of Peng et al. 2024, Theorem 1.

These are baselines for training, not the library's attention-only model (:mod:`.transformer`,
Chen & Zou 2024), which has no token-wise readout of vectors and no quantization. Shape letters:
:mod:`transformer_theory.glossary`; input feature widths carry no letter.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from flax import nnx


def param_count(module: nnx.Module) -> int:
    """Number of trainable scalars (every ``nnx.Param`` leaf) of ``module``."""
    return int(sum(x.size for x in jax.tree.leaves(nnx.state(module, nnx.Param))))


def _positive(name: str, value: int) -> int:
    if int(value) < 1:
        raise ValueError(f"{name}: expected a positive integer, got {value}")
    return int(value)


class SparseAveragingAttention(nnx.Module):
    """One softmax self-attention unit with query/key width ``qk_dim`` (the ``m`` of Sanford et al.
    2023) and a linear value map to ``out_features`` (``d'``).

    ``__call__(inputs)`` maps ``(B, N, d)`` to ``(B, N, d')``: row ``i`` is ``sum_j softmax_j(<W_q
    x_i, W_k x_j>) W_v x_j`` (unscaled scores: the construction needs a large scale ``alpha``,
    which the weights learn).

    ``query_bits = p``: the query is ``Q(x_i) = fake_quantize(tanh(W_q x_i), p, scale=1)``, one of
    ``(2^p - 1)^m`` vectors, so it carries at most ``m log2(2^p - 1)`` bits. That is the message of
    Sanford et al.'s lower bound (Alice sends ``Q(x_{2q+1})`` to Bob, who holds everything else,
    so ``m p >= q`` is needed); keys and values stay float32, which only makes the unit stronger
    than a ``p``-bit one, so the bound still applies to it.
    """

    def __init__(
        self,
        in_features: int,
        qk_dim: int,
        out_features: int,
        *,
        query_bits: int | None = None,
        rngs: nnx.Rngs,
    ):
        in_features = _positive("in_features", in_features)
        qk_dim = _positive("qk_dim", qk_dim)
        out_features = _positive("out_features", out_features)
        if query_bits is not None and int(query_bits) < 2:
            raise ValueError(f"query_bits: expected >= 2 or None (float32), got {query_bits}")
        self.query_bits = query_bits
        self.query = nnx.Linear(in_features, qk_dim, use_bias=False, rngs=rngs)
        self.key = nnx.Linear(in_features, qk_dim, use_bias=False, rngs=rngs)
        self.value = nnx.Linear(in_features, out_features, use_bias=False, rngs=rngs)

    def queries(self, inputs: jax.Array) -> jax.Array:
        """``Q(x_i)``, ``(B, N, m)``: quantized on the fixed grid when ``query_bits`` is set."""
        if self.query_bits is None:
            return self.query(inputs)
        return fake_quantize(jnp.tanh(self.query(inputs)), self.query_bits, scale=1.0)

    def __call__(self, inputs: jax.Array) -> jax.Array:
        scores_BxNxK = jnp.einsum("bie,bje->bij", self.queries(inputs), self.key(inputs))
        return jnp.einsum("bij,bjy->biy", jax.nn.softmax(scores_BxNxK, -1), self.value(inputs))


class FullyConnected(nnx.Module):
    """A ReLU network on the flattened sequence: ``hidden_layers`` layers of ``width`` (the first
    layer's width is the bound's), then a linear map to ``(N, d')``. Depth = ``hidden_layers + 1``
    weight layers (Sanford et al.'s bound holds from depth 2, ``hidden_layers >= 1``)."""

    def __init__(
        self,
        seq_len: int,
        in_features: int,
        width: int,
        out_features: int,
        *,
        hidden_layers: int = 2,
        rngs: nnx.Rngs,
    ):
        self.seq_len = _positive("seq_len", seq_len)
        self.out_features = _positive("out_features", out_features)
        width = _positive("width", width)
        sizes = [self.seq_len * _positive("in_features", in_features)]
        sizes += [width] * _positive("hidden_layers", hidden_layers)
        self.hidden = nnx.List([nnx.Linear(a, b, rngs=rngs) for a, b in zip(sizes, sizes[1:])])
        self.readout = nnx.Linear(width, self.seq_len * self.out_features, rngs=rngs)

    def __call__(self, inputs: jax.Array) -> jax.Array:
        h = inputs.reshape(inputs.shape[0], -1)
        for layer in self.hidden:
            h = jax.nn.relu(layer(h))
        return self.readout(h).reshape(inputs.shape[0], self.seq_len, self.out_features)


class _QuantizedGRUCell(nnx.GRUCell):
    """A GRU cell whose new state is rounded to ``state_bits`` bits per number on ``[-1, 1]``."""

    def __init__(self, in_features: int, hidden: int, state_bits: int, *, rngs: nnx.Rngs):
        super().__init__(in_features, hidden, rngs=rngs)
        self.state_bits = int(state_bits)

    def __call__(self, carry, inputs):
        carry, _ = super().__call__(carry, inputs)
        carry = fake_quantize(carry, self.state_bits, scale=1.0)
        return carry, carry


class Recurrent(nnx.Module):
    """A GRU with ``hidden`` state floats that reads ``x_1 .. x_N`` and then ``x_1 .. x_N`` again,
    answering position ``i`` (a linear readout of the state) at the ``i``-th step of the second
    pass. A causal one-pass RNN could not see ``z_j`` for ``j > i`` at all; two passes give it the
    whole input, and the state after the first pass is the memory the bound limits.

    ``state_bits = p``: after every step the state is rounded to the fixed grid of
    :func:`fake_quantize` on ``[-1, 1]`` (a GRU state stays in ``[-1, 1]``: it starts at 0 and each
    step is a convex combination of the old state and a ``tanh``), so the memory holds at most
    ``hidden log2(2^p - 1)`` bits (:func:`grid_bits`), the quantity the RNN bound counts.
    """

    def __init__(
        self,
        in_features: int,
        hidden: int,
        out_features: int,
        *,
        state_bits: int | None = None,
        rngs: nnx.Rngs,
    ):
        in_features = _positive("in_features", in_features)
        hidden = _positive("hidden", hidden)
        if state_bits is None:
            cell = nnx.GRUCell(in_features, hidden, rngs=rngs)
        elif int(state_bits) < 2:
            raise ValueError(f"state_bits: expected >= 2 or None (float32), got {state_bits}")
        else:
            cell = _QuantizedGRUCell(in_features, hidden, state_bits, rngs=rngs)
        self.hidden = hidden
        self.state_bits = state_bits
        self.rnn = nnx.RNN(cell, rngs=False)
        self.readout = nnx.Linear(hidden, _positive("out_features", out_features), rngs=rngs)

    def __call__(self, inputs: jax.Array) -> jax.Array:
        n = inputs.shape[1]
        carry = jnp.zeros((inputs.shape[0], self.hidden), inputs.dtype)  # no rng draw: jit-safe
        states = self.rnn(jnp.concatenate([inputs, inputs], axis=1), initial_carry=carry)
        return self.readout(states[:, n:])


def fake_quantize(
    x: jax.Array, bits: int | None, *, per_example: bool = False, scale: float | None = None
) -> jax.Array:
    """Round ``x`` to a symmetric uniform grid of ``2^bits - 1`` levels on ``[-s, s]``, ``s =
    max |x|``, with a straight-through estimator (the forward value is the rounded one, the
    gradient is the identity's: ``x + stop_gradient(round(x) - x)``).

    ``bits=None`` returns ``x`` unchanged (float32). ``per_example``: one scale per leading-axis
    entry (activations: an example's rounding never depends on the rest of the batch); otherwise
    one scale for the whole tensor (weights). The scale itself is not quantized (one float per
    tensor, like the ``+1`` of Peng et al.'s ``H (d + 1) p``).

    ``scale``: a FIXED ``s`` instead of ``max |x|``; ``x`` is clipped to ``[-s, s]`` first. Then a
    quantized vector of ``k`` entries is one of ``(2^bits - 1)^k`` values, i.e. it holds at most
    ``k log2(2^bits - 1) < k bits`` bits and nothing rides along in a data-dependent scale: what
    the memory and communication bounds of Sanford et al. 2023 count (:class:`Recurrent`'s
    ``state_bits``, :class:`SparseAveragingAttention`'s ``query_bits``).
    """
    if bits is None:
        return x
    if int(bits) < 2:
        raise ValueError(f"bits: expected >= 2 (sign and one level), got {bits}")
    levels = 2 ** (int(bits) - 1) - 1
    if scale is not None:
        if not float(scale) > 0:
            raise ValueError(f"scale: expected a positive fixed scale, got {scale}")
        step = float(scale) / levels
        rounded = jnp.round(jnp.clip(x, -float(scale), float(scale)) / step) * step
        return x + jax.lax.stop_gradient(rounded - x)
    axes = tuple(range(1, x.ndim)) if per_example and x.ndim > 1 else None
    scale = jax.lax.stop_gradient(jnp.max(jnp.abs(x), axis=axes, keepdims=True))
    step = jnp.where(scale > 0, scale / levels, 1.0)
    rounded = jnp.round(x / step) * step
    return x + jax.lax.stop_gradient(rounded - x)


def grid_bits(count: int, bits: int | None) -> float:
    """Information in ``count`` numbers quantized by :func:`fake_quantize` with a fixed scale:
    ``count log2(2^bits - 1)`` bits (``bits=None``: 32 per float32 number)."""
    if bits is None:
        return 32.0 * count
    return count * math.log2(2 ** int(bits) - 1)


class _Block(nnx.Module):
    def __init__(self, width: int, heads: int, *, rngs: nnx.Rngs):
        init = nnx.initializers.lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(0,))
        self.w_q = nnx.Param(init(rngs.params(), (heads, width, width)))
        self.w_k = nnx.Param(init(rngs.params(), (heads, width, width)))
        self.w_v = nnx.Param(init(rngs.params(), (heads, width, width)))
        self.w_out = nnx.Param(init(rngs.params(), (heads, width, width)) / heads)
        self.mlp_in = nnx.Linear(width, 4 * width, rngs=rngs)
        self.mlp_out = nnx.Linear(4 * width, width, rngs=rngs)


class CompositionTransformer(nnx.Module):
    """``layers`` pre-norm-free blocks (``heads`` softmax heads of query/key/value width ``width``
    summed back into the stream, then a ReLU MLP of ``4 width``) over learned token and position
    embeddings of width ``d = width``; logits from the last position.

    ``bits``: fake-quantize (:func:`fake_quantize`) every weight (per tensor) and the stream after
    the embedding, every head output, every MLP output and the stream after each block (per
    example) to ``bits`` bits; ``None`` computes in float32. Peng et al. 2024's ``p`` counts the
    bits of the numbers one position sends; here that is the head outputs.
    """

    def __init__(
        self,
        vocab_size: int,
        seq_len: int,
        width: int,
        heads: int,
        layers: int,
        num_classes: int,
        *,
        bits: int | None = None,
        rngs: nnx.Rngs,
    ):
        width = _positive("width", width)
        self.embed = nnx.Embed(_positive("vocab_size", vocab_size), width, rngs=rngs)
        self.position = nnx.Param(0.02 * jax.random.normal(rngs.params(), (seq_len, width)))
        self.blocks = nnx.List(
            [
                _Block(width, _positive("heads", heads), rngs=rngs)
                for _ in range(_positive("layers", layers))
            ]
        )
        self.readout = nnx.Linear(width, _positive("num_classes", num_classes), rngs=rngs)
        if bits is not None and int(bits) < 2:
            raise ValueError(f"bits: expected >= 2 or None (float32), got {bits}")
        self.bits = bits

    def __call__(self, tokens_BxN: jax.Array) -> jax.Array:
        def w(p):
            return fake_quantize(p[...], self.bits)

        def act(x):
            return fake_quantize(x, self.bits, per_example=True)

        h = act(w(self.embed.embedding)[tokens_BxN] + w(self.position)[None])
        for blk in self.blocks:
            q = jnp.einsum("bnd,hde->bhne", h, w(blk.w_q))
            k = jnp.einsum("bnd,hde->bhne", h, w(blk.w_k))
            v = jnp.einsum("bnd,hde->bhne", h, w(blk.w_v))
            scores = jnp.einsum("bhne,bhke->bhnk", q, k) / jnp.sqrt(q.shape[-1])
            heads = act(jnp.einsum("bhnk,bhke->bhne", jax.nn.softmax(scores, -1), v))
            h = h + jnp.einsum("bhne,hed->bnd", heads, w(blk.w_out))
            hidden = jax.nn.relu(h @ w(blk.mlp_in.kernel) + w(blk.mlp_in.bias)[None, None])
            h = act(h + act(hidden @ w(blk.mlp_out.kernel) + w(blk.mlp_out.bias)[None, None]))
        return h[:, -1] @ w(self.readout.kernel) + w(self.readout.bias)[None]
