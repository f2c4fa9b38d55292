"""Training hard-attention transformers with a straight-through estimator, for the upper-bound rows
of Strobl et al. 2024's table (Hahn 2020: no leftmost-hard transformer recognizes PARITY or
Dyck-1 at every length), on PARITY, Dyck-1 and Dyck-(2, :data:`DYCK2_DEPTH`) (:mod:`._tasks_dyck_k`:
bounded depth, so its recognizer stands beside the trained models).

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

The other route, ``"annealed_leftmost"``, a curriculum: softmax attention of ``scores /
temperature`` with the temperature lowered geometrically to ``final_temperature``, then (the last
``hard_fraction`` of the steps, :func:`train_hard_attention`) the straight-through leftmost-hard
forward with the
gradient of that low-temperature softmax, so that the model trained last IS the leftmost-hard
one. With ``hard_fraction = 0`` the run ends on the softmax; where scores tie (no positional
code: equal symbols give equal scores) low-temperature softmax tends to AVERAGE-hard attention,
not leftmost-hard, and the deployed hard model is one training never ran.

A run that fails to learn proves no theorem: Hahn's result is an asymptotic statement about every
parameter setting at unbounded length, which no finite training run can confirm or refute.

Shape letters: see :mod:`transformer_theory.glossary` (``B`` strings, ``N`` positions, ``D``
width).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import optax

from transformer_theory import _validate
from transformer_theory.core import attention, masks, norms
from transformer_theory.core.forward import embed, forward
from transformer_theory.core.layers import attention_scores, mlp
from transformer_theory.papers.formal_languages import _tasks as tasks
from transformer_theory.papers.formal_languages import _tasks_dyck_k
from transformer_theory.params import ModelConfig, ModelParams, init_params
from transformer_theory.train.fit import fit

__all__ = [
    "DYCK2_DEPTH",
    "EVAL_ATTENTION",
    "LANGUAGES",
    "SCHEDULES",
    "TRAINING_MODES",
    "accuracy",
    "accuracy_on",
    "bos",
    "deployed",
    "has_both_classes",
    "model_config",
    "sample",
    "sampler",
    "straight_through_forward",
    "straight_through_weights",
    "train_hard_attention",
]

LANGUAGES = ("parity", "dyck1", "dyck2")
# Dyck-2 is Dyck-(2, DYCK2_DEPTH) of :mod:`._tasks_dyck_k`: bounded depth, so that the recognizer
# ``_constructions_dyck_k.dyck_k_recognizer(2, DYCK2_DEPTH)`` stands beside the trained models (and
# the
# language is star-free: see :func:`model_config`).
DYCK2_DEPTH = 3
SCHEDULES = ("constant", "cosine")

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


def _weights(kind: str, scores_QxK, mask_QxK, temperature, hard):
    if kind.startswith("straight_through_"):
        mode = kind.removeprefix("straight_through_")
        return straight_through_weights(scores_QxK, mask_QxK, mode=mode)
    if kind == "annealed_leftmost":
        # hard = 0: softmax of scores / temperature, exactly; hard = 1: leftmost-hard weights
        # exactly (1 * w + 0 * s + (s - s) adds zeros), with the gradient of that softmax.
        soft = attention.softmax_weights(scores_QxK / temperature, mask_QxK)
        leftmost = attention.hard_weights(scores_QxK, mask_QxK, mode="leftmost")
        stop = jax.lax.stop_gradient
        return hard * stop(leftmost) + (1 - hard) * stop(soft) + (soft - stop(soft))
    return attention.attention_weights(scores_QxK, kind, mask_QxK)


def straight_through_forward(
    params: ModelParams,
    tokens_N: jax.Array,
    mode: str,
    temperature: float | jax.Array = 1.0,
    hard: float | jax.Array = 0.0,
) -> jax.Array:
    """Classifier output of one sequence with every attention layer's weights from ``mode``.

    ``mode`` is one of :data:`TRAINING_MODES`; ``"softmax"`` is the plain softmax model. The
    forward value with ``"straight_through_leftmost"`` is that of
    ``forward(params with attention="hard_leftmost", tokens_N)``. ``"annealed_leftmost"`` is
    softmax of ``scores / temperature`` (a temperature the training loop takes towards 0, where
    softmax tends to hard attention: uniform over the maximizers, leftmost-hard where the maximum
    is unique); with ``hard = 1`` its forward value is the leftmost-hard model's exactly and its
    gradient that of the softmax at ``temperature`` (the straight-through phase of the
    curriculum of :func:`train_hard_attention`). Mirrors
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
        weights = jax.vmap(lambda s: _weights(mode, s, mask, temperature, hard))(scores)
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


