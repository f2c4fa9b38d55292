"""Function composition prompts (Peng, Narayanan & Papadimitriou 2024, "On limitations of the
transformer architecture", Theorem 1) with exact answers (the theorem's bound: :mod:`._theory`).

A prompt lists ``f: A -> B`` and ``g: B -> C`` (and ``h: C -> D`` for three functions) as
``argument, value`` token pairs in random order, then a query ``a`` and a separator; the answer is
``g(f(a))`` (``h(g(f(a)))``). Domains have ``n`` elements each and disjoint token ranges:
``A = [0, n)``, ``B = [n, 2n)``, ``C = [2n, 3n)``, ``D = [3n, 4n)``, separator ``4n``; the answer
is a token of the last domain. Shape letters: :mod:`transformer_theory.glossary`.

The pair-token prompts of the one-pass construction (:mod:`._constructions`) and the one-pass
recipe (:mod:`._models_one_pass`): every table entry is ONE token naming ``(argument, value)``,
``f``'s entries ``j n + f(j)`` (``[0, n^2)``), then ``g``'s ``n^2 + j n + g(j)`` (``[n^2, 2
n^2)``), each block in a random order, then the query ``2 n^2 + x`` (``2 n^2 + n + x`` asks for
``f(x)`` instead); the answer is a class in ``[0, n)``. :func:`pair_sample` draws them,
:func:`all_prompts` lists every one of a small ``n``, :func:`checking_prompts` picks between the
two and :func:`pair_vocab` counts their tokens; :func:`one_pass_data` gives one training run of
the recipe its vocabulary, held-out prompts and training batches.

The chain-of-thought prompts (``K`` function tables, then the query:
:func:`._models_cot.cot_sample`) have :func:`cot_vocab` tokens and, teacher-forced at stride
``s``, :func:`cot_length` positions: the sizes of the model that reads them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from transformer_theory._validate import check_int_arg, check_seed

__all__ = [
    "all_prompts",
    "checking_prompts",
    "composition_sample",
    "composition_vocab",
    "cot_length",
    "cot_vocab",
    "one_pass_data",
    "pair_sample",
    "pair_vocab",
]


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


def pair_vocab(n: int) -> int:
    """Token count of :func:`pair_sample` prompts: ``2 n^2`` pair tokens, ``2 n`` query tokens."""
    n = check_int_arg("n", n, 1)
    return 2 * n * n + 2 * n


def _prompts(
    f_BxN: np.ndarray, g_BxN: np.ndarray, x_B: np.ndarray, rng: np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray]:
    num, n = f_BxN.shape
    rows = np.arange(num)[:, None]
    j_BxN = np.broadcast_to(np.arange(n), (num, n))
    f_tok = j_BxN * n + f_BxN
    g_tok = n * n + j_BxN * n + g_BxN
    if rng is not None:  # each block in its own random order
        f_tok = f_tok[rows, np.argsort(rng.uniform(size=(num, n)), axis=1)]
        g_tok = g_tok[rows, np.argsort(rng.uniform(size=(num, n)), axis=1)]
    tokens = np.concatenate([f_tok, g_tok, 2 * n * n + x_B[:, None]], axis=1)
    answers = g_BxN[np.arange(num), f_BxN[np.arange(num), x_B]]
    return tokens.astype(np.int32), answers.astype(np.int32)


def pair_sample(seed: int, num: int, n: int, aux: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``num`` pair-token prompts of uniformly random ``f, g: [n] -> [n]`` and query ``x``.

    Returns ``(tokens_BxN, answers_B)``, ``N = 2 n + 1``, answers ``g(f(x))`` in ``[0, n)``. With
    ``aux > 0`` each prompt asks for ``f(x)`` instead with probability ``aux`` (query token ``2
    n^2 + n + x``, answer ``f(x)``): the auxiliary queries of the training recipe.
    """
    num = check_int_arg("num", num, 1)
    n = check_int_arg("n", n, 1)
    check_seed("seed", seed)
    if not 0.0 <= aux < 1.0:
        raise ValueError(f"aux: expected a fraction in [0, 1), got {aux}")
    rng = np.random.default_rng(seed)
    f_BxN = rng.integers(0, n, size=(num, n))
    g_BxN = rng.integers(0, n, size=(num, n))
    x_B = rng.integers(0, n, size=num)
    tokens, answers = _prompts(f_BxN, g_BxN, x_B, rng)
    if aux > 0:
        ask_f = rng.uniform(size=num) < aux
        tokens[ask_f, -1] += n
        answers = np.where(ask_f, f_BxN[np.arange(num), x_B], answers).astype(np.int32)
    return tokens, answers


def all_prompts(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Every prompt of domain ``n`` (``n^(2 n + 1)`` of them: every ``f``, ``g`` and ``x``), each
    block in a random order (``seed``). Refused above ``n = 3`` (``n = 4``: 262,144 prompts)."""
    n = check_int_arg("n", n, 1)
    check_seed("seed", seed)
    if n > 3:
        raise ValueError(f"n: every prompt is enumerated for n <= 3 only, got {n}")
    tables = np.array(list(itertools.product(range(n), repeat=n)), dtype=np.int64)
    t = len(tables)
    fi, gi, x = np.meshgrid(np.arange(t), np.arange(t), np.arange(n), indexing="ij")
    return _prompts(tables[fi.ravel()], tables[gi.ravel()], x.ravel(), np.random.default_rng(seed))


def checking_prompts(
    n: int, samples: int = 4096, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, bool]:
    """The prompts a model of domain ``n`` is checked on: every prompt (:func:`all_prompts`) for
    ``n <= 3``, ``samples`` sampled ones (:func:`pair_sample`) beyond, both at ``seed``. Returns
    ``(tokens_BxN, answers_B, exhaustive)``, ``exhaustive`` True where they are every prompt."""
    n = check_int_arg("n", n, 1)
    exhaustive = n <= 3
    tokens, answers = all_prompts(n, seed) if exhaustive else pair_sample(seed, samples, n)
    return tokens, answers, exhaustive


def one_pass_data(
    n: int, *, batch: int, aux: float, seed: int, held_out: int
) -> tuple[int, np.ndarray, np.ndarray, Callable[[int], tuple[np.ndarray, np.ndarray]]]:
    """The prompts of one run of the one-pass recipe (:mod:`._models_one_pass`) at domain ``n``:
    ``(vocab, tokens_BxN, answers_B, sample)``, the :func:`pair_vocab`, ``held_out`` new
    ``g(f(x))`` prompts (:func:`pair_sample` at seed ``10^9 + seed``) and ``sample(t)``, the
    ``batch`` training prompts of step ``t`` (seed ``seed * 1_000_003 + t + 1``, a fraction
    ``aux`` asking for ``f(x)``)."""
    vocab = pair_vocab(n)
    tokens, answers = pair_sample(10**9 + seed, held_out, n)  # held out: g(f(x)) only

    def sample(t: int) -> tuple[np.ndarray, np.ndarray]:
        return pair_sample(seed * 1_000_003 + t + 1, batch, n, aux=aux)

    return vocab, tokens, answers, sample
