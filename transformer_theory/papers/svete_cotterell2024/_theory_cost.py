"""What the n-gram study costs, in closed forms: the memory and time of a run of the ``ngram``
study (:mod:`.._study_ngram`), from its sizes alone.

Shapes: ``S = |Sigma|``, ``V = S + 1`` ids, ``w = n - 1``, ``A = sum_{k<n} S^k`` histories,
``D`` the residual width, ``N = w + L`` positions.

- :func:`table_bytes`: the n-gram table's bytes.
- :func:`estimate`: ``(bytes, seconds)`` of a study run (nothing is built).

Pure float arithmetic (``A = (S^n - 1) / (S - 1)``), so an ``order`` or ``max_len`` of 10^12
costs nothing to estimate; ``inf`` beyond float range.
"""

from __future__ import annotations

import math

from transformer_theory.papers.svete_cotterell2024._theory_soft import SOFT_BETAS

__all__ = ["SECONDS_PER_COMPILE", "estimate", "table_bytes"]

#: Seconds one compilation of a small model takes (a jitted forward at a new length), measured
#: 0.3 s (idle) to 5 s (8 jobs sharing its 2 cores) on the CPU this was written on; the unit of
#: the time estimate, which is therefore rough by a factor of a few either way.
SECONDS_PER_COMPILE = 1.0


def _power(base: int, exponent: int) -> float:
    """``base ** exponent`` as a float, ``inf`` beyond float range (never the exact integer, whose
    10^12-digit power would itself take hours)."""
    if base <= 1 or exponent == 0:
        return 1.0 if base >= 1 or exponent == 0 else 0.0
    if exponent * math.log2(base) >= 1023:
        return math.inf
    return float(base) ** exponent


def _geometric(base: int, terms: int) -> float:
    """``sum_{k<terms} base^k`` in closed form, as a float (``inf`` beyond float range)."""
    if base == 1:
        return float(terms)
    return (_power(base, terms) - 1.0) / (base - 1)


def table_bytes(alphabet: int, order: int) -> float:
    """Bytes of the n-gram table, ``8 A (|Sigma| + 1)`` with ``A = sum_{k<n} |Sigma|^k`` (float,
    ``inf`` beyond float range)."""
    return 8.0 * _geometric(alphabet, order) * (alphabet + 1)


def estimate(
    alphabet: int,
    order: int,
    max_len: int,
    *,
    models: int,
    scan_limit: int | None = None,
    soft_lengths: tuple[int, ...] | None = None,
) -> tuple[float, float]:
    """``(bytes, seconds)`` the ``ngram`` study needs for ``models`` models of an ``order``-gram
    LM over ``alphabet`` symbols checked on every string up to ``max_len``, each scanned at every
    length up to ``scan_limit`` (hard/sparse attention) or, with ``soft_lengths`` (softmax), run
    through the soft study instead (no scan).

    Memory: the n-gram table (``A (|Sigma| + 1)`` float64), the largest model's weights (``W_QK``
    and ``W_V`` are ``D x D`` per head, ``D ~ A``; the MLP is ``units x D`` twice) and the largest
    batch's activations in the equivalence check (up to 4,096 strings of ``n - 1 + L`` positions,
    ``D`` wide, with ``H`` attention maps of ``N^2``). Time: one compilation
    (:data:`SECONDS_PER_COMPILE`) per string length checked and per length scanned, per model,
    plus the arithmetic at 1e9 multiply-adds per second.
    """
    S, n = alphabet, order
    w, V = n - 1, S + 1
    A = _geometric(S, n)
    D = V + 2 * (2 * w + 1) + w * (1 + V) + w * V + A  # the widest layout (3.3-slots)
    heads = w
    units = A * w
    weights = 8.0 * (2 * heads * D * D + 2 * units * D + V * D)
    N = w + max_len
    strings = min(_geometric(S, max_len + 1), 50_000.0 * (max_len + 1))
    batch = min(4096, max(min(_power(S, max_len), 50_000), 2_000))
    acts = 8.0 * batch * (N * (D + units) * (w + 1) + heads * N * N)
    memory = table_bytes(S, n) + weights + acts
    soft = soft_lengths is not None
    scans = 0 if soft or scan_limit is None else scan_limit + 1
    lengths = max_len + 1 + scans
    evaluations = 1
    if soft:
        # the soft study: 7 betas and a ~12-step bisection per soft length, each over every
        # string up to the length (the shapes repeat, so they compile once per length)
        lengths += max([*soft_lengths, max_len]) + 2
        evaluations += len(SOFT_BETAS) + 12 * len(soft_lengths)
    flops = models * (
        evaluations * strings * N * D * (D + units) * (w + 1) + scans * (w + scans) ** 2 * D
    )
    seconds = models * lengths * SECONDS_PER_COMPILE + flops / 1e9
    return memory, seconds
