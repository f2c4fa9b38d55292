"""Variants of the paper-size recipe for the 3-layer contextual generalization model (Chen & Zou
2024, §9.1), trained one seed at a time with the sweep's batches and initialization.

The paper-size Figure 2 sweep (``fig2_paper``: Adam 3e-4, global-norm clip 1.0, width
``d + n + l + 2``) takes seeds 1 and 2 of this model to 0.99 and leaves seed 0 at 0.81-0.85; a
variant changes one thing:

- ``base``: the sweep's recipe;
- ``wideK``: ``K`` more padding coordinates than Theorem 6's ``l + 2`` (e.g. ``wide16``);
- ``cosine``: Adam with a 200-step linear warm-up to 3e-4, then cosine decay to 0 at the last step;
- ``lrX``: Adam at learning rate ``X`` (e.g. ``lr1e-4``);
- ``literal``: §9.1's initialization read literally, layers 2-3's ``W_QK`` uniform in ``[0, 1)``
  (the sweep scales them to ``[0, 0.1)``).

``experiments/contextual_depth3_recipes.py`` runs one (its settings, command and measured result).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator

import jax
import optax
from flax import nnx

from transformer_theory.nn import from_params
from transformer_theory.sweeps.runs import build_run
from transformer_theory.sweeps.setups import PAPER
from transformer_theory.sweeps.specs import RunSpec
from transformer_theory.train.loop import make_steps

__all__ = ["EVAL_EVERY", "RecipeEval", "check_variant", "recipe_optimizer", "train_recipe"]

LEARNING_RATE = 3e-4
GRAD_CLIP = 1.0
#: Steps between two held-out evaluations.
EVAL_EVERY = 500


def check_variant(variant: str) -> str:
    """Raise a ValueError naming ``variant`` unless it is base, wideK (K > 0), cosine, lrX (X > 0)
    or literal; return it."""
    ok = variant in ("base", "cosine", "literal")
    for prefix, parse in (("wide", int), ("lr", float)):
        if not ok and variant.startswith(prefix):
            try:
                ok = parse(variant[len(prefix) :]) > 0
            except ValueError:
                ok = False
    if not ok:
        raise ValueError(f"variant: expected base, wideK, cosine, lrX or literal, got {variant!r}")
    return variant


def recipe_optimizer(variant: str, steps: int) -> optax.GradientTransformation:
    """The variant's Adam, after the sweep's global-norm clipping."""
    if variant == "cosine":
        lr = optax.warmup_cosine_decay_schedule(0.0, LEARNING_RATE, 200, steps, 0.0)
    elif variant.startswith("lr"):
        lr = float(variant[2:])
    else:
        lr = LEARNING_RATE
    return optax.chain(optax.clip_by_global_norm(GRAD_CLIP), optax.adam(lr))


@dataclasses.dataclass(frozen=True)
class RecipeEval:
    """One held-out evaluation of a recipe run."""

    step: int
    train_loss: float
    eval_acc: float
    seconds: float


def train_recipe(
    variant: str, seed: int, steps: int, clock: Callable[[], float] = time.time
) -> Iterator[RecipeEval]:
    """Train seed ``seed`` of the paper-size contextual model (depth 3, one head per layer) under
    ``variant`` for ``steps`` steps, yielding a :class:`RecipeEval` every :data:`EVAL_EVERY`.

    Batches are the sweep's (``fold_in(fold_in(key(seed), 1), step)``), the initialization the
    sweep's (:func:`transformer_theory.sweeps.build_run`).
    """
    check_variant(variant)
    setup = PAPER["contextual"]
    if variant.startswith("wide"):
        setup = dataclasses.replace(setup, extra_width=setup.extra_width + int(variant[4:]))
    if variant == "literal":
        setup = dataclasses.replace(setup, later_qk_scale=1.0)
    tx = recipe_optimizer(variant, steps)  # the variant's optimizer, then the sweep's run
    params, data, tc, _ = build_run(RunSpec("contextual", (1, 1, 1), seed, "paper", setup=setup))
    graphdef, state = nnx.split(from_params(params))
    opt_state = tx.init(state)
    train_step, eval_step = make_steps(graphdef, tx)
    key = jax.random.fold_in(jax.random.key(seed), 1)
    t0 = clock()
    for step in range(steps):
        tokens, labels = data.batch(jax.random.fold_in(key, step), tc.batch_size)
        state, opt_state, loss, _ = train_step(state, opt_state, tokens, labels)
        if (step + 1) % EVAL_EVERY == 0:
            _, acc = eval_step(state, data.eval_tokens_BxN, data.eval_labels_B, data.eval_weights_B)
            yield RecipeEval(step + 1, float(loss), float(acc), round(clock() - t0, 1))
