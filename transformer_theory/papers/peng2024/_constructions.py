"""One-pass function composition by ONE layer, built by hand (our construction, not Peng et al.'s):
the other side of Peng, Narayanan & Papadimitriou 2024, Theorem 1, in the theorem's own units.

Theorem 1 says a one-layer transformer with ``H`` heads, embedding ``d`` and ``p``-bit precision
errs with probability at least ``R / (3 n log2 n)``, ``R = n log2 n - H (d + 1) p``: below
``H (d + 1) p = n log2 n`` bits it cannot be always right. It says nothing about how many bits a
one-layer model needs to BE right. :func:`build` is a one-layer
:class:`~.networks.CompositionTransformer` (two heads, a ReLU MLP, fake quantization to ``p``
bits included) that answers ``g(f(x))`` in one pass on EVERY prompt of
:func:`._tasks.pair_sample`'s form, so its ``H (d + 1) p`` is a budget that suffices; between the
two lies what the bound leaves open. :func:`budget_table` sets them side by side
(:func:`budget_row`: one ``n`` on given prompts).

The prompt (our variant of the table form of :mod:`.cot`; its prompts and answers are
:mod:`._tasks`', :func:`._tasks.pair_sample`): every table entry
is ONE token naming the pair ``(argument, value)``, so a single position knows both: ``f``'s
entries ``j n + f(j)`` (``[0, n^2)``), then ``g``'s ``n^2 + j n + g(j)`` (``[n^2, 2 n^2)``), each
block in a random order, then the query ``2 n^2 + x``; the answer is ``g(f(x))`` as a class in
``[0, n)``. Tokens ``2 n^2 + n + x`` ask for ``f(x)`` instead (an auxiliary query the training
recipe of the ``composition_bound`` experiment mixes in; the construction ignores them). In the
table form of :mod:`.cot` an entry's value and its argument (its position) reach a head only as
a SUM of two embeddings, and the average of such sums over ``g``'s block forgets which value
belongs to which argument; with pair tokens the average keeps the whole table.

The construction (stream of width ``d = n b + 5 n + 1``, ``b = ceil(log2 n)``: blocks ``Q`` the
query's ``x``, ``A`` an ``f`` entry's argument, ``V`` its value, ``F`` the fetched ``f(x)``, each
one-hot; ``T``, ``b`` coordinates per argument ``j`` of ``g``, holding ``g(j)`` in binary on ``g``'s
entries; a flag ``G`` on ``g``'s entries; ``O`` the output classes, one-hot):

- head 1 (fetch): the query maps ``Q`` onto ``A`` with weight ``lambda``, so the ``f`` entry with
  argument ``x`` scores ``lambda / sqrt(d)`` and every other position 0; its value copies ``V``
  into ``F``: ``F ~ onehot(f(x))``;
- head 2 (table): the query maps ``Q`` onto ``G``, so every ``g`` entry scores ``lambda /
  sqrt(d)``; its value copies ``T``, and ``W_out = n I`` undoes the average: ``T_j ~`` the bits
  of ``g(j)`` for every ``j``;
- the MLP's unit ``(j, c)`` is ``relu(F_j + sum_k s_{c,k} T_{j,k} - ones(c))`` with ``s_{c,k} =
  +1`` where bit ``k`` of ``c`` is 1 and ``-1`` where it is 0: the sum reaches ``ones(c)`` only
  at ``T_j = c``, so the unit is 1 exactly when ``f(x) = j`` and ``g(j) = c`` and at most 0
  otherwise; it adds into ``O_c``, and the readout reads ``O``. The ``n^2`` units fit in the MLP's
  ``4 d`` for ``n <= 44``.

``lambda = sqrt(d) (ln(2 n + 1) + 8)`` leaves at most ``e^-8 < 3.4e-4`` of either head's weight
off its targets. Per-tensor quantization rounds the tensors with more than one nonzero magnitude
(``W_out``: 1 and ``n``; the MLP's biases: ``0 .. -b``); the activations' per-example rounding
(the table's ``1/n`` against a scale of about 1) is what sets the bits needed.
:func:`weights` gives the model's weights as plain arrays, :func:`build` the model
(:func:`._models.from_weights`). :func:`smallest_exact_bits` finds the bits by running the
quantized model (:func:`._models.fewest_exact_bits`, :func:`._models.errors`) on the prompts it is
given, :func:`._tasks.checking_prompts`: no error on every prompt for
``n <= 3`` (every ``f``, ``g``, ``x``; pairs in random order) and on sampled prompts beyond.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from transformer_theory._validate import check_int_arg
from transformer_theory.papers.peng2024 import _theory as theory
from transformer_theory.papers.peng2024._models import (
    CompositionTransformer,
    fewest_exact_bits,
    from_weights,
)
from transformer_theory.papers.peng2024._tasks import checking_prompts, pair_vocab

__all__ = [
    "HEADS",
    "budget_row",
    "budget_table",
    "build",
    "construction_width",
    "smallest_exact_bits",
    "weights",
]

HEADS = 2


def _bits_per_value(n: int) -> int:
    return max(1, (n - 1).bit_length())


def construction_width(n: int) -> int:
    """The construction's ``d = n b + 5 n + 1``, ``b = ceil(log2 n)`` (at least 1)."""
    n = check_int_arg("n", n, 1)
    return n * _bits_per_value(n) + 5 * n + 1


