"""Training and held-out data drawn from a task of :mod:`transformer_theory.tasks`.

A task is any object with ``size``, ``all(limit=...)``, ``sample(key, num)`` (the tasks API).

- Small datasets (``size <= max_materialize``) are materialized once and split by a seeded random
  permutation into a held-out set (``holdout`` fraction, at most ``eval_size`` examples) and a
  training set; training batches are drawn uniformly (with replacement) from the training set
  inside the jitted sampler. With ``eval_on_train`` (memorization, Chen & Zou 2024, §4.1: the
  labels are random, so the only meaningful accuracy is on the memorized set) the held-out set IS
  the training set.
- Large datasets (paper sizes) are never materialized: batches come from ``task.sample`` with the
  per-step key and the held-out set is a fixed sample with its own key. Overlap between the two is
  possible but negligible (at most ``steps * batch / size`` of the held-out set in expectation).

Class balance (``balance_classes``, used for template matching): the template task's classes are
very unequal in size -- ``abc``-like templates with many distinct wildcards own most sequences
(72% of ``TemplateMatching(10, all_templates(3))``, >97% at §9.1's 210 symbols) -- so uniform
sequences would let a constant "majority template" answer score 0.72-0.97. Balanced, training
batches draw a class uniformly and then a sequence of that class, and held-out loss/accuracy are
class-balanced means (each class weighs ``1/C``), so chance is ``1/C`` as in Chen & Zou 2024,
Figure 2.

Array names carry their shapes in the letters of :mod:`transformer_theory.glossary` (``B``
examples: a batch, the held-out set or the training set; ``N`` sequence length).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "DataSettings",
    "TaskData",
]


@dataclasses.dataclass(frozen=True)
class DataSettings:
    """How to split a task into training and held-out data.

    Attributes:
      eval_on_train: evaluate on the training set (memorization).
      holdout: fraction of a materialized dataset held out (capped by ``eval_size``).
      eval_size: maximum number of held-out examples.
      max_materialize: datasets up to this size are materialized and split exactly.
      balance_classes: sample training batches class-uniformly and weight held-out metrics by
        ``1/(C * count(class))`` (see the module docstring).
    """

    eval_on_train: bool = False
    balance_classes: bool = False
    holdout: float = 0.2
    eval_size: int = 1024
    max_materialize: int = 200_000

    def __post_init__(self):
        if not 0.0 < self.holdout < 1.0:
            raise ValueError(f"holdout: expected a fraction in (0, 1), got {self.holdout}")
        if self.eval_size <= 0:
            raise ValueError(f"eval_size: expected a positive count, got {self.eval_size}")


class TaskData:
    """Training batches and a fixed held-out set of ``task`` (see the module docstring).

    Args:
      task: a task object of the tasks API.
      key: PRNG key of the split / held-out sample.
      config: the :class:`DataSettings`.

    Attributes:
      eval_tokens_BxN, eval_labels_B: the held-out set.
      eval_weights_B: weights of the held-out examples in the metrics (sum 1; uniform unless
        balanced).
      train_tokens_BxN, train_labels_B: the training set when materialized, else None.
    """

    def __init__(self, task: Any, key: jax.Array, config: DataSettings = DataSettings()):
        self.task = task
        self.config = config
        size = int(task.size)
        if size <= 0:
            raise ValueError(f"task: empty dataset (size {size})")
        self.size = size
        self.materialized = size <= config.max_materialize
        if self.materialized:
            tokens, labels = task.all(limit=config.max_materialize)
            tokens, labels = jnp.asarray(tokens, jnp.int32), jnp.asarray(labels, jnp.int32)
            if config.eval_on_train:
                self.train_tokens_BxN, self.train_labels_B = tokens, labels
                self.eval_tokens_BxN, self.eval_labels_B = tokens, labels
            else:
                if size < 2:
                    raise ValueError("task: need at least 2 examples to hold one out")
                n_eval = max(1, min(config.eval_size, int(round(config.holdout * size))))
                perm = jax.random.permutation(key, size)
                ev, tr = perm[:n_eval], perm[n_eval:]
                self.eval_tokens_BxN, self.eval_labels_B = tokens[ev], labels[ev]
                self.train_tokens_BxN, self.train_labels_B = tokens[tr], labels[tr]
        else:
            self.train_tokens_BxN = self.train_labels_B = None
            tokens, labels = self._sample_large(key, config.eval_size)
            self.eval_tokens_BxN, self.eval_labels_B = (
                jnp.asarray(tokens, jnp.int32),
                jnp.asarray(labels, jnp.int32),
            )
        self.eval_weights_B = _weights(self.eval_labels_B, config.balance_classes)
        self.train_probs_B = None
        if self.materialized and config.balance_classes:
            self.train_probs_B = _weights(self.train_labels_B, True)

    def _sample_large(self, key, num):
        """Uniform draws from a dataset too large to materialize; class-balanced for template
        tasks."""
        if not self.config.balance_classes:
            return self.task.sample(key, num)
        if not hasattr(self.task, "sample_balanced"):
            raise ValueError(
                "config.balance_classes: balanced sampling of unmaterialized data needs "
                "a TemplateMatching task"
            )
        # the template uniformly, then a sequence of it (one block of the index space per
        # template): one compiled call whatever the batch's mix of templates
        return self.task.sample_balanced(key, num)

    @property
    def num_train(self) -> int | None:
        return None if self.train_labels_B is None else int(self.train_labels_B.shape[0])

    def batch(self, key: jax.Array, batch_size: int) -> tuple[jax.Array, jax.Array]:
        """A training batch ``(tokens_BxN, labels_B)`` for this step's ``key``.

        The whole training set (in order) when it has at most ``batch_size`` examples -- full-batch
        gradient descent, as for the paper's memorization sets -- else ``batch_size`` uniform draws.
        """
        if batch_size <= 0:
            raise ValueError(f"batch_size: expected a positive size, got {batch_size}")
        if not self.materialized:
            tokens, labels = self._sample_large(key, batch_size)
            return jnp.asarray(tokens, jnp.int32), jnp.asarray(labels, jnp.int32)
        if self.train_probs_B is not None:
            return _draw_weighted(
                key, self.train_tokens_BxN, self.train_labels_B, self.train_probs_B, batch_size
            )
        if self.num_train <= batch_size:
            return self.train_tokens_BxN, self.train_labels_B
        return _draw(key, self.train_tokens_BxN, self.train_labels_B, batch_size)


def _draw_impl(key, tokens_BxN, labels_B, batch_size):
    idx = jax.random.randint(key, (batch_size,), 0, labels_B.shape[0])
    return tokens_BxN[idx], labels_B[idx]


_draw = jax.jit(_draw_impl, static_argnames=("batch_size",))


def _draw_weighted_impl(key, tokens_BxN, labels_B, probs_B, batch_size):
    idx = jax.random.choice(key, labels_B.shape[0], (batch_size,), replace=True, p=probs_B)
    return tokens_BxN[idx], labels_B[idx]


_draw_weighted = jax.jit(_draw_weighted_impl, static_argnames=("batch_size",))


def _weights(labels, balanced: bool) -> jax.Array:
    """Per-example weights summing to 1: uniform, or ``1 / (classes present * count(class))``."""
    labels = np.asarray(labels)
    if not balanced:
        return jnp.full(labels.shape, 1.0 / len(labels), jnp.float32)
    classes, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    return jnp.asarray(1.0 / (len(classes) * counts[inverse]), jnp.float32)
