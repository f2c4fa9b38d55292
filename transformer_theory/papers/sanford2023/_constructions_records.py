"""One configuration of Sanford et al. 2023's constructions built and checked: :func:`qsa_record`
(the smallest qSA unit within ``eps`` over every input, its bits, its RIP constants and a sampled
error) and :func:`match_record` (a Match unit's accuracy in each float format, on every sequence or
a balanced sample). Plain arguments in, a record out; the study
(:mod:`.experiments.sanford`) runs them over its settings' grid and ``_checks`` over the claims'.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from transformer_theory import _validate, budget, precision
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa_unit
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.papers.sanford2023 import _theory_costs as costs
from transformer_theory.papers.sanford2023 import _theory_rip as rip

__all__ = ["match_record", "qsa_record"]


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
    ``<= eps`` over ALL inputs (``_constructions_qsa.qsa_worst_error``),
    then the fewest fraction bits of ``w`` that keep it, the RIP constants of that ``U`` and the
    error on ``samples`` random inputs run through the model. ``m_min = None`` if no ``m <=
    max_rows`` works. Refuses (``ValueError`` naming ``q``) beyond
    :data:`~transformer_theory.papers.sanford2023._tasks.ALL_SUBSETS_LIMIT` subsets."""
    seq_len = _validate.check_int_arg("seq_len", seq_len, 1)
    q = _validate.check_int_arg("q", q, 1)
    dim = _validate.check_int_arg("dim", dim, 1)
    _validate.check_seed("seed", seed)
    budget.check_count("q", math.comb(int(seq_len), int(q)), ts.ALL_SUBSETS_LIMIT, unit="subsets")
    subsets = ts.all_subsets(seq_len, q)  # listed once: the search, the bits and w read them
    alpha = qsa_unit.alpha_scale(seq_len, epsilon)
    rows, found = max(1, q), None
    while rows <= max_rows:
        c = qsa_unit.qsa_construction(seq_len, q, dim, epsilon, rows, seed=seed)
        worst = qsa_unit.qsa_worst_error(c, subsets)
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
        "alpha": alpha,
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
            qsa_unit.qsa_construction(seq_len, q, dim, epsilon, c.rows, seed=seed, bits=p),
            subsets,
        )["max_error"]
        <= epsilon
    )
    w, _ = qsa_unit.subset_weights(c.u_ExK, subsets)
    sampled = 0.0
    for start in range(0, samples, costs.QSA_SAMPLE_CHUNK):
        num = min(costs.QSA_SAMPLE_CHUNK, samples - start)
        z, members = ts.qsa_sample(seed + 1 + start, num, seq_len, q, dim)
        target = ts.qsa_target(z, members)
        out, _ = qsa_unit.qsa_apply(c, z, members)
        sampled = max(sampled, float(np.linalg.norm(out - target, axis=-1).max()))
    report = rip.rip_constants(c.u_ExK, q) if q < seq_len else None
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


def match_record(
    task: str | registry.Unit,
    seq_len: int,
    modulus: int,
    *,
    window: int = 1,
    samples: int = 100_000,
    seed: int = 0,
    dtypes: tuple[str, ...] = precision.FORMATS,
) -> dict:
    """Accuracy of the ``task`` construction (a :class:`~._constructions_registry.Unit`, or its
    name: match2 / match3bigram / match3local, or match3local1: Match3Local by the single-head
    unit) on all of
    ``[M]^N`` when that has at most ``samples`` sequences, else on ``samples`` balanced samples,
    run in each float format of ``dtypes``; ``smallest_exact`` is the narrowest format that is
    100% correct (``None`` if none). ``scale_log2`` is ``exact_scale`` and ``within_exact_range``
    says per format whether it is at most the format's significand bits: a miss outside that range
    is the format's precision, not the construction. Inputs run in chunks sized to a quarter of
    the memory budget (``costs.match_bytes_per_sequence``);
    :class:`~transformer_theory.budget.BudgetError` if not even one sequence fits."""
    unit = registry.unit(task) if isinstance(task, str) else task
    per_seq = costs.match_bytes_per_sequence(unit, seq_len, modulus, window)
    _, exhaustive = costs.match_input_count(seq_len, modulus, samples)
    budget.check_memory(per_seq, what="one sequence of the Match check", option="seq_len/modulus")
    chunk = int(max(1, min(2000, budget.available_memory() // 4 // per_seq)))
    if exhaustive:
        x = np.array(list(itertools.product(range(modulus), repeat=seq_len)))
        labels = ts.match_labels(unit.task, x, modulus, window)
    else:
        x, labels = ts.match_sample(unit.task, seed, samples, seq_len, modulus, window)
    scale = unit.scale_log2(seq_len, modulus, window)  # exact_scale of the unit
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
        "task": unit.name,
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