def bos(language: str) -> int:
    """The BOS token id a model of ``language`` reads first (PARITY, Dyck-1: :data:`._tasks.BOS`;
    Dyck-2: ``2k = 4``, as :mod:`._tasks_dyck_k`)."""
    _validate.check_choice("language", language, LANGUAGES)
    return 4 if language == "dyck2" else tasks.BOS


def has_both_classes(language: str, length: int) -> bool:
    """Whether a balanced sample of ``language`` exists at ``length`` (Dyck: even ``length >= 2``,
    PARITY: ``length >= 1``)."""
    _validate.check_choice("language", language, LANGUAGES)
    # The rule of :func:`._tasks.has_both_classes` (Dyck-1, PARITY) and of
    # :func:`._tasks_dyck_k.dyck_k_sample` (Dyck-(2, D): even lengths); a test checks they agree.
    if language == "parity":
        return length >= 1
    return length >= 2 and length % 2 == 0


Sampler = Callable[[int, int, int], tuple[np.ndarray, np.ndarray]]


def _dyck2_sample(length: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    strings, labels, _ = _tasks_dyck_k.dyck_k_sample(2, DYCK2_DEPTH, length, count, seed=seed)
    return strings, labels


def sampler(language: str) -> Sampler:
    """The sampler of ``language``, resolved once: ``draw(length, count, seed)`` gives ``count``
    balanced strings of ``length`` and their membership (``count // 2`` non-members).

    PARITY and Dyck-1: :func:`._tasks.sample`. Dyck-2: :func:`._tasks_dyck_k.dyck_k_sample` of
    Dyck-(2, :data:`DYCK2_DEPTH`): members uniform over the bounded-depth shapes, non-members the
    hard kinds ``swap``, ``overflow``, ``dip`` in turn; labels from the stack of
    :func:`._tasks_dyck_k.is_dyck_k_member`.
    """
    _validate.check_choice("language", language, LANGUAGES)
    if language == "dyck2":
        return _dyck2_sample
    return partial(tasks.sample, language)


def sample(language: str, length: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` balanced strings of ``length`` and their membership: :func:`sampler`'s draw."""
    return sampler(language)(length, count, seed)


def _inputs(language: str, strings_BxL: np.ndarray) -> jax.Array:
    first = np.full((len(strings_BxL), 1), bos(language), np.int32)
    return jnp.asarray(np.concatenate([first, strings_BxL], axis=1))


def model_config(
    language: str,
    small: bool = False,
    *,
    width: int = 16,
    layers: int = 2,
    positional: str | None = None,
) -> ModelConfig:
    """The trained model of a row: the same masking as the row's construction (PARITY
    bidirectional with a final LayerNorm; Dyck-1 and Dyck-2 causal); ``layers`` layers of two
    heads, each with an MLP of ``2 * width`` (``small``: one head, one layer, no MLP -- the smoke
    tests', which compile fast). The ``attention`` field is ``"softmax"``; :func:`deployed` sets
    the one a trained model is evaluated with.

    Positional code (``positional=None``: the row's): PARITY the Chiang & Cholak 2022 code
    ``(i/n, (-1)^i)`` of its construction; Dyck-1 none (its construction's); Dyck-2 the core's
    ``"chiang_cholak"`` code, whose ``i/n`` is the tie-break coordinate of the Dyck-(k, D)
    construction after Yao et al. 2021 (:mod:`._tasks_dyck_k`, code ``(i/n, n)``; the ``(-1)^i``
    coordinate is extra and carries nothing a causal model cannot count: the depth's parity is
    the position's). Any other kind of :data:`transformer_theory.params.POSITIONAL_KINDS` may
    be passed.

    What exists for leftmost-hard attention (not checked here; what the literature gives): the
    constructions beside these models are average-hard (Dyck-1, and layer 1 of Dyck-(2, D): a
    uniform average), so they do not show a leftmost-hard recognizer. Bounded-depth Dyck
    languages are star-free (their syntactic monoid is aperiodic), and masked hard-attention
    transformers (leftmost- or rightmost-hard, STRICT future masking, no positional code)
    recognize exactly the star-free languages (Yang, Chiang & Angluin 2024), so a leftmost-hard
    recognizer of Dyck-(2, D) exists in that model, its depth growing with ``D``; Dyck-1 on lengths
    up to 16 is Dyck-(1, 8) there, so one exists for the training lengths too. That model is not
    the one trained here (non-strict causal masking, a positional code, a fixed number of
    layers): whether these exact architectures hold a leftmost-hard recognizer of the training
    lengths is not shown. At every length, Hahn 2020 rules out a leftmost-hard PARITY or Dyck-1
    recognizer.
    """
    _validate.check_choice("language", language, LANGUAGES)
    _validate.check_int_arg("width", width, minimum=4)
    _validate.check_int_arg("layers", layers, minimum=1)
    common = dict(heads=(2,) * layers, attention="softmax", mlp_hidden=2 * width, scale_scores=True)
    if small:
        common.update(heads=(1,), mlp_hidden=None)
    if language == "parity":
        return ModelConfig(
            tasks.VOCAB_SIZE,
            2,
            width,
            2,
            positional=positional or "chiang_cholak",
            final_norm="layernorm",
            **common,
        )
    vocab = 5 if language == "dyck2" else tasks.VOCAB_SIZE
    default = "chiang_cholak" if language == "dyck2" else "none"
    return ModelConfig(vocab, 2, width, 2, causal=True, positional=positional or default, **common)


def deployed(params: ModelParams, mode: str) -> ModelParams:
    """The model a run in ``mode`` trained, as the core evaluates it: ``softmax`` stays softmax,
    a straight-through run is its hard-attention model (``hard_leftmost`` / ``hard_average``)."""
    _validate.check_choice("mode", mode, TRAINING_MODES)
    return params.replace(config=params.config.replace(attention=EVAL_ATTENTION[mode]))


@jax.jit
def _logits(params, inputs_BxN):
    return jax.vmap(lambda t: forward(params, t))(inputs_BxN)


def accuracy_on(
    params: ModelParams, language: str, strings_BxL: np.ndarray, labels_B: np.ndarray
) -> float:
    """Accuracy of ``params`` (evaluated by :func:`transformer_theory.core.forward`, each string
    after :func:`bos`) on ``strings_BxL`` against ``labels_B``."""
    inputs = _inputs(language, strings_BxL)
    length, samples = strings_BxL.shape[1], len(strings_BxL)
    chunk = max(1, 2**21 // (length + 1) ** 2)
    preds = np.concatenate(
        [np.argmax(_logits(params, inputs[i : i + chunk]), -1) for i in range(0, samples, chunk)]
    )
    return float(np.mean(preds == labels_B))


def accuracy(params: ModelParams, language: str, length: int, samples: int, seed: int) -> float:
    """Accuracy of ``params`` on ``samples`` balanced strings of ``length`` (:func:`sample`,
    labels from the membership reference): :func:`accuracy_on`."""
    strings, labels = sample(language, length, samples, seed=seed)
    return accuracy_on(params, language, strings, labels)


def train_hard_attention(
    language: str,
    mode: str,
    *,
    steps: int,
    batch: int,
    seed: int,
    lengths: Iterable[int],
    learning_rate: float = 3e-3,
    final_temperature: float = 0.01,
    hard_fraction: float = 0.0,
    schedule: str = "constant",
    width: int = 16,
    layers: int = 2,
    positional: str | None = None,
    small: bool = False,
    draw: Sampler | None = None,
) -> tuple[ModelParams, list[float]]:
    """Adam on the cross-entropy of :func:`straight_through_forward` in ``mode``, through
    :func:`transformer_theory.train.fit.fit`; each step draws one length of ``lengths`` and a
    fresh balanced batch (``draw``, by default :func:`sampler` of ``language``).

    ``"annealed_leftmost"`` is a curriculum: for the first ``steps - H`` steps (``H = round(
    hard_fraction * steps)``) softmax of ``scores / T`` with ``T`` lowered geometrically from 1 to
    ``final_temperature``; for the last ``H`` steps ``T`` stays at ``final_temperature`` and the
    forward pass is leftmost-hard attention exactly (straight-through, the gradient of that
    softmax). With ``hard_fraction = 0`` the run ends on the softmax and the model deployed as
    leftmost-hard is one the last steps did not see; with ``hard_fraction > 0`` the last ``H``
    losses are those of the leftmost-hard model itself.

    Args:
      language: one of :data:`LANGUAGES` (:func:`model_config`).
      mode: one of :data:`TRAINING_MODES`.
      steps: Adam steps; batch: strings per step; seed: initialization, lengths and strings.
      lengths: the training lengths, each with both classes (:func:`has_both_classes`).
      learning_rate: Adam's (the peak, with ``schedule="cosine"``: a cosine decay to a tenth
        over the run); final_temperature: the annealed mode's last temperature;
        hard_fraction: in ``[0, 1]``, the annealed mode's straight-through share (0 for other
        modes); width, layers, positional: :func:`model_config`'s; small: its one-head model (the
        smoke tests').
      draw: the sampler of ``language`` (:func:`sampler`'s, which a caller that resolved it
        passes; ``None``: resolved here).

    Returns:
      ``(params, losses)``: the parameters with ``config.attention = "softmax"`` (pass them through
      :func:`deployed` to evaluate the trained model) and the loss of every step -- for a
      straight-through step, the loss of the hard-attention model itself. A step with a
      non-finite loss or gradient is not applied and ends the run (``fit``): then ``losses`` ends
      with that loss, and is shorter than ``steps``.
    """
    _validate.check_choice("language", language, LANGUAGES)
    _validate.check_choice("mode", mode, TRAINING_MODES)
    _validate.check_choice("schedule", schedule, SCHEDULES)
    for name, value in (("steps", steps), ("batch", batch)):
        _validate.check_positive(name, value)
        if int(value) != value:
            raise ValueError(f"{name}: expected an integer, got {value}")
    _validate.check_positive("learning_rate", learning_rate)
    _validate.check_positive("final_temperature", final_temperature)
    if not 0.0 <= hard_fraction <= 1.0:
        raise ValueError(f"hard_fraction: expected a number in [0, 1], got {hard_fraction}")
    if hard_fraction and mode != "annealed_leftmost":
        raise ValueError(f"hard_fraction: only the annealed_leftmost mode has one, got {mode!r}")
    lengths = [int(n) for n in lengths]
    if not lengths:
        raise ValueError("lengths: expected at least one training length")
    for n in lengths:
        if not has_both_classes(language, n):
            raise ValueError(f"lengths: {language} has no balanced sample at length {n}")
    draw = sampler(language) if draw is None else draw
    config = model_config(language, small=small, width=width, layers=layers, positional=positional)
    params = init_params(jax.random.key(seed), config)
    rng = np.random.default_rng(seed)
    steps = int(steps)
    anneal = steps - int(round(hard_fraction * steps))

    def batch_of_step(k: int) -> tuple[jax.Array, ...]:
        # Called once per step, in order (fit's contract): the lengths drawn from ``rng`` are the
        # same sequence as the loop's that this replaced.
        length = int(rng.choice(lengths))
        strings, labels = draw(length, int(batch), seed * 100_003 + k)
        temperature = float(final_temperature) ** (min(k, max(anneal - 1, 0)) / max(anneal - 1, 1))
        hard = 1.0 if k >= anneal else 0.0
        return (
            _inputs(language, strings),
            jnp.asarray(labels, jnp.int32),
            jnp.float32(temperature),
            jnp.float32(hard),
        )

    def loss_fn(p, inputs_BxN, labels_B, temperature, hard):
        logits = jax.vmap(lambda t: straight_through_forward(p, t, mode, temperature, hard))(
            inputs_BxN
        )
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels_B).mean()

    rate = (
        optax.cosine_decay_schedule(learning_rate, steps, alpha=0.1)
        if schedule == "cosine"
        else learning_rate
    )
    result = fit(params, loss_fn, batch_of_step, optimizer=optax.adam(rate), steps=steps)
    return result.params, result.losses
