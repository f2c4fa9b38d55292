"""Unranking: example index -> (block, mixed-radix digits) -> permutations and injective maps.

Every exhaustive dataset here is a disjoint union of *blocks*; inside a block an example is a tuple
of
digits ``d_j in [0, r_j)`` read most-significant first (a mixed-radix number). A task chooses the
blocks so that each block's radices are fixed (e.g. one block per template in template matching,
because templates with more wildcards have more substitution maps). Permutations and injective maps
are Lehmer codes: digit ``d_i`` in ``[0, n - i)`` picks the ``d_i``-th smallest element not used
yet,
so the digits of all ``k``-permutations of ``[n]`` in lexicographic order count up in mixed radix
``(n, n-1, ..., n-k+1)``, and ``A(n, k) = n!/(n-k)!`` codes give ``A(n, k)`` distinct injections.
Selections from a masked pool (templates of one group) use :func:`nth_free` instead.

Everything on device is pure ``jnp`` on static tables, so it traces under ``jit`` and ``vmap``, and
any
index range is produced independently of the rest. Sizes are exact Python ints.

Shape suffixes follow :mod:`transformer_theory.glossary` (``U`` digits of an example, short blocks
padded with radix 1; ``B`` examples); ``n`` is the pool size of an injective map.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike, DTypeLike

# Exhaustive access by index needs the index and every partial product in a signed 64-bit int.
MAX_EXHAUSTIVE_SIZE = 2**62


def num_injections(n: int, k: int) -> int:
    """``A(n, k) = n!/(n-k)!``: ordered selections of ``k`` distinct items out of ``n`` (0 if ``k >
    n``)."""
    return math.perm(n, k) if 0 <= k <= n else 0


def index_dtype() -> DTypeLike:
    """int64 when ``jax_enable_x64`` is on, else int32: the widest integer the device computes
    in."""
    return jnp.int64 if jax.config.jax_enable_x64 else jnp.int32


def nth_free(free_n: jax.Array, d: jax.Array) -> jax.Array:
    """Position of the ``d``-th (0-based) True entry of the boolean ``free_n`` (the Lehmer-code
    step)."""
    # cumsum is non-decreasing and first reaches d + 1 at the answer p, so p = #{j : cumsum_j <= d}
    # (a plain sum: cheaper to compile than an argmax).
    rank_n = jnp.cumsum(free_n.astype(jnp.int32))
    return jnp.sum(rank_n <= d, dtype=jnp.int32)


def take_out(free_n: jax.Array, v: jax.Array) -> jax.Array:
    """``free_n`` with entry ``v`` cleared; a compare instead of a scatter, which compiles much
    faster under vmap."""
    return free_n & (jnp.arange(free_n.shape[0], dtype=jnp.int32) != v)


def unrank_injection(digits_U: jax.Array) -> jax.Array:
    """Decode a Lehmer code: ``out[i]`` = the ``digits_U[i]``-th element of ``[n]`` not among
    ``out[:i]``.

    The classic right-to-left conversion: start from the digits and, for ``i`` from the back, bump
    every later value ``>= out[i]`` by one. ``W - 1`` vector steps on length-``W`` arrays,
    independent
    of the pool size ``n`` (with ``digits_U[i] < n - i`` the values land in ``[n]``).

    Args:
      digits_U: integer digits, ``digits_U[i]`` in ``[0, n - i)``.

    Returns:
      ``values_U`` int32, pairwise distinct.
    """
    v = jnp.asarray(digits_U, jnp.int32)
    for i in range(v.shape[0] - 2, -1, -1):
        tail = v[i + 1 :]
        v = jnp.concatenate([v[: i + 1], tail + (tail >= v[i]).astype(jnp.int32)])
    return v


@dataclasses.dataclass(frozen=True)
class BlockRadix:
    """A disjoint union of mixed-radix blocks: the index space of an exhaustive dataset.

    Attributes:
      radices: one tuple of ``D`` positive radices per block (pad with 1). Block ``b`` holds
        ``prod(radices[b])`` examples; blocks are laid out one after another in index order.
    """

    radices: tuple[tuple[int, ...], ...]

    def __post_init__(self):
        object.__setattr__(self, "radices", tuple(tuple(int(r) for r in rs) for rs in self.radices))
        if not self.radices or len({len(r) for r in self.radices}) != 1:
            raise ValueError(
                "radices: expected at least one block, all with the same number of digits"
            )
        if any(r < 1 for rs in self.radices for r in rs):
            raise ValueError("radices: every radix must be >= 1 (drop empty blocks instead)")

    @functools.cached_property
    def block_sizes(self) -> tuple[int, ...]:
        return tuple(math.prod(rs) for rs in self.radices)

    @property
    def size(self) -> int:
        return sum(self.block_sizes)

    @property
    def num_digits(self) -> int:
        return len(self.radices[0])

    @functools.cached_property
    def _tables(self):
        """NumPy tables: block offsets (B,), radices (B, D), divisors (B, D) = place values."""
        sizes = self.block_sizes
        offsets = np.array([sum(sizes[:b]) for b in range(len(sizes))], dtype=object)
        radix = np.array(self.radices, dtype=np.int64).reshape(len(sizes), self.num_digits)
        div = np.ones_like(radix)
        for j in range(self.num_digits - 2, -1, -1):
            div[:, j] = div[:, j + 1] * radix[:, j + 1]
        return offsets, radix, div

    def unrank(self, index: jax.Array) -> tuple[jax.Array, jax.Array]:
        """One index (scalar int, ``< size < 2**62``) -> ``(block int32, digits_U int32)``."""
        offsets, radix, div = self._tables
        dt = index.dtype
        if len(offsets) == 1:
            block = jnp.zeros((), jnp.int32)
            local = index
        else:
            block_offsets = jnp.asarray(np.array(offsets, dtype=np.int64), dt)
            # compare_all is one vectorized compare (no while loop) while the table is small
            method = "compare_all" if len(offsets) <= 1024 else "scan"
            block = (
                jnp.searchsorted(block_offsets, index, side="right", method=method) - 1
            ).astype(jnp.int32)
            local = index - block_offsets[block]
        radix_U = jnp.asarray(radix, dt)[block]
        div_U = jnp.asarray(div, dt)[block]
        digits_U = (local // div_U) % radix_U
        return block, digits_U.astype(jnp.int32)

    def sample(
        self, key: jax.Array, num: int, uniform_blocks: bool = False
    ) -> tuple[jax.Array, jax.Array]:
        """``num`` uniform draws over all examples: ``(block_B int32, digits_BxU int32)``.

        A block is drawn with probability ``size_b / size`` (log-weights computed exactly in Python,
        rounded once to float), or uniformly over blocks when ``uniform_blocks``; then every digit
        uniformly and independently in ``[0, r_j)``: mixed radix digits drawn independently are a
        uniform draw of the block's index. No index is ever formed, so this works at any size.
        """
        _, radix, _ = self._tables
        k_block, k_digit = jax.random.split(key)
        if len(radix) == 1:
            block = jnp.zeros((num,), jnp.int32)
        elif uniform_blocks:
            block = jax.random.randint(k_block, (num,), 0, len(radix), dtype=jnp.int32)
        else:
            total = self.size
            logw = np.array([_log_ratio(s, total) for s in self.block_sizes])
            block = jax.random.categorical(k_block, jnp.asarray(logw), shape=(num,)).astype(
                jnp.int32
            )
        radix_BxU = jnp.asarray(radix, jnp.int32)[block]
        digits = jax.random.randint(k_digit, radix_BxU.shape, 0, radix_BxU, dtype=jnp.int32)
        return block, digits


def _log_ratio(a: int, b: int) -> float:
    """``log(a / b)`` for exact (possibly huge) positive ints without overflow."""
    shift = max(a.bit_length(), b.bit_length()) - 60
    if shift > 0:
        a, b = a >> shift, b >> shift
    return math.log(max(a, 1)) - math.log(b)


def check_index_space(size: int) -> None:
    """Raise unless exhaustive access by index is possible for a dataset of ``size`` examples."""
    if size >= MAX_EXHAUSTIVE_SIZE:
        raise ValueError(
            f"size: the dataset has {size} >= 2**62 examples; exhaustive access by index is out of "
            "scope (indices must fit a signed 64-bit int on device), use sample() instead"
        )
    if size > 2**31 - 1 and not jax.config.jax_enable_x64:
        raise ValueError(
            f"size: the dataset has {size} >= 2**31 examples; enable jax_enable_x64 for "
            "64-bit indices"
        )


def as_index_array(name: str, indices: ArrayLike, size: int) -> jax.Array:
    """Validate example indices (integer dtype; in ``[0, size)`` when concrete) and cast to
    ``index_dtype()``."""
    check_index_space(size)
    dtype = (
        jnp.result_type(indices)
        if not isinstance(indices, (int, np.integer))
        else np.dtype(np.int64)
    )
    if not jnp.issubdtype(dtype, jnp.integer):
        raise ValueError(f"{name}: expected an integer dtype (example indices), got {dtype}")
    if jnp.ndim(indices) not in (0, 1):
        raise ValueError(
            f"{name}: expected a scalar or 1-D array of indices, got shape {jnp.shape(indices)}"
        )
    if not isinstance(indices, jax.core.Tracer):
        arr = np.asarray(indices)
        if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= size):
            raise ValueError(
                f"{name}: indices must lie in [0, {size}), got min {arr.min()} and max {arr.max()}"
            )
    return jnp.asarray(indices).astype(index_dtype())
