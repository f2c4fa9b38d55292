"""The trained models of Svete & Cotterell 2024's follow-up question (can a small transformer LEARN
an n-gram LM?): a one-layer causal transformer LM with ``n - 1`` softmax heads, the Svete &
Cotterell positional code and an MLP (Flax NNX), trained with Optax Adam through
:func:`transformer_theory.train.fit` on fresh samples of the LM (cross-entropy, EOS included), and
the unigram fit (what a model that ignores the history reaches). The experiment that trains them
is :mod:`.experiments.ngram_learnability`.

- :func:`model_config`, :func:`train`, :func:`unigram_fit`: one model, one fit, one baseline
  (:func:`unigram_of`: the baseline from the n-gram's answers, already computed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM, Reference, reference
from transformer_theory.params import ModelConfig, ModelParams

__all__ = ["model_config", "train", "unigram_fit", "unigram_of"]


def model_config(
    alphabet: int, order: int, max_len: int, width_extra: int, hidden: int
) -> ModelConfig:
    """A one-layer causal LM with ``n - 1`` softmax heads and the ``"svete"`` code, read like the
    constructions (``BOS^{n-1} y``, ``bos_pad = n - 1``), ``V + 2 (n - 1) + width_extra`` wide."""
    w = order - 1
    V = alphabet + 1
    return ModelConfig(
        vocab_size=V,
        seq_len=max_len + w,
        width=V + 2 * w + width_extra,
        num_classes=V,
        heads=(w,),
        attention="softmax",
        causal=True,
        head_mean=False,
        positional="svete",
        positional_window=w,
        mlp_hidden=hidden,
        causal_lm=True,
        bos_pad=w,
    )


def train(
    config: ModelConfig,
    batch_at: Callable[[int], tuple[np.ndarray, np.ndarray, np.ndarray]],
    steps: int,
    seed: int,
    *,
    learning_rate: float = 3e-3,
    progress: str | None = None,
) -> tuple[ModelParams, float]:
    """Adam on the cross-entropy of ``batch_at(step)`` (``(inputs, targets, weights)`` per step,
    e.g. :func:`._tasks.lm_batches`: fresh samples of an n-gram LM) for ``steps`` steps, from the
    model of ``config`` (:func:`model_config`) initialized with ``seed``; returns the trained
    parameters and the last step's loss (before its update)."""
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    from transformer_theory.core.forward import forward_all
    from transformer_theory.nn.transformer import Transformer, to_params
    from transformer_theory.train.fit import fit

    model = Transformer(config, rngs=nnx.Rngs(seed))

    def loss_fn(module, inputs, targets, weights):
        params = to_params(module)
        logits = jax.vmap(lambda x: forward_all(params, x))(inputs)
        ce = optax.softmax_cross_entropy_with_integer_labels(logits, targets)
        return jnp.sum(ce * weights) / jnp.sum(weights)

    result = fit(
        model,
        loss_fn,
        batch_at,
        optimizer=optax.adam(learning_rate),
        steps=steps,
        log_every=steps,
        progress=progress,
    )
    return to_params(result.params), result.final_loss


def unigram_fit(lm: NGramLM, max_len: int) -> NGramLM:
    """The best history-free model of ``lm``'s symbols (its expected next-symbol distribution
    under the LM's own history frequencies, up to ``max_len``), as an n-gram table
    (:func:`unigram_of` every string up to ``max_len``)."""
    ref = reference(lm, max_len, exhaustive_limit=None)
    return unigram_of(lm, ref, [lm.string_history_ids(s) for s in ref.strings])


def unigram_of(lm: NGramLM, ref: Reference, ids_by_length: Sequence[np.ndarray]) -> NGramLM:
    """:func:`unigram_fit` from every string of each length up to ``max_len`` with ``lm``'s
    log-probabilities (``ref``, :func:`._tasks.reference` enumerated) and their histories
    (``ids_by_length``, :meth:`._tasks.NGramLM.string_history_ids`)."""
    probs = np.exp(lm.log_probs_AxC)
    counts = np.zeros(lm.alphabet_size + 1)
    for log_probs, ids in zip(ref.log_probs, ids_by_length, strict=True):
        weight = np.exp(log_probs.sum(axis=1))
        counts += (weight[:, None, None] * probs[ids]).sum(axis=(0, 1))
    row = counts / counts.sum()
    table = np.tile(np.log(row), (len(probs), 1))
    return NGramLM(lm.alphabet_size, lm.order, table)
