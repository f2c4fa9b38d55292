"""Records for the Sanford, Hsu & Telgarsky 2023 constructions: the smallest ``m`` (and bits) at
which the qSA unit reaches ``eps``, and the accuracy of the Match units per float format.

Each function returns a plain JSON-ready dict; ``transformer-theory sanford`` writes and plots them.
"""

from __future__ import annotations

import itertools
import math

import jax.numpy as jnp
import numpy as np

from transformer_theory.constructions import sanford as cs
from transformer_theory.tasks import sanford as ts

DTYPES = ("float64", "float32", "bfloat16", "float16")


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
    ``<= eps`` over ALL inputs (:func:`~transformer_theory.constructions.sanford.qsa_worst_error`),
    then the fewest fraction bits of ``w`` that keep it, the RIP constants of that ``U`` and the
    error on ``samples`` random inputs run through the model. ``m_min = None`` if no ``m <=
    max_rows`` works."""
    rows, found = max(1, q), None
    while rows <= max_rows:
        c = cs.qsa_construction(seq_len, q, dim, epsilon, rows, seed=seed)
        worst = cs.qsa_worst_error(c)
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
        "alpha": cs.alpha_scale(seq_len, epsilon),
        "q_log_N": q * math.log(seq_len),
        "m_min": None,
    }
    if found is None:
        return record
    c, worst = found
    proof_bits = cs.bits_needed(c.rows, c.alpha, epsilon)
    bits = next(
        p
        for p in range(proof_bits + 1)
        if cs.qsa_worst_error(
            cs.qsa_construction(seq_len, q, dim, epsilon, c.rows, seed=seed, bits=p)
        )["max_error"]
        <= epsilon
    )
    rip = cs.rip_constants(c.u_ExK, q) if q < seq_len else None
    sampled = 0.0
    for start in range(0, samples, 5000):
        num = min(5000, samples - start)
        z, members = ts.qsa_sample(seed + 1 + start, num, seq_len, q, dim)
        out, _ = cs.qsa_apply(c, z, members)
        err = np.linalg.norm(out - ts.qsa_target(z, members), axis=-1).max()
        sampled = max(sampled, float(err))
    w, _ = cs.subset_weights(c.u_ExK, ts.all_subsets(seq_len, q))
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
        rip_isometry=None if rip is None else rip.isometry,
        rip_orthogonality=None if rip is None else rip.orthogonality,
        rip_exhaustive=None if rip is None else rip.exhaustive,
    )
    return record


def _inputs(task, seq_len, modulus, window, samples, seed):
    if modulus**seq_len <= samples:
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
    dtypes=DTYPES,
) -> dict:
    """Accuracy of the ``task`` construction (match2 / match3bigram / match3local) on all of
    ``[M]^N`` when that has at most ``samples`` sequences, else on ``samples`` balanced samples,
    run in each float format of ``dtypes``; ``smallest_exact`` is the narrowest format that is
    100% correct (``None`` if none)."""
    x, labels, exhaustive = _inputs(task, seq_len, modulus, window, samples, seed)
    accuracy = {}
    for name in dtypes:
        dtype = jnp.dtype(name)
        if task == "match2":
            params = cs.match2_construction(seq_len, modulus, dtype)
            apply = cs.match2_apply
        elif task == "match3bigram":
            params = cs.match3bigram_construction(seq_len, modulus, dtype)
            apply = cs.match3bigram_apply
        elif task == "match3local":
            params = cs.match3local_construction(seq_len, modulus, window, dtype)

            def apply(p, chunk, m):
                return cs.match3local_apply(p, chunk, m, window)
        else:
            raise ValueError(f"task: expected match2, match3bigram or match3local, got {task!r}")
        # chunks bound the memory of the MLP activations (B x N x hidden)
        pred = np.concatenate(
            [apply(params, x[s : s + 2000], modulus) for s in range(0, len(x), 2000)]
        )
        accuracy[name] = float(np.mean(pred == labels))
    exact = [name for name in dtypes if accuracy[name] == 1.0]
    bits = {"float64": 53, "float32": 24, "bfloat16": 8, "float16": 11}
    return {
        "task": task,
        "N": seq_len,
        "M": modulus,
        "window": window if task == "match3local" else None,
        "examples": int(len(x)),
        "exhaustive": exhaustive,
        "positive_rate": float(labels.mean()),
        "accuracy_by_dtype": accuracy,
        "accuracy": accuracy.get("float64", max(accuracy.values())),
        "smallest_exact": min(exact, key=lambda n: bits[n]) if exact else None,
        "smallest_exact_mantissa_bits": min(bits[n] for n in exact) if exact else None,
    }
