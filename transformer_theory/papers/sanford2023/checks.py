"""Records for the Sanford, Hsu & Telgarsky 2023 constructions: the smallest ``m`` (and bits) at
which the qSA unit reaches ``eps``, and the accuracy of the Match units per float format.

Each function returns a plain JSON-ready dict; ``transformer-theory sanford`` writes and plots them.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from transformer_theory import _validate, budget, precision
from transformer_theory.papers.sanford2023 import qsa as qsa_unit
from transformer_theory.papers.sanford2023 import registry, rip
from transformer_theory.papers.sanford2023 import tasks as ts

__all__ = [
    "QSA_SAMPLE_CHUNK",
    "SECONDS_PER_ELEMENT",
    "match_bytes_per_sequence",
    "match_input_count",
    "match_inputs_bytes",
    "match_record",
    "match_seconds",
    "qsa_bytes",
    "qsa_record",
    "qsa_samples_bytes",
    "qsa_samples_seconds",
]


def match_bytes_per_sequence(task: str, seq_len: int, modulus: int, window: int = 1) -> int:
    """Peak bytes one sequence costs in :func:`match_record`: four float64 buffers of ``(N + 2K +
    1) x max(hidden, width)`` (MLP pre-activation, ReLU, the stream and the attention rows)."""
    unit = registry.unit(task)
    k = unit.window_of(window)
    cols = max(unit.hidden(seq_len, modulus, k), unit.width, seq_len + 2 * k + 1)
    return 4 * 8 * (seq_len + 2 * k + 1) * cols


def qsa_bytes(seq_len: int, q: int, dim: int = 2) -> int:
    """A LOWER bound on the peak bytes of :func:`qsa_record`'s exhaustive check: the ``C(N, q)``
    subsets through the model at the smallest ``m = q`` (stream ``2 d' + 2 m`` floats, the
    attention row, its target and error, ``N`` floats each, float64 per position)."""
    seq_len = _validate.check_int_arg("seq_len", seq_len, 1)
    q = _validate.check_int_arg("q", q, 1)
    dim = _validate.check_int_arg("dim", dim, 1)
    return math.comb(int(seq_len), int(q)) * 8 * (2 * dim + 2 * q + 3 * seq_len)


# A LOWER bound on the seconds of one element of the sampled checks, for the time estimate: a qSA
# sample costs at least this per position and entry of its row (``N + d'``): measured 6e-7 to
# 8e-7 s at N = 4 and 16 (2026-11-24, the 2-core CPU); a Match sequence at least this per position
# and float format: measured 6e-7 (match2, N = 16) to 6e-5 s (match3local1). Ten times below the
# fastest measurement, so a run refused on it would take longer still.
SECONDS_PER_ELEMENT = 5e-8
QSA_SAMPLE_CHUNK = 5000  # qsa_record draws and runs its samples in chunks of this many


def qsa_samples_bytes(seq_len: int, q: int, dim: int, samples: int) -> int:
    """A LOWER bound on the peak bytes of one chunk of :func:`qsa_record`'s sampled check
    (``min(samples, 5000)`` inputs): the drawn ``z`` and its Gaussian and radius (``3 d'``), the
    ``N x N`` uniforms, their argsort and the membership (``3 N``), the stream (``2 d' + 2 m``,
    ``m >= q``), float64 per position. Pure arithmetic on Python ints."""
    chunk = min(int(samples), QSA_SAMPLE_CHUNK)
    return chunk * int(seq_len) * 8 * (5 * int(dim) + 3 * int(seq_len) + 2 * int(q))


def qsa_samples_seconds(seq_len: int, dim: int, samples: int) -> float:
    """A lower bound on the seconds of :func:`qsa_record`'s sampled check (see
    :data:`SECONDS_PER_ELEMENT`)."""
    return float(samples) * float(seq_len) * float(seq_len + dim) * SECONDS_PER_ELEMENT


def match_input_count(seq_len: int, modulus: int, samples: int) -> tuple[int, bool]:
    """``(count, exhaustive)``: all ``M^N`` sequences when there are at most ``samples``, else
    ``samples`` sampled ones. Compares ``N log2 M`` with ``log2 samples`` first, so a large ``N``
    or ``M`` never computes ``M^N``."""
    for name, value, low in (
        ("seq_len", seq_len, 1),
        ("modulus", modulus, 2),
        ("samples", samples, 1),
    ):
        _validate.check_int_arg(name, value, low)
    seq_len, modulus, samples = int(seq_len), int(modulus), int(samples)
    if seq_len * math.log2(modulus) > math.log2(samples) + 1:
        return samples, False
    total = modulus**seq_len  # <= 2 samples: small
    return (total, True) if total <= samples else (samples, False)


def match_inputs_bytes(task: str, seq_len: int, modulus: int, window: int, samples: int) -> int:
    """Peak bytes of :func:`match_record`'s inputs and labels (made at once, before the chunked
    run): per sequence, the tokens and the generator's uniforms, permutation and plants (8 int64
    or float64 per position), the brute-force labels' ``N x N`` sums and their test for Match2 and
    Match3Bigram (17 bytes per pair), and for an exhaustive enumeration the Python tuples of
    ``itertools.product``."""
    unit = registry.unit(task)
    count, exhaustive = match_input_count(seq_len, modulus, samples)
    n = int(seq_len)
    per = 64 * n
    if unit.task in ("match2", "match3bigram"):
        per += 17 * n * n
    if exhaustive:
        per += 56 + 8 * n
    return count * per


def match_seconds(task: str, seq_len: int, modulus: int, window: int, samples: int) -> float:
    """A lower bound on the seconds of :func:`match_record` (see :data:`SECONDS_PER_ELEMENT`):
    every input through the unit in each of the formats
    (:data:`transformer_theory.precision.FORMATS`)."""
    count, _ = match_input_count(seq_len, modulus, samples)
    k = registry.unit(task).window_of(window)
    return float(count) * len(precision.FORMATS) * (int(seq_len) + 2 * k + 1) * SECONDS_PER_ELEMENT


def qsa_record(
    seq_len: int,
    q: int,
    epsilon: float,
    *,
    dim: int = 2,
    samples: int = 100_000,
    seed: int = 0,
    max_rows: int = 4096,
) -> dict:
    """Search the smallest ``m`` (steps of ``x 1.25``) whose drawn unit has worst-case error
    ``<= eps`` over ALL inputs (:func:`~transformer_theory.papers.sanford2023.qsa.qsa_worst_error`),
    then the fewest fraction bits of ``w`` that keep it, the RIP constants of that ``U`` and the
    error on ``samples`` random inputs run through the model. ``m_min = None`` if no ``m <=
    max_rows`` works. Refuses (``ValueError`` naming ``q``) beyond
    :data:`~transformer_theory.papers.sanford2023.tasks.ALL_SUBSETS_LIMIT` subsets."""
    seq_len = _validate.check_int_arg("seq_len", seq_len, 1)
    q = _validate.check_int_arg("q", q, 1)
    dim = _validate.check_int_arg("dim", dim, 1)
    _validate.check_seed("seed", seed)
    budget.check_count("q", math.comb(int(seq_len), int(q)), ts.ALL_SUBSETS_LIMIT, unit="subsets")
    rows, found = max(1, q), None
    while rows <= max_rows:
        c = qsa_unit.qsa_construction(seq_len, q, dim, epsilon, rows, seed=seed)
        worst = qsa_unit.qsa_worst_error(c)
        if worst["valid_w"] and worst["max_error"] <= epsilon:
            found = (c, worst)
            break
        rows = max(rows + 1, math.ceil(rows * 1.25))
    record = {
        "task": "qsa",
        "N": seq_len,
        "q": q,
        "d_prime": dim,
        "epsilon": epsilon,
        "alpha": qsa_unit.alpha_scale(seq_len, epsilon),
        "q_log_N": q * math.log(seq_len),
        "m_min": None,
    }
    if found is None:
        return record
    c, worst = found
    proof_bits = qsa_unit.bits_needed(c.rows, c.alpha, epsilon)
    bits = next(
        p
        for p in range(proof_bits + 1)
        if qsa_unit.qsa_worst_error(
            qsa_unit.qsa_construction(seq_len, q, dim, epsilon, c.rows, seed=seed, bits=p)
        )["max_error"]
        <= epsilon
    )
    report = rip.rip_constants(c.u_ExK, q) if q < seq_len else None
    sampled = 0.0
    for start in range(0, samples, QSA_SAMPLE_CHUNK):
        num = min(QSA_SAMPLE_CHUNK, samples - start)
        z, members = ts.qsa_sample(seed + 1 + start, num, seq_len, q, dim)
        out, _ = qsa_unit.qsa_apply(c, z, members)
        err = np.linalg.norm(out - ts.qsa_target(z, members), axis=-1).max()
        sampled = max(sampled, float(err))
    w, _ = qsa_unit.subset_weights(c.u_ExK, ts.all_subsets(seq_len, q))
    record.update(
        m_min=c.rows,
        max_error=worst["max_error"],
        exhaustive=True,
        subsets=worst["subsets"],
        examples=samples,
        sampled_max_error=sampled,
        bits_min=bits,
        bits_proof=proof_bits,
        w_norm_max=float(np.linalg.norm(w, axis=-1).max()),
        w_norm_bound=2 * math.sqrt(q),
        rip_isometry=None if report is None else report.isometry,
        rip_orthogonality=None if report is None else report.orthogonality,
        rip_exhaustive=None if report is None else report.exhaustive,
    )
    return record


def _inputs(task, seq_len, modulus, window, samples, seed):
    task = registry.unit(task).task
    if match_input_count(seq_len, modulus, samples)[1]:
        x = np.array(list(itertools.product(range(modulus), repeat=seq_len)))
        return x, ts.match_labels(task, x, modulus, window), True
    x, labels = ts.match_sample(task, seed, samples, seq_len, modulus, window)
    return x, labels, False


def match_record(
    task: str,
    seq_len: int,
    modulus: int,
    *,
    window: int = 1,
    samples: int = 100_000,
    seed: int = 0,
    dtypes: tuple[str, ...] = precision.FORMATS,
) -> dict:
    """Accuracy of the ``task`` construction (match2 / match3bigram / match3local, or
    match3local1: Match3Local by the single-head unit) on all of
    ``[M]^N`` when that has at most ``samples`` sequences, else on ``samples`` balanced samples,
    run in each float format of ``dtypes``; ``smallest_exact`` is the narrowest format that is
    100% correct (``None`` if none). ``scale_log2`` is
    :func:`~transformer_theory.papers.sanford2023.registry.exact_scale` and ``within_exact_range``
    says per format whether it is at most the format's significand bits: a miss outside that range
    is the format's precision, not the construction. Inputs run in chunks sized to a quarter of
    the memory budget (:func:`match_bytes_per_sequence`); :class:`~transformer_theory.budget.
    BudgetError` if not even one sequence fits."""
    unit = registry.unit(task)
    per_seq = match_bytes_per_sequence(task, seq_len, modulus, window)
    budget.check_memory(
        per_seq, what="one sequence of the Match check", option="--n/--modulus-power"
    )
    chunk = int(max(1, min(2000, budget.available_memory() // 4 // per_seq)))
    x, labels, exhaustive = _inputs(task, seq_len, modulus, window, samples, seed)
    scale = registry.exact_scale(task, seq_len, modulus, window)
    accuracy = {}
    for name in dtypes:
        params = unit.build(seq_len, modulus, window, precision.dtype_of(name))
        pred = np.concatenate(
            [unit.apply(params, x[s : s + chunk], modulus, window) for s in range(0, len(x), chunk)]
        )
        accuracy[name] = float(np.mean(pred == labels))
    exact = [name for name in dtypes if accuracy[name] == 1.0]
    bits = {name: precision.significand_bits(name) for name in dtypes}
    return {
        "task": task,
        "N": seq_len,
        "M": modulus,
        "window": window if unit.windowed else None,
        "examples": int(len(x)),
        "exhaustive": exhaustive,
        "positive_rate": float(labels.mean()),
        "accuracy_by_dtype": accuracy,
        "accuracy": accuracy.get("float64", max(accuracy.values())),
        "scale_log2": scale,
        "within_exact_range": {name: scale <= bits[name] for name in dtypes},
        "smallest_exact": min(exact, key=lambda n: bits[n]) if exact else None,
        "smallest_exact_mantissa_bits": min(bits[n] for n in exact) if exact else None,
    }
