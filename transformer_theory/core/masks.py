"""Boolean attention masks ``mask_QxK`` (True = query ``i`` may attend to key ``j``).

Combine masks with ``&``. Seed 003 Lemma 2 ("constrained attention") realizes any
position mask through large negative ``W_pp`` entries; here masks are applied exactly.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from transformer_theory import _validate as V


def causal_mask(n: int) -> jax.Array:
    """Lower-triangular ``(n, n)`` mask: key ``j <= i`` (seed 000's causal attention)."""
    V.check_positive("n", n)
    return jnp.tril(jnp.ones((n, n), bool))


def padding_mask(valid_N: jax.Array) -> jax.Array:
    """``(n, n)`` mask letting every query attend only to valid (non-padding) keys.

    Args:
      valid_N: boolean ``(n,)``, True for real tokens.
    """
    V.check_ndim("valid_N", valid_N, 1)
    valid = jnp.asarray(valid_N, bool)
    return jnp.broadcast_to(valid[None, :], (valid.shape[0], valid.shape[0]))
