"""The transformer of the function-composition experiment (Peng, Narayanan & Papadimitriou 2024,
Theorem 1): :class:`CompositionTransformer`, an ``L``-layer, ``H``-head transformer with a true
embedding of width ``d`` whose weights and activations can be fake-quantized to ``p`` bits
(:func:`transformer_theory.precision.fake_quantize`), as a small Flax NNX module. A baseline for
training, not the library's attention-only model (Chen & Zou 2024). :func:`errors` runs one on
prompts and counts its wrong answers; :func:`from_weights` makes a one-layer one from given weights
(a hand-built model's, :func:`._constructions.weights`), and :func:`fewest_exact_bits` finds the
fewest bits at which a model made per ``p`` answers every given prompt. Shape letters:
:mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from transformer_theory._validate import check_int_arg, check_ndim, check_token_ids
from transformer_theory.precision import fake_quantize

__all__ = [
    "WEIGHTS",
    "CompositionTransformer",
    "causal_one_layer",
    "errors",
    "fewest_exact_bits",
    "from_weights",
    "param_count",
]

#: The arrays :func:`from_weights` reads: ``embed (vocab, d)``, ``position (N, d)``, ``w_q``,
#: ``w_k``, ``w_v``, ``w_out`` ``(H, d, d)``, ``mlp_in (d, 4 d)``, ``mlp_bias (4 d,)``, ``mlp_out
#: (4 d, d)``, ``readout (d, C)``.
WEIGHTS = (
    "embed",
    "position",
    "w_q",
    "w_k",
    "w_v",
    "w_out",
    "mlp_in",
    "mlp_bias",
    "mlp_out",
    "readout",
)


def param_count(module: nnx.Module) -> int:
    """Number of trainable scalars (every ``nnx.Param`` leaf) of ``module``."""
    return int(sum(x.size for x in jax.tree.leaves(nnx.state(module, nnx.Param))))


def _positive(name: str, value: int) -> int:
    if int(value) < 1:
        raise ValueError(f"{name}: expected a positive integer, got {value}")
    return int(value)


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

    ``causal``: position ``i`` attends to positions ``<= i`` only (the chain-of-thought model of
    :mod:`.cot`, trained with teacher forcing on every position at once); :meth:`all_logits`
    reads the logits at every position.

    ``bits``: fake-quantize (:func:`~transformer_theory.precision.fake_quantize`) every weight (per
    tensor) and the stream after the embedding, every head output, every MLP output and the stream
    after each block (per example; per example and position when ``causal``) to ``bits`` bits;
    ``None`` computes in float32. Peng et al. 2024's ``p`` counts the bits of the numbers one
    position sends; here that is the head outputs.

    ``quantize``: ``"all"`` (the default) rounds everything listed above; ``"messages"`` rounds
    only the head outputs (what one position sends to another, the numbers the proof of Peng et
    al.'s Theorem 1 counts) and keeps weights and the rest of the stream in float32. A model
    rounded everywhere is one of the models rounded at the messages only, so the theorem's bound
    applies to both; the second trains more easily at few bits.
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
        causal: bool = False,
        quantize: str = "all",
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
        if quantize not in ("all", "messages"):
            raise ValueError(f"quantize: expected 'all' or 'messages', got {quantize!r}")
        self.bits = bits
        self.causal = bool(causal)
        self.quantize = quantize

    def _w(self, p: nnx.Param) -> jax.Array:
        return fake_quantize(p[...], self.bits if self.quantize == "all" else None)

    def stream(self, tokens_BxN: jax.Array) -> jax.Array:
        """The residual stream after the last block, ``(B, N, d)``."""

        w = self._w

        def message(x):
            if not self.causal:
                return fake_quantize(x, self.bits, per_example=True)
            # one scale per (example, position): a later token never changes an earlier rounding
            flat = fake_quantize(x.reshape(-1, *x.shape[-1:]), self.bits, per_example=True)
            return flat.reshape(x.shape)

        def act(x):
            return message(x) if self.quantize == "all" else x

        num = tokens_BxN.shape[1]
        h = act(w(self.embed.embedding)[tokens_BxN] + w(self.position)[None, :num])
        for blk in self.blocks:
            q = jnp.einsum("bnd,hde->bhne", h, w(blk.w_q))
            k = jnp.einsum("bnd,hde->bhne", h, w(blk.w_k))
            v = jnp.einsum("bnd,hde->bhne", h, w(blk.w_v))
            scores = jnp.einsum("bhne,bhke->bhnk", q, k) / jnp.sqrt(q.shape[-1])
            if self.causal:
                future_NxN = jnp.arange(num)[None, :] > jnp.arange(num)[:, None]
                scores = jnp.where(future_NxN[None, None], -jnp.inf, scores)
            heads = message(jnp.einsum("bhnk,bhke->bhne", jax.nn.softmax(scores, -1), v))
            h = h + jnp.einsum("bhne,hed->bnd", heads, w(blk.w_out))
            hidden = jax.nn.relu(h @ w(blk.mlp_in.kernel) + w(blk.mlp_in.bias)[None, None])
            h = act(h + act(hidden @ w(blk.mlp_out.kernel) + w(blk.mlp_out.bias)[None, None]))
        return h

    def all_logits(self, tokens_BxN: jax.Array) -> jax.Array:
        """Logits at every position, ``(B, N, classes)``."""
        h = self.stream(tokens_BxN)
        return h @ self._w(self.readout.kernel) + self._w(self.readout.bias)[None, None]

    def __call__(self, tokens_BxN: jax.Array) -> jax.Array:
        """Logits at the last position, ``(B, classes)``."""
        h = self.stream(tokens_BxN)[:, -1]
        return h @ self._w(self.readout.kernel) + self._w(self.readout.bias)[None]


def errors(
    model: CompositionTransformer, tokens_BxN: np.ndarray, answers_B: np.ndarray, chunk: int = 4096
) -> int:
    """Number of prompts ``model`` answers wrongly (argmax of its logits against ``answers``).
    Run eagerly, op by op: each model here is run once, and compiling it would cost more.

    Raises:
      ValueError: naming ``tokens_BxN`` (not 2-D integer ids in ``[0, vocab)`` of the model's
        length) or ``answers_B`` (not one answer per prompt), before the model runs.
    """
    tokens_BxN, answers_B = np.asarray(tokens_BxN), np.asarray(answers_B)
    check_ndim("tokens_BxN", tokens_BxN, 2)
    check_token_ids("tokens_BxN", tokens_BxN, model.embed.num_embeddings)
    seq_len = model.position.shape[0]
    if tokens_BxN.shape[1] > seq_len:
        raise ValueError(
            f"tokens_BxN: the model reads at most {seq_len} tokens, got {tokens_BxN.shape}"
        )
    if answers_B.shape != tokens_BxN.shape[:1]:
        raise ValueError(f"answers_B: expected shape {tokens_BxN.shape[:1]}, got {answers_B.shape}")
    wrong = 0
    for i in range(0, len(tokens_BxN), chunk):
        pred = np.asarray(jnp.argmax(model(jnp.asarray(tokens_BxN[i : i + chunk])), axis=-1))
        wrong += int(np.sum(pred != answers_B[i : i + chunk]))
    return wrong


def from_weights(
    weights: Mapping[str, np.ndarray], bits: int | None = None
) -> CompositionTransformer:
    """A one-layer :class:`CompositionTransformer` holding ``weights`` (the arrays of
    :data:`WEIGHTS`; its sizes read from their shapes, the MLP's output bias and the readout's bias
    zero), fake-quantized to ``bits`` (``None``: float32)."""
    missing = [k for k in WEIGHTS if k not in weights]
    if missing:
        raise ValueError(f"weights: expected the arrays {list(WEIGHTS)}, missing {missing}")
    vocab, d = weights["embed"].shape
    heads, classes = weights["w_q"].shape[0], weights["readout"].shape[1]
    seq_len = weights["position"].shape[0]
    rngs = nnx.Rngs(0)  # every parameter is overwritten below
    model = CompositionTransformer(vocab, seq_len, d, heads, 1, classes, bits=bits, rngs=rngs)
    blk = model.blocks[0]
    f32 = jnp.float32
    model.embed.embedding[...] = jnp.asarray(weights["embed"], f32)
    model.position[...] = jnp.asarray(weights["position"], f32)
    for name in ("w_q", "w_k", "w_v", "w_out"):
        getattr(blk, name)[...] = jnp.asarray(weights[name], f32)
    blk.mlp_in.kernel[...] = jnp.asarray(weights["mlp_in"], f32)
    blk.mlp_in.bias[...] = jnp.asarray(weights["mlp_bias"], f32)
    blk.mlp_out.kernel[...] = jnp.asarray(weights["mlp_out"], f32)
    blk.mlp_out.bias[...] = jnp.zeros(d, f32)
    model.readout.kernel[...] = jnp.asarray(weights["readout"], f32)
    model.readout.bias[...] = jnp.zeros(classes, f32)
    return model


def fewest_exact_bits(
    n: int,
    model_at: Callable[[int | None], CompositionTransformer],
    tokens_BxN: np.ndarray,
    answers_B: np.ndarray,
    exhaustive: bool,
    *,
    max_bits: int = 24,
) -> dict:
    """The fewest bits ``p`` (2 to ``max_bits``) at which ``model_at(p)`` answers every one of the
    prompts ``tokens_BxN`` right (``answers_B``; ``exhaustive``: whether they are every prompt of
    domain ``n``, recorded). ``model_at(None)`` (float32) is run first, then ``p = 2, 3, ...``
    until one is exact. Returns ``{"n", "bits", "prompts", "exhaustive", "errors_below",
    "float32_errors"}`` (``bits`` None if no ``p <= max_bits`` is exact; ``errors_below``: the
    errors at ``bits - 1``, a witness that fewer bits fail; ``float32_errors``: the float32
    model's)."""
    max_bits = check_int_arg("max_bits", max_bits, 2)
    found, below, previous, float32_errors = None, None, None, None
    for p in (None, *range(2, max_bits + 1)):  # float32, then 2, 3, ... bits
        wrong = errors(model_at(p), tokens_BxN, answers_B)
        if p is None:
            float32_errors = wrong
        elif wrong == 0:
            found, below = p, previous
            break
        else:
            previous = wrong
    return {
        "n": n,
        "bits": found,
        "prompts": len(tokens_BxN),
        "exhaustive": bool(exhaustive),
        "errors_below": below,
        "float32_errors": float32_errors,
    }


def causal_one_layer(
    vocab: int, length: int, width: int, heads: int, bits: int | None, seed: int
) -> CompositionTransformer:
    """The one causal layer the chain-of-thought studies train: ``vocab`` tokens in and out,
    ``length`` positions, ``heads`` heads of ``width``, ``bits`` of arithmetic (None: float32),
    initialized from ``seed``."""
    return CompositionTransformer(
        vocab, length, width, heads, 1, vocab, bits=bits, causal=True, rngs=nnx.Rngs(seed)
    )
