"""Peng, Narayanan & Papadimitriou 2024's bound, as a formula: Theorem 1's lower bound on the error
of a one-layer transformer on function composition (:func:`peng_error_bound`).
"""

from __future__ import annotations

import math

__all__ = ["peng_error_bound"]


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