def weights(n: int) -> dict[str, np.ndarray]:
    """The weights of the one-layer, two-head model described in the module docstring, for
    domain ``n``, as plain float64 arrays (the :data:`._models.WEIGHTS` that
    :func:`._models.from_weights` reads; the embedding has a row per token of
    :func:`._tasks.pair_vocab`). Its MLP (``4 d`` units) holds the ``n^2`` units only for ``n <=
    44``; larger ``n`` is refused."""
    n = check_int_arg("n", n, 2)
    d = construction_width(n)
    if n * n > 4 * d:
        raise ValueError(f"n: the MLP's 4 d = {4 * d} units cannot hold n^2 = {n * n} (n <= 44)")
    b = _bits_per_value(n)
    q0, a0, v0, f0 = 0, n, 2 * n, 3 * n  # blocks Q, A, V, F
    t0 = 4 * n  # block T (n b)
    g_flag = t0 + n * b  # G
    o0 = g_flag + 1  # block O
    vocab = pair_vocab(n)
    code = (np.arange(n)[:, None] >> np.arange(b)[None, :]) & 1  # code[c, k]: bit k of c
    emb = np.zeros((vocab, d))
    for j in range(n):
        for c in range(n):
            emb[j * n + c, a0 + j] = emb[j * n + c, v0 + c] = 1.0  # f entry (j, c)
            emb[n * n + j * n + c, t0 + j * b : t0 + (j + 1) * b] = code[c]  # g entry (j, c)
            emb[n * n + j * n + c, g_flag] = 1.0
        emb[2 * n * n + j, q0 + j] = 1.0  # query x = j (the f-queries stay 0)
    lam = math.sqrt(d) * (math.log(2 * n + 1) + 8.0)
    w_q, w_k, w_v, w_out = (np.zeros((HEADS, d, d)) for _ in range(4))
    for j in range(n):
        w_q[0, q0 + j, a0 + j] = lam
        w_q[1, q0 + j, g_flag] = lam
        w_v[0, v0 + j, f0 + j] = 1.0
        w_out[0, f0 + j, f0 + j] = 1.0
    for i in range(n * b):
        w_v[1, t0 + i, t0 + i] = 1.0
        w_out[1, t0 + i, t0 + i] = float(n)
    w_k[0, a0 : a0 + n, a0 : a0 + n] = np.eye(n)
    w_k[1, g_flag, g_flag] = 1.0
    hidden = 4 * d
    mlp_in, mlp_bias, mlp_out = np.zeros((d, hidden)), np.zeros(hidden), np.zeros((hidden, d))
    for j in range(n):
        for c in range(n):
            u = j * n + c
            mlp_in[f0 + j, u] = 1.0
            # +1 where c has a 1 bit, -1 where a 0: the sum reaches ones(c) only at T_j = c
            mlp_in[t0 + j * b : t0 + (j + 1) * b, u] = 2.0 * code[c] - 1.0
            mlp_bias[u] = -float(code[c].sum())
            mlp_out[u, o0 + c] = 1.0
    readout = np.zeros((d, n))
    readout[o0 : o0 + n] = np.eye(n)
    return {
        "embed": emb,
        "position": np.zeros((2 * n + 1, d)),
        "w_q": w_q,
        "w_k": w_k,
        "w_v": w_v,
        "w_out": w_out,
        "mlp_in": mlp_in,
        "mlp_bias": mlp_bias,
        "mlp_out": mlp_out,
        "readout": readout,
    }


def build(n: int, bits: int | None = None) -> CompositionTransformer:
    """The one-layer, two-head model described in the module docstring, for domain ``n``
    (:func:`weights`, made a model by :func:`._models.from_weights`), its weights and activations
    fake-quantized to ``bits`` (``None``: float32). Its MLP (``4 d`` units) holds the ``n^2``
    units only for ``n <= 44``; larger ``n`` is refused."""
    return from_weights(weights(n), bits)


def smallest_exact_bits(
    n: int, tokens_BxN: np.ndarray, answers_B: np.ndarray, exhaustive: bool, *, max_bits: int = 24
) -> dict:
    """The fewest bits ``p`` (2 to ``max_bits``) at which :func:`build` ``(n, p)`` answers every
    one of the prompts ``tokens_BxN`` right (``answers_B``; :func:`._tasks.checking_prompts`:
    every prompt for ``n <= 3``, ``exhaustive``, sampled ones beyond), by
    :func:`._models.fewest_exact_bits`: the float32 model is run first, then ``p = 2, 3, ...``
    until one is exact. Returns ``{"n", "bits", "prompts", "exhaustive", "errors_below"}``
    (``bits`` None if no ``p <= max_bits`` is exact; ``errors_below``: the errors at ``bits -
    1``, a witness that fewer bits fail) and the errors of the float32 model
    (``"float32_errors"``)."""
    n = check_int_arg("n", n, 2)
    model_at = functools.partial(build, n)
    return fewest_exact_bits(n, model_at, tokens_BxN, answers_B, exhaustive, max_bits=max_bits)


def budget_row(
    n: int, tokens_BxN: np.ndarray, answers_B: np.ndarray, exhaustive: bool, *, max_bits: int = 24
) -> dict:
    """One ``n`` of :func:`budget_table` on the given prompts (:func:`._tasks.checking_prompts`):
    Theorem 1's threshold ``n log2 n`` (below it the bound is positive) and the construction's
    budget ``H (d + 1) p`` at its :func:`smallest_exact_bits` ``p``, in bits, with their ratio
    (:func:`._theory.budget_row`)."""
    d = construction_width(n)
    found = smallest_exact_bits(n, tokens_BxN, answers_B, exhaustive, max_bits=max_bits)
    return theory.budget_row(found, HEADS, d)


def budget_table(ns: tuple[int, ...] = (2, 3, 4, 8, 16), samples: int = 4096) -> list[dict]:
    """:func:`budget_row` per ``n`` in ``ns``, on every prompt for ``n <= 3`` and ``samples``
    sampled ones beyond (:func:`._tasks.checking_prompts`, seed 0)."""
    return [budget_row(n, *checking_prompts(n, samples)) for n in ns]
