"""Peng, Narayanan & Papadimitriou 2024's bound, as a formula: Theorem 1's lower bound on the error
of a one-layer transformer on function composition (:func:`peng_error_bound`; with ``R`` and the
chance error at one ``(n, H, d, p)``: :func:`one_pass_bounds`), and the hand-built model's budget
beside its threshold (:func:`budget_row`); and trained models' records set beside the bounds: the
one-pass models' error beside Theorem 1's (:func:`bound_records`), the CoT steps a recipe needed
beside Theorem 2's scale (:func:`steps_needed`).
"""

from __future__ import annotations

import math

__all__ = [
    "bound_records",
    "budget_row",
    "one_pass_bounds",
    "peng_error_bound",
    "steps_needed",
]


def peng_error_bound(n: int, heads: int, width: int, bits: int) -> float:
    """Peng et al. 2024, Theorem 1: a one-layer transformer with ``H`` heads, embedding ``d`` and
    ``p``-bit precision answers function composition wrongly with probability at least (``log``
    in bits, as ``p`` counts bits)
    ``R / (3 n log n)``, ``R = n log n - H (d + 1) p`` (0 when ``R <= 0``: the bound is void)."""
    for name, v in (("n", n), ("heads", heads), ("width", width), ("bits", bits)):
        # NaN/inf would end in int()'s message, naming no argument; 2.5 would be truncated
        if isinstance(v, bool) or v != v or v in (math.inf, -math.inf) or v != int(v) or v < 1:
            raise ValueError(f"{name}: expected an integer >= 1, got {v}")
    if n < 2:
        return 0.0
    nlogn = n * math.log2(n)
    return max(0.0, (nlogn - heads * (width + 1) * bits) / (3 * nlogn))


def one_pass_bounds(n: int, heads: int, width: int, bits: int) -> dict:
    """Theorem 1 at ``(n, H, d, p)``: ``{"bound", "R", "chance_error"}``, the bound
    (:func:`peng_error_bound`), ``R = n log2 n - H (d + 1) p`` and the error of a uniform guess,
    ``1 - 1 / n``."""
    bound = peng_error_bound(n, heads, width, bits)
    nlogn = n * math.log2(n)
    return {"bound": bound, "R": nlogn - heads * (width + 1) * bits, "chance_error": 1 - 1 / n}


def budget_row(found: dict, heads: int, width: int) -> dict:
    """The hand-built model's fewest exact bits ``found`` (:func:`._models.fewest_exact_bits`:
    ``n``, ``bits``, ...) beside Theorem 1's threshold ``n log2 n`` (below it the bound is
    positive): ``found`` with ``heads``, ``d = width``, ``threshold_bits``, its budget
    ``construction_bits = H (d + 1) p`` in bits (None where no ``p`` was exact) and their
    ``ratio``."""
    nlogn = found["n"] * math.log2(found["n"])
    budget = None if found["bits"] is None else heads * (width + 1) * found["bits"]
    return found | {
        "heads": heads,
        "d": width,
        "threshold_bits": nlogn,
        "construction_bits": budget,
        "ratio": None if budget is None else budget / nlogn,
    }


def steps_needed(records: list[dict], target: float) -> list[dict]:
    """Per ``(n, functions, H, d, p)``: the fewest CoT steps whose model's answer accuracy is at
    least ``target`` (``None`` when no stride reached it), beside :func:`._models_cot.cot_bound`."""
    if not 0 < target <= 1:
        raise ValueError(f"target: expected an accuracy in (0, 1], got {target}")
    keys = ("n", "functions", "heads", "d", "p")
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    rows = []
    for key, rs in groups.items():
        ok = [r["cot_steps"] for r in rs if r["accuracy"] >= target]
        rows.append(
            dict(zip(keys, key))
            | {
                "steps_needed": min(ok) if ok else None,
                "steps_tried": sorted(r["cot_steps"] for r in rs),
                "cot_bound": rs[0]["cot_bound"],
                "target": target,
            }
        )
    return rows


def bound_records(records: list[dict]) -> list[dict]:
    """The records of one-step models (``cot_steps == 1``: the answer in one pass, with ``K = 2``
    Theorem 1's ``g(f(x))``) with ``error = 1 - accuracy``, Peng et al.'s bound
    :func:`peng_error_bound` at ``(n, H, d, p)``, ``R = n log2 n - H (d + 1) p``, the
    chance error and ``layers = 1`` (for :func:`._plots.composition_depth`)."""

    rows = []
    for r in records:
        if r["cot_steps"] != 1:
            continue
        nlogn = r["n"] * math.log2(r["n"])
        rows.append(
            r
            | {
                "layers": 1,
                "error": 1 - r["accuracy"],
                "bound": peng_error_bound(r["n"], r["heads"], r["d"], r["p"]),
                "R": nlogn - r["heads"] * (r["d"] + 1) * r["p"],
                "chance_error": 1 - 1 / r["n"],
            }
        )
    return rows
