"""In-context question answering, the reasoning task of Chen & Zou 2024, §4.2.

Token ids: questions ``q_0..q_{n_q-1}`` are ``[0, n_q)``, answers ``a_0..a_{n_a-1}`` are
``[n_q, n_q + n_a)``, the response sign ``r`` is ``n_q + n_a`` (last). An example is
``E^(pi,pi')(c) = (q_{pi_0}, r, a_{pi'_0}, ..., q_{pi_{k-1}}, r, a_{pi'_{k-1}}, q_{pi_c}, r)`` of
length
``n = 3k + 2`` with label ``pi'_c`` (the answer's index in ``[0, n_a)``), where ``pi`` and ``pi'``
are ``k``-permutations (ordered selections without repetition) of the questions and answers and
``c in [k]``. The dataset has exactly ``A(n_q,k) · A(n_a,k) · k`` examples (§4.2).

Exhaustive order: index ``= (rank(pi) · A(n_a,k) + rank(pi')) · k + c`` with ``rank`` the
lexicographic rank of a ``k``-permutation (its Lehmer code read in mixed radix ``(n, n-1, ...)``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory.tasks import unrank
from transformer_theory.tasks._base import Task, check_int_arg


@dataclasses.dataclass(frozen=True)
class InContextQA(Task):
    """The dataset ``D_IC-QA^(k)`` of Chen & Zou 2024, §4.2 (reasoning), exhaustive by index or
    sampled.

    Attributes:
      n_q: number of question tokens.
      n_a: number of answer tokens (= ``num_classes``).
      k: question-answer pairs in the context, ``1 <= k <= min(n_q, n_a)``.
    """

    n_q: int
    n_a: int
    k: int

    def __post_init__(self):
        for name in ("n_q", "n_a", "k"):
            object.__setattr__(self, name, check_int_arg(name, getattr(self, name)))
        if self.k > self.n_q:
            raise ValueError(
                f"k: the context needs k distinct questions, but k={self.k} > n_q={self.n_q}"
            )
        if self.k > self.n_a:
            raise ValueError(
                f"k: the context needs k distinct answers, but k={self.k} > n_a={self.n_a}"
            )

    # layout
    @property
    def num_symbols(self) -> int:
        return self.n_q

    @property
    def answer_start(self) -> int:
        return self.n_q

    @property
    def num_answers(self) -> int:
        return self.n_a

    @property
    def response_token(self) -> int:
        return self.n_q + self.n_a

    @property
    def vocab_size(self) -> int:
        return self.n_q + self.n_a + 1

    @property
    def seq_len(self) -> int:
        return 3 * self.k + 2

    @property
    def num_classes(self) -> int:
        return self.n_a

    @property
    def size(self) -> int:
        return (
            unrank.num_injections(self.n_q, self.k)
            * unrank.num_injections(self.n_a, self.k)
            * self.k
        )

    def _size_formula(self) -> str:
        return f"A({self.n_q},{self.k}) · A({self.n_a},{self.k}) · {self.k}"

    @functools.cached_property
    def _space(self) -> unrank.BlockRadix:
        k = self.k
        radices = (
            tuple(self.n_q - i for i in range(k)) + tuple(self.n_a - i for i in range(k)) + (k,)
        )
        return unrank.BlockRadix((radices,))

    def _decode(self, block, digits_U):
        del block  # a single block
        k = self.k
        questions = unrank.unrank_injection(digits_U[:k])
        answers = unrank.unrank_injection(digits_U[k : 2 * k])
        c = digits_U[2 * k]
        return self._assemble(questions, answers, c)

    def _assemble(self, questions, answers, c):
        r = self.response_token
        signs = jnp.full_like(questions, r)
        context = jnp.stack([questions, signs, answers + self.n_q], axis=1).reshape(-1)
        tokens = jnp.concatenate([context, questions[c][None], jnp.array([r], questions.dtype)])
        return tokens.astype(jnp.int32), answers[c].astype(jnp.int32)

    def example(
        self, questions: Sequence[int], answers: Sequence[int], c: int
    ) -> tuple[jax.Array, jax.Array]:
        """The example ``E^(pi,pi')(c)`` for explicit ``pi = questions``, ``pi' = answers`` (0-based
        indices).

        Returns ``(tokens_N int32, label int32)``; raises ``ValueError`` unless both are ``k``
        distinct
        in-range indices and ``c in [k]``.
        """
        for name, xs, n in (("questions", questions, self.n_q), ("answers", answers, self.n_a)):
            xs = list(xs)
            if len(xs) != self.k or len(set(xs)) != self.k or not all(0 <= int(x) < n for x in xs):
                raise ValueError(
                    f"{name}: expected {self.k} distinct indices in [0, {n}), got {xs}"
                )
        if not 0 <= int(c) < self.k:
            raise ValueError(f"c: expected a context position in [0, {self.k}), got {c}")
        return self._assemble(
            jnp.asarray(np.array(questions), jnp.int32),
            jnp.asarray(np.array(answers), jnp.int32),
            int(c),
        )
