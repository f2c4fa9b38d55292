"""Compiler stage 5, the parameters: craft's blocks (plain arrays) laid into every layer of
:class:`~transformer_theory.params.ModelParams`, the unembedding, the config, and
:class:`CompiledProgram`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from transformer_theory.params import (
    AttentionParams,
    LayerParams,
    MLPParams,
    ModelConfig,
    ModelParams,
)
from transformer_theory.rasp import _language as lang
from transformer_theory.rasp._compile_ir import LayerBlocks, Node

__all__ = ["CompiledProgram", "assemble"]


def assemble(
    blocks: list[LayerBlocks], out: Node, D: int, V: int, N: int, causal: bool
) -> tuple[ModelParams, np.ndarray, tuple | None]:
    """``(params, w_o, output_values)``: craft's blocks laid into every layer (the MLPs padded
    to the widest hidden layer), the unembedding reading ``out``, and the config (NumPy float64
    leaves: exact whatever ``jax_enable_x64`` says)."""
    F = max(1, max(len(b.units) for b in blocks))
    param_layers = []
    for b in blocks:
        w1, b1, w2 = np.zeros((F, D)), np.zeros(F), np.zeros((D, F))
        for k, (w, c, o) in enumerate(b.units):
            w1[k], b1[k], w2[:, k] = w, c, o
        param_layers.append(
            LayerParams(
                attn=AttentionParams(w_v=b.w_v, w_qk=b.w_qk),
                mlp=MLPParams(w1=w1, b1=b1, w2=w2, b2=np.zeros(D)),
            )
        )
    if out.numerical:
        w_o = np.zeros((1, D))
        w_o[0, out.dims.start] = 1
        out_values = None
    else:
        w_o = np.zeros((len(out.values), D))
        w_o[np.arange(len(out.values)), np.arange(out.dims.start, out.dims.stop)] = 1
        out_values = tuple(out.values)
    cfg = ModelConfig(
        vocab_size=V + 1,
        seq_len=N + 1,
        width=D,
        num_classes=w_o.shape[0],
        heads=tuple(b.w_qk.shape[0] for b in blocks),
        attention="softmax",
        causal=bool(causal),
        head_mean=False,
        positional="onehot",
        mlp_hidden=F,
    )
    return ModelParams(layers=tuple(param_layers), w_o=w_o, config=cfg), w_o, out_values


@dataclasses.dataclass(repr=False)
class CompiledProgram:
    """A compiled RASP program.

    Attributes:
      program: the RASP program (its output SOp).
      vocab: the input vocabulary (token id ``i`` is ``vocab[i]``; BOS is id ``len(vocab)``).
      max_seq_len: ``N``, the longest input (the model's ``seq_len`` is ``N + 1``: BOS first).
      causal: compiled under a causal mask.
      weights: the model with NumPy float64 leaves (use :meth:`params` for JAX arrays).
      labels: the residual dimensions' names.
      output: the node the unembedding reads; ``output_values`` its classes (categorical) or
        ``None`` (numerical: one logit, the number itself).
      unembedding: ``W_O`` of shape ``(C, D)``.
      nodes: every node of the compiled graph (materialized ones have ``dims``).
      attention_depth: Weiss et al. 2021's lower bound on the attention layers.
      constants: the per-head ``beta`` and tolerance, and the MLP ramp law, as a record.
      meaning: ``"full"`` (the program's meaning) or ``"prefix"`` (compiled with
        ``causal="prefix"``: ``program`` is then :func:`~transformer_theory.rasp._language.
        prefix_program` of the given one, whose meaning is the causal one).
    """

    program: lang.SOp
    vocab: tuple
    max_seq_len: int
    causal: bool
    weights: ModelParams
    labels: tuple[str, ...]
    output: Node
    output_values: tuple | None
    unembedding: np.ndarray
    nodes: list[Node]
    attention_depth: int
    constants: dict
    meaning: str = "full"

    def __repr__(self) -> str:
        return f"CompiledProgram({self.program.label!r}: {self.summary()})"

    def summary(self) -> str:
        """One line of the sizes, e.g. ``2 layers (2 attention, attention depth 2), 2 heads,
        width 22, 5668 parameters, max_seq_len 4`` (singulars where a count is 1)."""
        z = self.sizes()

        def n(k: int, word: str) -> str:
            return f"{k} {word}{'' if k == 1 else 's'}"

        return (
            f"{n(z['layers'], 'layer')} ({z['attention_sublayers']} attention, attention depth "
            f"{z['attention_depth']}), {n(z['heads'], 'head')}, width {z['residual_width']}, "
            f"{n(z['parameters'], 'parameter')}, max_seq_len {self.max_seq_len}"
            + (", causal" if self.causal else "")
        )

    def params(self, dtype: Any = jnp.float64) -> ModelParams:
        """The model's :class:`ModelParams` in ``dtype`` (float64 needs ``jax_enable_x64``)."""
        return _cast(self.weights, dtype)

    @property
    def config(self) -> ModelConfig:
        return self.weights.config

    def token_ids(self, xs: Sequence[Hashable]) -> np.ndarray:
        """``BOS x_0 .. x_{n-1}`` as the model's token ids (ValueError for a foreign token)."""
        index = {v: i for i, v in enumerate(self.vocab)}
        bad = [x for x in xs if x not in index]
        if bad:
            raise ValueError(f"xs: tokens {bad[:3]} are not in the vocabulary {list(self.vocab)}")
        if len(xs) > self.max_seq_len:
            raise ValueError(f"xs: length {len(xs)} exceeds max_seq_len {self.max_seq_len}")
        return np.array([len(self.vocab)] + [index[x] for x in xs], np.int32)

    def embed(self, xs: Sequence[Hashable], dtype: Any = np.float64) -> np.ndarray:
        """The first ``n + 1`` rows of the length-``N + 1`` embedding (the library's one-hot code
        is laid out for the sequence's own length, so a shorter input is given as rows)."""
        ids = self.token_ids(xs)
        cfg = self.config
        h = np.zeros((len(ids), cfg.width), dtype)
        h[np.arange(len(ids)), ids] = 1
        h[np.arange(len(ids)), cfg.vocab_size + np.arange(len(ids))] = 1
        return h

    def sizes(self) -> dict[str, int]:
        """Layers, attention / MLP sublayers in use, heads, residual width, parameters."""
        heads = [n for n in self.nodes if n.op in ("mean", "width")]
        mlp_layers = {n.layer for n in self.nodes if n.op == "mlp" and n.materialized}
        arrays = [x for x in _leaves(self.weights)]
        return {
            "layers": self.config.depth,
            "attention_sublayers": len({n.layer for n in heads}),
            "mlp_sublayers": len(mlp_layers),
            "heads": len(heads),
            "residual_width": self.config.width,
            "mlp_hidden": self.config.mlp_hidden or 0,
            "parameters": int(sum(x.size for x in arrays)),
            "nonzero_parameters": int(sum(np.count_nonzero(np.asarray(x)) for x in arrays)),
            "attention_depth": self.attention_depth,
        }


def _leaves(params: ModelParams) -> list:
    import jax

    return jax.tree.leaves(params)


def _cast(params: ModelParams, dtype: Any) -> ModelParams:
    import jax

    return jax.tree.map(lambda x: jnp.asarray(x, dtype), params)
