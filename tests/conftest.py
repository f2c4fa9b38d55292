"""Suite-wide JAX settings: float64 available, rank promotion raises (nanodo, equinox), and XLA's
CPU backend compiles without LLVM's optimization passes, with its classic (elemental IR) fusion
emitters, and in one piece.

The suite is dominated by compiling many small programs, each run once or twice, so it sets three
code-generation flags:

- ``--xla_backend_optimization_level=0``: compilation takes about half the time
  (tests/papers/barbero2024/test_collapse.py + tests/nn/test_fast.py: 69 s -> 37 s on 2 cores);
- ``--xla_cpu_use_fusion_emitters=false``: XLA's CPU backend emits its loop fusions with the
  elemental IR emitter it used before the MLIR fusion emitters (the default of jaxlib 0.10), which
  compile about three times faster (the encoder-decoder's Adam train step: 4.1 s -> 1.35 s of
  CPU; tests/papers/barbero2024: 112 s -> 69 s of user CPU, one process, 2026-12-02);
- ``--xla_cpu_parallel_codegen_split_count=1``: the LLVM module is compiled whole, not split
  into pieces compiled on parallel threads, which on 2 cores shared by 2 test processes only adds
  work (that train step: 1.4 s -> 1.05 s of CPU, and a third less wall time under load).

All three change code generation, not the HLO or its floating-point semantics (no fast-math: XLA's
``xla_cpu_enable_fast_math`` stays off), so every tolerance stays what it says; results may differ
from the default's in the last bits of a transcendental function, as they may from one CPU to
another, which no test relies on. Set in the environment before JAX creates its CPU client, so
subprocesses (the CLI tests, the notebook kernels, the 2-process test) inherit them. Benchmarks do
not run under them.
"""

import os
import re

_FAST_COMPILE = (
    "--xla_backend_optimization_level=0",
    "--xla_cpu_use_fusion_emitters=false",
    "--xla_cpu_parallel_codegen_split_count=1",
)


def _jaxlib_version() -> tuple[int, ...]:
    from importlib.metadata import version

    return tuple(int(x) for x in re.findall(r"\d+", version("jaxlib"))[:2])


# XLA aborts the process on a flag it does not know, and the two CPU flags after the first are
# recent: they are set only for the jaxlib these figures were measured with (0.10) and later; an
# older jaxlib (pyproject allows 0.4.35) runs the suite without them, slower but the same.
if _jaxlib_version() < (0, 10):
    _FAST_COMPILE = _FAST_COMPILE[:1]
for _flag in _FAST_COMPILE:
    if _flag.split("=")[0] not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_flag}".strip()

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
