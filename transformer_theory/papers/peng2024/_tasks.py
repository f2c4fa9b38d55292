"""Function composition prompts (Peng, Narayanan & Papadimitriou 2024, "On limitations of the
transformer architecture", Theorem 1) with exact answers (the theorem's bound: :mod:`._theory`).

A prompt lists ``f: A -> B`` and ``g: B -> C`` (and ``h: C -> D`` for three functions) as
``argument, value`` token pairs in random order, then a query ``a`` and a separator; the answer is
``g(f(a))`` (``h(g(f(a)))``). Domains have ``n`` elements each and disjoint token ranges:
``A = [0, n)``, ``B = [n, 2n)``, ``C = [2n, 3n)``, ``D = [3n, 4n)``, separator ``4n``; the answer
is a token of the last domain. Shape letters: :mod:`transformer_theory.glossary`.

The chain-of-thought prompts (``K`` function tables, then the query:
:func:`._models_cot.cot_sample`) have :func:`cot_vocab` tokens and, teacher-forced at stride
``s``, :func:`cot_length` positions: the sizes of the model that reads them.
"""

from __future__ import annotations

import numpy as np

from transformer_theory._validate import check_int_arg, check_seed

__all__ = ["composition_sample", "composition_vocab", "cot_length", "cot_vocab"]


def composition_vocab(n: int) -> int:
    """Token count of :func:`composition_sample` prompts: four domains of ``n``, the separator."""
    return 4 * n + 1


def composition_sample(
    seed: int, num: int, n: int, depth: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """``num`` prompts of ``depth`` (2 or 3) uniformly random functions on domains of size ``n``.

    Returns ``(tokens_BxN, answers_B)`` with ``N = 2 depth n + 2`` (the listed pairs, the query,
    the separator) and the exact composed value as a token id.
    """
    num = check_int_arg("num", num, 1)  # 2.5 was a TypeError naming nothing
    n = check_int_arg("n", n, 1)
    check_seed("seed", seed)
    if depth not in (2, 3):
        raise ValueError(f"depth: expected 2 (g o f) or 3 (h o g o f), got {depth}")
    rng = np.random.default_rng(seed)
    rows = np.arange(num)[:, None]
    blocks, value = [], rng.integers(0, n, size=num)  # the query a, as an index in A
    query = value.copy()
    for level in range(depth):
        table = rng.integers(0, n, size=(num, n))  # the level-th function, as indices
        order = np.argsort(rng.uniform(size=(num, n)), axis=-1)
        args = order + level * n
        vals = table[rows, order] + (level + 1) * n
        blocks.append(np.stack([args, vals], axis=-1).reshape(num, 2 * n))
        value = table[np.arange(num), value]
    sep = np.full((num, 1), 4 * n)
    tokens = np.concatenate(blocks + [query[:, None], sep], axis=1)
    return tokens, value + depth * n


def cot_vocab(n: int, functions: int) -> int:
    """Token count of :func:`._models_cot.cot_sample` prompts: ``K + 1`` domains of ``n``."""
    return (check_int_arg("functions", functions, 1) + 1) * check_int_arg("n", n, 1)


def cot_length(n: int, functions: int, stride: int) -> int:
    """Positions of the teacher-forced inputs at ``stride`` (:func:`._models_cot.teacher_forcing`):
    the ``K`` tables of ``n``, the query and ``S - 1`` CoT tokens, ``K n + S`` with ``S = K / s``
    (``stride`` a divisor of ``K = functions``)."""
    functions = check_int_arg("functions", functions, 1)
    n = check_int_arg("n", n, 1)
    stride = check_int_arg("stride", stride, 1)
    if functions % stride:
        raise ValueError(f"stride: expected a divisor of functions = {functions}, got {stride}")
    return functions * n + functions // stride
