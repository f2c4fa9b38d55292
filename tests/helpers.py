"""The one tolerance helper of the suite.

float64 checks compare against independent NumPy references to ``RTOL64``: the computations are
a handful of matmuls of O(1) entries, so rounding error is a small multiple of eps64 ~ 2.2e-16;
1e-12 leaves three orders of headroom and still catches any wrong term. float32 runs use
``RTOL32`` = 1e-5 (eps32 ~ 1.2e-7 times the same headroom for sums of up to ~100 terms).
"""

import jax
import numpy as np

RTOL64 = 1e-12
ATOL64 = 1e-12
RTOL32 = 1e-5
ATOL32 = 1e-5


def assert_close(actual, expected, *, dtype="float64", rtol=None, atol=None, err_msg=""):
    """``np.testing.assert_allclose`` with the suite's tolerance for ``dtype``; works on pytrees."""
    rt = rtol if rtol is not None else (RTOL64 if str(dtype) == "float64" else RTOL32)
    at = atol if atol is not None else (ATOL64 if str(dtype) == "float64" else ATOL32)
    la, lb = jax.tree.leaves(actual), jax.tree.leaves(expected)
    assert len(la) == len(lb), f"pytree structures differ: {len(la)} vs {len(lb)} leaves"
    for a, b in zip(la, lb):
        np.testing.assert_allclose(
            np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=rt, atol=at, err_msg=err_msg
        )
