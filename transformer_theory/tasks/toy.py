"""The paper's fixed toy sets (Chen & Zou 2024, §8 Table 1, §11, §13.1) as token ids.

Each function returns ``int32`` arrays in the token layout of the matching task class, so the task's
``describe`` prints them in Table 1 notation and its ``model_config`` fits them. The dependence
coefficients ``lambda`` (Definition 3: equal per-position token multisets on the positive and the
negative side) are given next to each set; with them Proposition 8 forces ``sum_i lambda_i o_i = 0``
for every single-layer model, which contradicts the labels (the argument of §13.1, eq. 14-16).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory.tasks.in_context_qa import InContextQA
from transformer_theory.tasks.in_context_template_matching import InContextTemplateMatching
from transformer_theory.tasks.template_matching import TemplateMatching, all_templates

#: §11's example: ``(a,b,r) ⊕ (b,a,r) = (a,a,r) ⊕ (b,b,r)``.
DEPENDENT_TOY_LAMBDAS = (1, 1, -1, -1)
#: Table 1's reasoning examples: rows 0 ⊕ 3 = rows 1 ⊕ 2 (position by position).
TABLE1_REASONING_LAMBDAS = (1, -1, -1, 1)
#: §13.1's ``D_toy-icl``: ``E0 ⊕ E1 = E2 ⊕ E3``.
TOY_ICL_LAMBDAS = (1, 1, -1, -1)

#: The tasks whose layouts the Table 1 sets use.
TABLE1_MEMORIZATION_VOCAB = 4  # a, b, c, → (a SequenceClassification(3, 2, 9) layout)
TABLE1_REASONING_TASK = InContextQA(n_q=2, n_a=2, k=2)
TABLE1_GENERALIZATION_TASK = TemplateMatching(alphabet_size=3, templates=all_templates(2))
TABLE1_CONTEXTUAL_TASK = InContextTemplateMatching(
    alphabet_size=2, n_a=2, templates=all_templates(2), k=2
)


def dependent_toy() -> jnp.ndarray:
    """§11's dependent sequences ``(a,b,r), (b,a,r), (a,a,r), (b,b,r)``, vocabulary ``{a: 0, b: 1,
    r: 2}``.

    Returns ``tokens_4x3`` int32; coefficients :data:`DEPENDENT_TOY_LAMBDAS`.
    """
    return jnp.array([[0, 1, 2], [1, 0, 2], [0, 0, 2], [1, 1, 2]], jnp.int32)


def _qa(rows: Sequence[tuple[Sequence[int], Sequence[int], int]]) -> tuple[jax.Array, jax.Array]:
    out = [TABLE1_REASONING_TASK.example(q, a, c) for q, a, c in rows]
    return jnp.stack([t for t, _ in out]), jnp.stack([y for _, y in out])


def table1_reasoning() -> tuple[jax.Array, jax.Array]:
    """Table 1's four reasoning examples in :data:`TABLE1_REASONING_TASK`'s layout (``InContextQA(2,
    2, 2)``).

    Row-major as printed: ``a → 1 b → 2 a → 1``, ``b → 1 a → 2 a → 2``, ``a → 1 b → 2 b → 2``,
    ``b → 1 a → 2 b → 1``. Ids: questions ``a=0, b=1``, answers ``1 -> 2, 2 -> 3``, ``→ = 4``;
    labels are
    answer indices (``0`` prints as ``1``). They are dependent with :data:`TABLE1_REASONING_LAMBDAS`
    (rows 0 and 3 hold, per position, the same tokens as rows 1 and 2) while rows 0, 3 answer ``1``
    and rows 1, 2 answer ``2``: §13.1's contradiction applies to them as to ``D_toy-icl``.

    Returns ``(tokens_4x8 int32, labels_4 int32)``.
    """
    return _qa([((0, 1), (0, 1), 0), ((1, 0), (0, 1), 1), ((0, 1), (0, 1), 1), ((1, 0), (0, 1), 0)])


def toy_icl() -> tuple[jax.Array, jax.Array]:
    """§13.1's ``D_toy-icl`` (questions ``a, b``, answers ``x, y``, ``=`` the response sign) in the
    same layout.

    ``a=x b=y a= → x``, ``a=y b=x b= → x``, ``a=y b=x a= → y``, ``a=x b=y b= → y`` with ``x``/``y``
    the
    answers ``1``/``2``. Dependent with :data:`TOY_ICL_LAMBDAS`. Returns ``(tokens_4x8, labels_4)``.
    """
    return _qa([((0, 1), (0, 1), 0), ((0, 1), (1, 0), 1), ((0, 1), (1, 0), 0), ((0, 1), (0, 1), 1)])


_TABLE1_PAIRS = (
    (0, 0),
    (1, 1),
    (2, 2),
    (0, 1),
    (0, 2),
    (1, 0),
    (1, 2),
    (2, 0),
    (2, 1),
)  # aa bb cc ab ac ba bc ca cb


def table1_memorization() -> tuple[jax.Array, jax.Array]:
    """Table 1's memorization row: ``aa → 1, bb → 2, cc → 3, ab → 4, ..., cb → 9`` (labels 0..8).

    Ids ``a, b, c = 0, 1, 2``, CLS ``→ = 3``. Returns ``(tokens_9x3, labels_9)``.
    """
    tokens = np.array([p + (3,) for p in _TABLE1_PAIRS], np.int32)
    return jnp.asarray(tokens), jnp.arange(9, dtype=jnp.int32)


def table1_generalization() -> tuple[jax.Array, jax.Array]:
    """Table 1's generalization row: the same nine sequences, ``αα → 1`` and ``αβ → 2`` (labels 0 /
    1).

    Layout of :data:`TABLE1_GENERALIZATION_TASK`. Returns ``(tokens_9x3, labels_9)``.
    """
    tokens, _ = table1_memorization()
    return tokens, jnp.array([0, 0, 0, 1, 1, 1, 1, 1, 1], jnp.int32)


def table1_contextual() -> tuple[jax.Array, jax.Array]:
    """Table 1's contextual-generalization examples in :data:`TABLE1_CONTEXTUAL_TASK`'s layout.

    ``aa → 1 ab → 2 bb → 1``, ``aa → 1 ab → 2 ba → 2``, ``aa → 1 ab → 2 aa → 1``, ``aa → 1 ab → 2 ab
    → 2``.
    Ids: ``a=0, b=1``, answers ``1 -> 2, 2 -> 3``, ``→ = 4``. Returns ``(tokens_4x11, labels_4)``.
    """
    ctx = [0, 0, 4, 2, 0, 1, 4, 3]
    queries = [(1, 1), (1, 0), (0, 0), (0, 1)]
    tokens = np.array([ctx + list(q) + [4] for q in queries], np.int32)
    return jnp.asarray(tokens), jnp.array([0, 1, 0, 1], jnp.int32)
