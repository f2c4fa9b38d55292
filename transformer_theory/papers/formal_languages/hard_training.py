"""Training hard-attention transformers with a straight-through estimator, for the upper-bound rows
of Strobl et al. 2024's table (Hahn 2020: no leftmost-hard transformer recognizes PARITY or
Dyck-1 at every length).

Hard attention has a zero gradient almost everywhere (the weights are piecewise constant in the
scores), so it cannot be trained by gradient descent as it stands. Evaluating a softmax-trained
model's weights with hard attention ("soft-then-hard") measures a model nobody trained. The
straight-through estimator (Bengio, Léonard & Courville 2013) trains the hard model itself:

- forward: the hard weights (:func:`transformer_theory.core.attention.hard_weights`, leftmost or
  average), EXACTLY -- ``hard + (soft - stop_gradient(soft))`` adds ``x - x = 0`` to every entry,
  which is exact in floating point for finite ``x``;
- backward: the gradient of the softmax weights of the same scores (the ``hard`` term and the
  stopped term contribute nothing).

So the loss and accuracy seen during training are those of the leftmost-hard (or average-hard)
transformer that :func:`transformer_theory.core.forward` evaluates with
``config.attention = "hard_leftmost"`` (``"hard_average"``); only the direction of each step is a
surrogate. :func:`straight_through_forward` mirrors :func:`transformer_theory.core.forward` layer
by layer (scores from :func:`transformer_theory.core.layers.attention_scores`, the same norms,
masking, head combination and MLP) with the weights above; a test checks it equals the core
forward with hard attention.

The other route, ``"annealed_leftmost"``: softmax attention of ``scores / temperature`` with the
temperature lowered geometrically to ``final_temperature`` during training, the model then
evaluated with leftmost-hard attention. Where scores tie (Dyck-1 has no positional code, so equal
symbols give equal scores) low-temperature softmax tends to AVERAGE-hard attention, not
leftmost-hard; the straight-through modes have no such gap.

A run that fails to learn proves no theorem: Hahn's result is an asymptotic statement about every
parameter setting at unbounded length, which no finite training run can confirm or refute.

Shape letters: see :mod:`transformer_theory.glossary` (``B`` strings, ``N`` positions, ``D``
width).
"""

from __future__ import annotations

from collections.abc import Iterable

import jax
import jax.numpy as jnp
import numpy as np
import optax

from transformer_theory import _validate
from transformer_theory.core import attention, masks, norms
from transformer_theory.core.forward import embed, forward
from transformer_theory.core.layers import attention_scores, mlp
from transformer_theory.papers.formal_languages import tasks
from transformer_theory.params import ModelConfig, ModelParams, init_params
from transformer_theory.train.fit import fit

__all__ = [
    "EVAL_ATTENTION",
    "TRAINING_MODES",
    "accuracy",
    "deployed",
    "model_config",
    "straight_through_forward",
    "straight_through_weights",
    "train",
]

TRAINING_MODES = (
    "softmax",
    "straight_through_leftmost",
    "straight_through_average",
    "annealed_leftmost",
)
# The attention a model trained in each mode is evaluated (and deployed) with.
EVAL_ATTENTION = {
    "softmax": "softmax",
    "straight_through_leftmost": "hard_leftmost",
    "straight_through_average": "hard_average",
    "annealed_leftmost": "hard_leftmost",
}


def straight_through_weights(
    scores_QxK: jax.Array, mask_QxK: jax.Array | None = None, *, mode: str = "leftmost"
) -> jax.Array:
    """Hard attention weights forward, the softmax weights' gradient backward.

    Args:
      scores_QxK: float scores.
      mask_QxK: optional boolean mask (True = may attend), as in
        :func:`transformer_theory.core.attention.hard_weights`.
      mode: ``"leftmost"`` (one-hot on the first maximizer) or ``"average"`` (uniform over the
        maximizers).
    Returns:
      ``weights_QxK``, equal to ``hard_weights(scores_QxK, mask_QxK, mode=mode)`` entry for entry;
      its vector-Jacobian product is that of ``softmax_weights(scores_QxK, mask_QxK)``.
    """
    _validate.check_choice("mode", mode, ("leftmost", "average"))
    hard = attention.hard_weights(scores_QxK, mask_QxK, mode=mode)
    soft = attention.softmax_weights(scores_QxK, mask_QxK)
    return jax.lax.stop_gradient(hard) + (soft - jax.lax.stop_gradient(soft))


