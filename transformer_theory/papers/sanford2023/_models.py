"""The networks that Sanford, Hsu & Telgarsky 2023 compare transformers with, as small Flax NNX
modules for the trained separations (``experiments/sanford_qsa_separation.py``,
``experiments/sanford_qsa_bits.py``).

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

Quantization: :func:`transformer_theory.precision.fake_quantize` with a fixed scale, and
:func:`transformer_theory.precision.grid_bits` for the bits a quantized vector holds.

These are baselines for training, not the library's attention-only model (:mod:`.transformer`,
Chen & Zou 2024), which has no token-wise readout of vectors and no quantization. Shape letters:
:mod:`transformer_theory.glossary`; input feature widths carry no letter.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx

from transformer_theory.precision import fake_quantize

__all__ = ["FullyConnected", "Recurrent", "SparseAveragingAttention", "param_count"]


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
    :func:`~transformer_theory.precision.fake_quantize` on ``[-1, 1]`` (a GRU state stays in
    ``[-1, 1]``: it starts at 0 and each step is a convex combination of the old state and a
    ``tanh``), so the memory holds at most ``hidden log2(2^p - 1)`` bits
    (:func:`~transformer_theory.precision.grid_bits`), the quantity the RNN bound counts.
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
