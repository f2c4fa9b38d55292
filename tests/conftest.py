"""Suite-wide JAX settings: float64 available, rank promotion raises (nanodo, equinox)."""

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_numpy_rank_promotion", "raise")