def _weights(kind: str, scores_QxK, mask_QxK, temperature):
    if kind.startswith("straight_through_"):
        mode = kind.removeprefix("straight_through_")
        return straight_through_weights(scores_QxK, mask_QxK, mode=mode)
    if kind == "annealed_leftmost":
        return attention.softmax_weights(scores_QxK / temperature, mask_QxK)
    return attention.attention_weights(scores_QxK, kind, mask_QxK)


def straight_through_forward(
    params: ModelParams, tokens_N: jax.Array, mode: str, temperature: float | jax.Array = 1.0
) -> jax.Array:
    """Classifier output of one sequence with every attention layer's weights from ``mode``.

    ``mode`` is one of :data:`TRAINING_MODES`; ``"softmax"`` is the plain softmax model. The
    forward value with ``"straight_through_leftmost"`` is that of
    ``forward(params with attention="hard_leftmost", tokens_N)``. ``"annealed_leftmost"`` is
    softmax of ``scores / temperature`` (a temperature the training loop takes towards 0, where
    softmax tends to hard attention: uniform over the maximizers, leftmost-hard where the maximum
    is unique). Mirrors
    :func:`transformer_theory.core.forward.forward_trace` and
    :func:`transformer_theory.core.layers.attention_layer` (no extra mask argument).
    """
    _validate.check_choice("mode", mode, TRAINING_MODES)
    cfg = params.config
    _validate.check_ndim("tokens_N", tokens_N, 1)
    h = embed(params, tokens_N)
    n = h.shape[0]
    mask = masks.causal_mask(n) if cfg.causal else None
    for layer in params.layers:
        x = h
        if layer.norm1 is not None:
            x = norms.apply_norm(cfg.norm1, x, layer.norm1.scale, layer.norm1.bias, cfg.norm_eps)
        scores = attention_scores(layer, x, cfg)
        weights = jax.vmap(lambda s: _weights(mode, s, mask, temperature))(scores)
        values = jnp.einsum("hed,nd->hne", layer.attn.w_v, x)
        heads_out = jnp.einsum("hij,hjd->hid", weights, values)
        z = h + (jnp.mean(heads_out, axis=0) if cfg.head_mean else jnp.sum(heads_out, axis=0))
        if layer.mlp is not None:
            u = z
            if layer.norm2 is not None:
                u = norms.apply_norm(
                    cfg.norm2, u, layer.norm2.scale, layer.norm2.bias, cfg.norm_eps
                )
            z = z + mlp(layer.mlp, u, cfg.mlp_activation)
        h = z
    last = h[-1]
    if params.final_norm is not None:
        last = norms.apply_norm(
            cfg.final_norm, last, params.final_norm.scale, params.final_norm.bias, cfg.norm_eps
        )
    return params.w_o @ last


def model_config(language: str, small: bool = False) -> ModelConfig:
    """The trained model of a row: the same code and masking as the row's construction (PARITY
    bidirectional with the Chiang & Cholak 2022 code ``(i/n, (-1)^i)`` and a final LayerNorm,
    Dyck-1 causal with no positional code); two layers of two heads and an MLP of 32 (``small``:
    one head, one layer, no MLP -- the smoke test's, which compiles fast). The ``attention`` field
    is ``"softmax"``; :func:`deployed` sets the one a trained model is evaluated with."""
    _validate.check_choice("language", language, ("parity", "dyck1"))
    common = dict(heads=(2, 2), attention="softmax", mlp_hidden=32, scale_scores=True)
    if small:
        common.update(heads=(1,), mlp_hidden=None)
    if language == "parity":
        return ModelConfig(
            tasks.VOCAB_SIZE, 2, 16, 2, positional="chiang_cholak", final_norm="layernorm", **common
        )
    return ModelConfig(tasks.VOCAB_SIZE, 2, 16, 2, causal=True, positional="none", **common)


def deployed(params: ModelParams, mode: str) -> ModelParams:
    """The model a run in ``mode`` trained, as the core evaluates it: ``softmax`` stays softmax,
    a straight-through run is its hard-attention model (``hard_leftmost`` / ``hard_average``)."""
    _validate.check_choice("mode", mode, TRAINING_MODES)
    return params.replace(config=params.config.replace(attention=EVAL_ATTENTION[mode]))


