"""Flax NNX modules that wrap :mod:`transformer_theory.core` (one implementation of the math).

:class:`Transformer` holds the trainable arrays of a :class:`~transformer_theory.params.ModelParams`
as ``nnx.Param`` leaves; its ``__call__`` rebuilds the ``ModelParams`` view and runs
:func:`transformer_theory.core.forward`. :func:`to_params` / :func:`from_params` convert both ways
without loss, so a trained model goes straight into the verifier, and a construction can
initialize training.

Modules: :mod:`.transformer` (:class:`Transformer`), :mod:`.fast` (the training forward pass
without the work a classifier does not need), :mod:`.encdec` (Conti 2024's Post-LN
encoder-decoder), :mod:`.activations` (every head's attention maps, queries, keys and values, read
from a model for the analyses).
"""

from transformer_theory.nn.transformer import AttentionLayer, Transformer, from_params, to_params

__all__ = ["AttentionLayer", "Transformer", "from_params", "to_params"]
