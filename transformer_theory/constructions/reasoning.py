"""Chen & Zou 2024, §13.2, Theorem 3: two layers, one head, ``d' = d + n`` answer in-context
questions.

Layout (``InContextQA``): questions ``[0, n_q)``, answers ``[n_q, n_q + n_a)``, response sign
``r = d - 1``; ``n = 3k + 2`` positions ``q r a  q r a ...  q_c r``.

- Layer 1 (copy within each question-answer block): Lemma 1 with
  ``alpha1 = blockdiag(A3, ..., A3, A2)``, ``A3 = 1 - I_3``, ``A2 = 1 - I_2``; ``W_V = I``. Every
  position of block ``b`` then holds ``q_b + r + a_b`` (plus positions); the last two hold
  ``q_c + r``.
- Layer 2 (match): ``W_QK = I`` on the question block; the last position attends with weight 1
  to the three positions of the block whose question equals ``q_c`` and to the last two, so
  ``h_{n-1} = [6 q_c; 3 a_c; 6 r; 3 p_{3k,3k+1} + 3 p_block]`` (the paper's formula).
- ``W_O`` reads the answer block: ``o = 3 e_{answer}``, margin exactly 3.

Corrections to the printed §13.2 (see :func:`theorem3_printed_classifier`):

1. The classifier is printed as ``W_O = [0_{d2 x (d1+1)}, I_{d2}, 0_{d2 x (n - (d1+d2+1))}]^T``.
   The transpose is the paper's convention, not an error: the paper applies classifiers on the
   right, ``x W`` with ``W`` in ``R^{d' x C}`` (Lemma 3 writes ``x_i W``, ``W in R^{d x N}``; §14.2
   writes ``W_C in R^{d' x C}``), so ``W_O`` is meant as a ``d' x d2`` matrix, the transpose of
   this library's ``w_o`` of shape ``(C, d')``. The error is the trailing width: the rows must
   add up to ``d' = d + n`` with ``d = d1 + d2 + 1``, so the trailing zero block is
   ``d' - (d1+d2+1) = n`` rows tall; as printed, ``n - (d1+d2+1)``, ``W_O`` has ``max(n, d)``
   rows (the block is empty when ``n < d``), never ``d'``.
2. The printed conclusion ``TF(H) = a_1`` for the example with ``r = 0`` is a typo: the model
   outputs ``a_0``, the answer of the matched block.

(The printed offset ``d1 + 1`` reflects the paper's token order ``q, r, a``; this library puts the
answers right after the questions and ``r`` last, so its ``w_o`` reads the answers at ``n_q``.)
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax.typing import DTypeLike

from transformer_theory.constructions._common import assemble, check_task, construction_config
from transformer_theory.constructions.attention import instructive_attention
from transformer_theory.params import ModelParams
from transformer_theory.tasks import InContextQA


def _sizes(task):
    check_task("task", task, InContextQA)  # before reading n_q etc. off an arbitrary object
    n_q, n_a, k = task.n_q, task.n_a, task.k
    check_task(
        "task", task, InContextQA, vocab_size=n_q + n_a + 1, seq_len=3 * k + 2, num_classes=n_a
    )
    return n_q, n_a, k


def _layers(n_q: int, n_a: int, k: int) -> tuple[list, int, int]:
    """The two attention layers of Theorem 3 as ``[(w_qk_1xDxD, w_v_1xDxD)] * 2`` plus ``(d,
    n)``."""
    d, n = n_q + n_a + 1, 3 * k + 2
    D = d + n
    alpha = np.zeros((n, n))
    for b in range(k):
        alpha[3 * b : 3 * b + 3, 3 * b : 3 * b + 3] = 1.0 - np.eye(3)
    alpha[n - 2 :, n - 2 :] = 1.0 - np.eye(2)
    w_qk1 = instructive_attention(alpha, d, D)
    w_qk2 = np.zeros((D, D))
    w_qk2[:n_q, :n_q] = np.eye(n_q)
    eye = np.eye(D)
    return [(w_qk1[None], eye[None]), (w_qk2[None], eye[None])], d, n


def theorem3(task: InContextQA, *, dtype: DTypeLike = jnp.float64) -> ModelParams:
    """Theorem 3's two-layer, one-head model for an ``InContextQA(n_q, n_a, k)`` task.

    Returns:
      ``ModelParams`` with ``heads=(1, 1)``, ``width = d + n``, ``num_classes = n_a``; on every
      example the correct answer's logit is 3 and every other logit 0.
    """
    n_q, n_a, k = _sizes(task)
    layers, d, n = _layers(n_q, n_a, k)
    D = d + n
    w_o = np.zeros((n_a, D))
    w_o[:, n_q : n_q + n_a] = np.eye(n_a)
    return assemble(construction_config(d, n, D, n_a, (1, 1)), layers, w_o, dtype)


def theorem3_printed_classifier(task: InContextQA, *, corrected_width: bool = False) -> np.ndarray:
    """§13.2's classifier in the paper's convention (``o = x W_O``, rows = coordinates in the
    paper's token order ``q, r, a``, then positions and padding; columns = the ``d2`` answers).

    ``[0_{d2 x (d1+1)}, I_{d2}, 0_{d2 x t}]^T`` with the printed trailing width
    ``t = n - (d1+d2+1)`` (taken as 0 when negative), or with ``corrected_width`` the width
    ``t = d' - (d1+d2+1) = n`` that makes it ``d' x d2``.
    """
    n_q, n_a, k = _sizes(task)
    n, d = 3 * k + 2, n_q + n_a + 1
    trailing = n if corrected_width else max(n - d, 0)  # d' - (d1+d2+1) = n
    block = np.concatenate(
        [np.zeros((n_a, n_q + 1)), np.eye(n_a), np.zeros((n_a, trailing))], axis=1
    )
    return block.T


def theorem3_as_printed(task: InContextQA, *, dtype: DTypeLike = jnp.float64) -> ModelParams:
    """Theorem 3 with the printed ``W_O`` (:func:`theorem3_printed_classifier`), unvalidated.

    The attention layers are the paper's (they are right); ``w_o`` is the printed matrix put in
    this library's ``(C, rows)`` layout, i.e. transposed back. Its ``max(n, d)`` columns cannot
    be a ``(C, d')`` classifier: ``validate_params`` rejects it and ``forward`` cannot apply it.
    """
    good = theorem3(task, dtype=dtype)
    return ModelParams(
        layers=good.layers,
        w_o=jnp.asarray(theorem3_printed_classifier(task).T, dtype),
        config=good.config,
    )