@jax.jit
def _logits(params, inputs_BxN):
    return jax.vmap(lambda t: forward(params, t))(inputs_BxN)


def accuracy(params: ModelParams, language: str, length: int, samples: int, seed: int) -> float:
    """Accuracy of ``params`` (evaluated by :func:`transformer_theory.core.forward`) on ``samples``
    balanced strings of ``length`` (:func:`.tasks.sample`, labels from the membership
    reference)."""
    strings, labels = tasks.sample(language, length, samples, seed=seed)
    bos = np.full((len(strings), 1), tasks.BOS, np.int32)
    inputs = jnp.asarray(np.concatenate([bos, strings], axis=1))
    chunk = max(1, 2**21 // (length + 1) ** 2)
    preds = np.concatenate(
        [np.argmax(_logits(params, inputs[i : i + chunk]), -1) for i in range(0, samples, chunk)]
    )
    return float(np.mean(preds == labels))


def train(
    language: str,
    mode: str,
    *,
    steps: int,
    batch: int,
    seed: int,
    lengths: Iterable[int],
    learning_rate: float = 3e-3,
    final_temperature: float = 0.01,
    small: bool = False,
) -> tuple[ModelParams, list[float]]:
    """Adam on the cross-entropy of :func:`straight_through_forward` in ``mode``, through
    :func:`transformer_theory.train.fit.fit`; each step draws one length of ``lengths`` and a
    fresh balanced batch. ``"annealed_leftmost"`` lowers the temperature geometrically from 1 at
    the first step to ``final_temperature`` at the last (the temperature is an argument of each
    step's batch); its losses are those of the softmax at that temperature, not of the hard model.

    Args:
      language: ``"parity"`` or ``"dyck1"`` (:func:`model_config`).
      mode: one of :data:`TRAINING_MODES`.
      steps: Adam steps; batch: strings per step; seed: initialization, lengths and strings.
      lengths: the training lengths, each with both classes (:func:`.tasks.has_both_classes`).
      learning_rate: Adam's; final_temperature: the annealed mode's last temperature.
      small: :func:`model_config`'s one-head model (the smoke tests').

    Returns:
      ``(params, losses)``: the parameters with ``config.attention = "softmax"`` (pass them through
      :func:`deployed` to evaluate the trained model) and the loss of every step -- for a
      straight-through mode, the loss of the hard-attention model itself. A step with a
      non-finite loss or gradient is not applied and ends the run (``fit``): then ``losses`` ends
      with that loss, and is shorter than ``steps``.
    """
    _validate.check_choice("mode", mode, TRAINING_MODES)
    for name, value in (("steps", steps), ("batch", batch)):
        _validate.check_positive(name, value)
        if int(value) != value:
            raise ValueError(f"{name}: expected an integer, got {value}")
    _validate.check_positive("learning_rate", learning_rate)
    _validate.check_positive("final_temperature", final_temperature)
    lengths = [int(n) for n in lengths]
    if not lengths:
        raise ValueError("lengths: expected at least one training length")
    for n in lengths:
        if not tasks.has_both_classes(language, n):
            raise ValueError(f"lengths: {language} has no balanced sample at length {n}")
    params = init_params(jax.random.key(seed), model_config(language, small=small))
    rng = np.random.default_rng(seed)
    steps = int(steps)

    def batch_of_step(k: int) -> tuple[jax.Array, jax.Array, jax.Array]:
        # Called once per step, in order (fit's contract): the lengths drawn from ``rng`` are the
        # same sequence as the loop's that this replaced.
        length = int(rng.choice(lengths))
        strings, labels = tasks.sample(language, length, int(batch), seed=seed * 100_003 + k)
        bos = np.full((len(strings), 1), tasks.BOS, np.int32)
        inputs = jnp.asarray(np.concatenate([bos, strings], axis=1))
        temperature = float(final_temperature) ** (k / max(steps - 1, 1))
        return inputs, jnp.asarray(labels, jnp.int32), jnp.float32(temperature)

    def loss_fn(p, inputs_BxN, labels_B, temperature):
        logits = jax.vmap(lambda t: straight_through_forward(p, t, mode, temperature))(inputs_BxN)
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels_B).mean()

    result = fit(params, loss_fn, batch_of_step, optimizer=optax.adam(learning_rate), steps=steps)
    return result.params, result.losses
