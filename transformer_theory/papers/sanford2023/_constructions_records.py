"""One configuration of Sanford et al. 2023's constructions checked and recorded, in stages that
take plain arguments: :func:`qsa_record_of` records a qSA search
(:func:`._constructions_qsa.qsa_smallest`: the smallest unit within ``eps`` over every input, its
bits), its sampled error and RIP constants; :func:`match_check` runs a Match unit in each float
format on given inputs and records its accuracy. :func:`qsa_record` and :func:`match_record` are
the whole of one configuration (its inputs, unit, evaluation, record) for one call; the study
(:mod:`._study_sanford`) sequences the same stages itself over its settings' grid, and
``_checks`` calls these over the claims'.
"""

from __future__ import annotations

import math

import numpy as np

from transformer_theory import _validate, budget, precision
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa_unit
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.papers.sanford2023 import _theory_costs as costs
from transformer_theory.papers.sanford2023 import _theory_rip as rip

__all__ = ["match_check", "match_record", "qsa_record", "qsa_record_of"]


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
    ``<= eps`` over ALL inputs (``_constructions_qsa.qsa_smallest``), then the fewest fraction
    bits of ``w`` that keep it, the RIP constants of that ``U`` and the error on ``samples``
    random inputs (drawn from seed ``seed + 1`` in chunks of ``costs.QSA_SAMPLE_CHUNK``) run
    through the model; :func:`qsa_record_of` records them. ``m_min = None`` if no ``m <=
    max_rows`` works. Refuses (``ValueError`` naming ``q``) beyond
    :data:`~transformer_theory.papers.sanford2023._tasks.ALL_SUBSETS_LIMIT` subsets."""
    seq_len = _validate.check_int_arg("seq_len", seq_len, 1)
    q = _validate.check_int_arg("q", q, 1)
    dim = _validate.check_int_arg("dim", dim, 1)
    _validate.check_seed("seed", seed)
    budget.check_count("q", math.comb(int(seq_len), int(q)), ts.ALL_SUBSETS_LIMIT, unit="subsets")
    subsets = ts.all_subsets(seq_len, q)  # listed once: the search, the bits and w read them
    chunks = ts.qsa_sample_chunks(seed + 1, samples, seq_len, q, dim, chunk=costs.QSA_SAMPLE_CHUNK)
    search = qsa_unit.qsa_smallest(seq_len, q, dim, epsilon, subsets, seed=seed, max_rows=max_rows)
    c = search.construction
    sampled = None if c is None else qsa_unit.qsa_sampled_error(c, chunks)
    report = rip.rip_constants(c.u_ExK, q) if c is not None and q < seq_len else None
    return qsa_record_of(seq_len, q, dim, epsilon, search, samples, sampled, report)


def qsa_record_of(
    seq_len: int,
    q: int,
    dim: int,
    epsilon: float,
    search: qsa_unit.QSASearch,
    samples: int,
    sampled_max_error: float | None,
    report: rip.RIPReport | None,
) -> dict:
    """The record of one qSA configuration: its sizes and ``alpha``, then (when ``search`` found
    a unit, :class:`~._constructions_qsa.QSASearch`) its ``m_min``, exhaustive error, bits, ``w``
    norms against the proof's ``2 sqrt(q)``, the sampled error on ``samples`` inputs and the RIP
    constants of ``report`` (``None`` at ``q = N``); ``m_min = None`` otherwise."""
    record = {
        "task": "qsa",
        "N": seq_len,
        "q": q,
        "d_prime": dim,
        "epsilon": epsilon,
        "alpha": search.alpha,
        "q_log_N": q * math.log(seq_len),
        "m_min": None,
    }
    if search.construction is None:
        return record
    record.update(
        m_min=search.construction.rows,
        max_error=search.max_error,
        exhaustive=True,
        subsets=search.subsets,
        examples=samples,
        sampled_max_error=sampled_max_error,
        bits_min=search.bits_min,
        bits_proof=search.bits_proof,
        w_norm_max=search.w_norm_max,
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
    ``[M]^N`` when that has at most ``samples`` sequences, else on ``samples`` balanced samples
    (:func:`.._tasks.match_inputs`), run in each float format of ``dtypes``
    (:func:`match_check`). Inputs run in chunks sized to a quarter of the memory budget
    (:func:`.._theory_costs.match_plan`); :class:`~transformer_theory.budget.BudgetError` if
    not even one sequence fits."""
    unit = registry.unit(task) if isinstance(task, str) else task
    plan = costs.match_plan(unit, seq_len, modulus, window, samples)
    x, labels = ts.match_inputs(
        unit.task, seq_len, modulus, window, samples=samples, seed=seed, exhaustive=plan.exhaustive
    )
    return match_check(
        unit,
        x,
        labels,
        seq_len,
        modulus,
        window=window,
        exhaustive=plan.exhaustive,
        chunk=plan.chunk,
        dtypes=dtypes,
    )


def match_check(
    unit: registry.Unit,
    x_BxN: np.ndarray,
    labels_BxN: np.ndarray,
    seq_len: int,
    modulus: int,
    *,
    window: int,
    exhaustive: bool,
    chunk: int,
    dtypes: tuple[str, ...] = precision.FORMATS,
) -> dict:
    """The record of ``unit`` built in each float format of ``dtypes`` and run on ``x_BxN``
    (``chunk`` sequences at a time) against ``labels_BxN``: ``accuracy_by_dtype``;
    ``smallest_exact`` is the narrowest format that is 100% correct (``None`` if none).
    ``scale_log2`` is ``exact_scale`` and ``within_exact_range`` says per format whether it is at
    most the format's significand bits: a miss outside that range is the format's precision, not
    the construction. ``exhaustive`` says ``x_BxN`` is all of ``[M]^N``."""
    x, labels = x_BxN, labels_BxN
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
