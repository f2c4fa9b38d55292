"""Floating-point formats in one place: names, dtypes, significand bits, plot styles, and the fake
quantization that trains models at ``p`` bits.

Every study that runs a model "in a precision" names it by one of :data:`PRECISIONS` (or
:data:`FORMATS`, which adds IEEE half precision) and asks this module for the dtype and its
significand bits; the bits come from ``jnp.finfo`` (``nmant + 1``, the implicit bit counted), never
from a hand-written table: 53 (float64), 24 (float32), 11 (float16), 8 (bfloat16).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike, DTypeLike

from transformer_theory import _validate

# JAX's 64-bit mode is a process-wide switch. The library never flips it inside a function: the
# entry points do (each command that computes in float64, the claims runner, the test
# configuration, the notebooks, the experiments scripts), through enable_x64 below; a library
# function that needs float64 asks require_x64, which refuses with the one line that fixes it.
_X64_HINT = (
    "call transformer_theory.precision.enable_x64() (or set JAX_ENABLE_X64=1) at the start of "
    "the program, before any array is made"
)


def enable_x64() -> None:
    """Turn on JAX's 64-bit mode (``jax_enable_x64``) for the whole process.

    For entry points only -- a command, the claims runner, a test configuration, a notebook's
    first cell -- before any array is made: arrays made before keep their 32-bit dtypes, and
    every later default dtype becomes 64-bit. Library functions never call it; they call
    :func:`require_x64`.
    """
    jax.config.update("jax_enable_x64", True)


@contextlib.contextmanager
def x64() -> Iterator[None]:
    """JAX's 64-bit mode inside a block, restored afterwards: for a library call that must
    compute in float64 (the claims runner) without changing its caller's mode, as optax does."""
    before = bool(jax.config.jax_enable_x64)
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", before)


def require_x64(name: str) -> None:
    """Raise ``ValueError`` naming ``name`` unless JAX's 64-bit mode is on.

    Without it JAX silently makes float32 arrays where float64 was asked for; a function whose
    result depends on float64 (an exact-integer bound, a float64 reference) calls this first.
    """
    if not jax.config.jax_enable_x64:
        raise ValueError(f"{name}: float64 needs JAX's 64-bit mode; {_X64_HINT}")


__all__ = [
    "FORMATS",
    "PRECISIONS",
    "PRECISION_COLOR",
    "PRECISION_STYLE",
    "dtype_of",
    "enable_x64",
    "fake_quantize",
    "grid_bits",
    "require_x64",
    "significand_bits",
    "to_float64",
    "unit_roundoff",
]

#: The precisions the studies sweep by default, widest first.
PRECISIONS: tuple[str, ...] = ("float64", "float32", "bfloat16")
#: Every format a study may name: :data:`PRECISIONS` plus IEEE half precision.
FORMATS: tuple[str, ...] = ("float64", "float32", "float16", "bfloat16")
_DTYPES = {
    "float64": jnp.float64,
    "float32": jnp.float32,
    "float16": jnp.float16,
    "bfloat16": jnp.bfloat16,
}
#: One line style and one colour per format, shared by every figure.
PRECISION_STYLE = {"float64": "-", "float32": "--", "float16": "-.", "bfloat16": ":"}
PRECISION_COLOR = {"float64": "C0", "float32": "C1", "bfloat16": "C2", "float16": "C3"}


def dtype_of(precision: str) -> DTypeLike:
    """The JAX dtype named ``precision`` (one of :data:`FORMATS`).

    float64 arrays need ``jax_enable_x64``; without it JAX silently makes float32, so this raises
    instead of returning a dtype that would not be honoured.
    """
    _validate.check_choice("precision", precision, FORMATS)
    if precision == "float64":
        require_x64("precision")
    return _DTYPES[precision]


def _dtype(precision_or_dtype):
    if isinstance(precision_or_dtype, str):
        _validate.check_choice("precision", precision_or_dtype, FORMATS)
        return _DTYPES[precision_or_dtype]
    return precision_or_dtype


def significand_bits(precision_or_dtype: str | DTypeLike) -> int:
    """``p``, the significand bits with the implicit one: 53, 24, 11 or 8 (``jnp.finfo``)."""
    return int(jnp.finfo(_dtype(precision_or_dtype)).nmant) + 1


def unit_roundoff(precision_or_dtype: str | DTypeLike) -> float:
    """``u = 2^-p``: half an ulp at 1, the relative error of one correctly rounded operation."""
    return 0.5 * float(jnp.finfo(_dtype(precision_or_dtype)).eps)


def to_float64(x: ArrayLike) -> np.ndarray:
    """``x`` as a float64 NumPy array, exactly (bfloat16 goes through float32, which NumPy can
    read; every bfloat16 value is a float32 value)."""
    x = jnp.asarray(x)
    if x.dtype == jnp.bfloat16:
        x = x.astype(jnp.float32)
    return np.asarray(x, np.float64)


def fake_quantize(
    x: jax.Array, bits: int | None, *, per_example: bool = False, scale: float | None = None
) -> jax.Array:
    """Round ``x`` to a symmetric uniform grid of ``2^bits - 1`` levels on ``[-s, s]``, ``s =
    max |x|``, with a straight-through estimator (the forward value is the rounded one, the
    gradient is the identity's: ``x + stop_gradient(round(x) - x)``).

    ``bits=None`` returns ``x`` unchanged. ``per_example``: one scale per leading-axis entry
    (activations: an example's rounding never depends on the rest of the batch); otherwise one
    scale for the whole tensor (weights). The scale itself is not quantized (one float per tensor,
    like the ``+1`` of Peng et al. 2024's ``H (d + 1) p``).

    ``scale``: a FIXED ``s`` instead of ``max |x|``; ``x`` is clipped to ``[-s, s]`` first. Then a
    quantized vector of ``k`` entries is one of ``(2^bits - 1)^k`` values, i.e. it holds at most
    ``k log2(2^bits - 1) < k bits`` bits and nothing rides along in a data-dependent scale: what
    the memory and communication bounds of Sanford et al. 2023 count.
    """
    if bits is None:
        return x
    if int(bits) < 2:
        raise ValueError(f"bits: expected >= 2 (sign and one level), got {bits}")
    levels = 2 ** (int(bits) - 1) - 1
    if scale is not None:
        if not float(scale) > 0:
            raise ValueError(f"scale: expected a positive fixed scale, got {scale}")
        step = float(scale) / levels
        rounded = jnp.round(jnp.clip(x, -float(scale), float(scale)) / step) * step
        return x + jax.lax.stop_gradient(rounded - x)
    axes = tuple(range(1, x.ndim)) if per_example and x.ndim > 1 else None
    scale = jax.lax.stop_gradient(jnp.max(jnp.abs(x), axis=axes, keepdims=True))
    step = jnp.where(scale > 0, scale / levels, 1.0)
    rounded = jnp.round(x / step) * step
    return x + jax.lax.stop_gradient(rounded - x)


def grid_bits(count: int, bits: int | None) -> float:
    """Information in ``count`` numbers quantized by :func:`fake_quantize` with a fixed scale:
    ``count log2(2^bits - 1)`` bits (``bits=None``: 32 per float32 number)."""
    if bits is None:
        return 32.0 * count
    return count * math.log2(2 ** int(bits) - 1)
