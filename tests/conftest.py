"""Suite-wide JAX settings: float64 available, rank promotion raises (nanodo, equinox), and XLA's
CPU backend compiles without LLVM's optimization passes.

The suite is dominated by compiling many small programs, each run once or twice: with
``--xla_backend_optimization_level=0`` compilation takes about half the time
(tests/papers/barbero2024/test_collapse.py + tests/nn/test_fast.py: 69 s -> 37 s on 2 cores). It
changes code generation, not the HLO or its floating-point semantics (no fast-math), so every
tolerance stays what it says. Set in the environment before JAX creates its CPU client, so
subprocesses (the CLI tests, the notebook kernels, the 2-process test) inherit it. Benchmarks do
not run under it.
"""

import os

_FAST_COMPILE = "--xla_backend_optimization_level=0"
if _FAST_COMPILE not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_FAST_COMPILE}".strip()

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_numpy_rank_promotion", "raise")

# Hypothesis profiles for tests/properties/: "ci" (the default) keeps the suite in its time budget;
# "nightly" draws many more examples (HYPOTHESIS_PROFILE=nightly python -m pytest tests/properties).
# No deadline: the first example of each shape pays a JAX compile, which is not a slowness bug.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "ci",
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
settings.register_profile(
    "nightly",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
