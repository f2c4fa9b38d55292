"""Input validation shared by the public API: every check raises a ``ValueError`` naming the
argument.

These run at trace time on static shapes and dtypes only, so they cost nothing under ``jit``.
Token-id range checks need concrete values; :func:`check_token_ids` skips them for tracers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike


def check_ndim(name: str, x: ArrayLike, ndim: int | Sequence[int]) -> None:
    """Raise if ``x`` does not have ``ndim`` dimensions (or one of several)."""
    allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if jnp.ndim(x) not in allowed:
        raise ValueError(
            f"{name}: expected {' or '.join(map(str, allowed))} dimensions, got shape "
            f"{jnp.shape(x)}"
        )


def check_shape(name: str, x: ArrayLike, shape: Sequence[int | None]) -> None:
    """Raise if ``x``'s shape does not match ``shape`` (``None`` matches any size)."""
    got = tuple(jnp.shape(x))
    if len(got) != len(shape) or any(s is not None and s != g for s, g in zip(shape, got)):
        want = tuple("*" if s is None else s for s in shape)
        raise ValueError(f"{name}: expected shape {want}, got {got}")


def check_float(name: str, x: ArrayLike) -> None:
    """Raise unless ``x`` has a floating dtype."""
    if not jnp.issubdtype(jnp.result_type(x), jnp.floating):
        raise ValueError(f"{name}: expected a floating dtype, got {jnp.result_type(x)}")


def check_int(name: str, x: ArrayLike) -> None:
    """Raise unless ``x`` has an integer dtype."""
    if not jnp.issubdtype(jnp.result_type(x), jnp.integer):
        raise ValueError(f"{name}: expected an integer dtype (token ids), got {jnp.result_type(x)}")


def check_mask(name: str, mask: ArrayLike, shape: Sequence[int | None] | None = None) -> None:
    """Raise unless ``mask`` is a boolean "may attend" mask (True = query may attend to key).

    Every mask argument of the library takes exactly this one type. An additive float mask
    ``M`` (0 where allowed, ``-inf`` where blocked, the form of Conti 2024, eq. 10) is refused
    rather than cast: ``M.astype(bool)`` would read ``0.`` as blocked and ``-inf`` as allowed,
    inverting it; convert it with ``M == 0``. Integer 0/1 masks are refused for the same reason
    (which of the two values means "allowed" is a convention the library will not guess).
    """
    dtype = jnp.result_type(mask)
    if dtype != jnp.bool_:
        hint = " (an additive mask M of 0 / -inf converts as `M == 0`)"
        raise ValueError(
            f"{name}: expected a boolean mask (True = may attend), got dtype {dtype}"
            + (hint if jnp.issubdtype(dtype, jnp.floating) else "")
        )
    if shape is not None:
        check_shape(name, mask, shape)


def check_token_ids(name: str, tokens: ArrayLike, vocab_size: int) -> None:
    """Raise if concrete token ids fall outside ``[0, vocab_size)``; tracers are only
    dtype-checked."""
    check_int(name, tokens)
    if isinstance(tokens, jax.core.Tracer):
        return
    arr = np.asarray(tokens)
    if arr.size and (arr.min() < 0 or arr.max() >= vocab_size):
        raise ValueError(
            f"{name}: token ids must lie in [0, {vocab_size}), got min {arr.min()} and "
            f"max {arr.max()}"
        )


def check_positive(
    name: str, value: Any, *, allow_zero: bool = False, allow_inf: bool = False
) -> None:
    """Raise unless ``value`` is a finite positive (or non-negative) number.

    NaN is refused explicitly: ``nan <= 0`` is False, so a bare comparison lets it through and it
    surfaces later as NaN margins or a traceback. ``+inf`` is refused unless ``allow_inf`` (a
    score scale or a limit where infinity has a meaning the caller documents).
    """
    kind = "non-negative" if allow_zero else "positive"
    if value is None or isinstance(value, (str, bytes)):
        raise ValueError(f"{name}: expected a finite {kind} number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a finite {kind} number, got {value!r}") from None
    if math.isnan(x) or (math.isinf(x) and not (allow_inf and x > 0)):
        raise ValueError(f"{name}: expected a finite {kind} number, got {value}")
    if x < 0 if allow_zero else x <= 0:
        raise ValueError(f"{name}: expected a {kind} value, got {value}")


def check_finite(name: str, value: ArrayLike) -> None:
    """Raise unless ``value`` (a number or an array) is finite everywhere (no NaN, no inf)."""
    if isinstance(value, jax.core.Tracer):
        return
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{name}: expected finite numbers, got {value!r:.80}")
    bad = ~np.isfinite(arr)
    if arr.ndim == 0 and bad:
        raise ValueError(f"{name}: expected finite numbers, got {arr.item()}")
    if np.any(bad):  # one line, whatever the size: the count and the first place
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name}: expected finite numbers, got {int(bad.sum())} non-finite of {arr.size} "
            f"(first {arr[first]} at index {list(first)})"
        )


def check_choice(name: str, value: object, choices: Sequence[Any]) -> None:
    """Raise unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name}: expected one of {list(choices)}, got {value!r}")


def check_int_arg(name: str, value: object, minimum: int = 1) -> int:
    """Raise unless ``value`` is an int ``>= minimum``; return it as a Python int."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name}: expected an int >= {minimum}, got {value!r}")
    return int(value)


def check_seed(name: str, seed: object) -> object:
    """Raise unless ``seed`` is an int ``>= 0`` (what ``np.random.default_rng`` takes: its own
    error names no argument) or already a ``np.random.Generator``; return it."""
    if isinstance(seed, np.random.Generator):
        return seed
    value = check_int_arg(name, seed, 0)
    if value > 2**63 - 1:  # a jax.random.key takes a C long (an OverflowError mid-run beyond)
        raise ValueError(f"{name}: expected a seed in 0..2**63 - 1, got {value}")
    return value


_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,199}")


def check_file_name(name: str, value: object) -> str:
    """Raise unless ``value`` is safe as ONE path component the library builds a file or
    directory name from (an experiment's name, a task's, a size's): letters, digits and ``_ . +
    -``, not starting with a dot or a dash, at most 200 characters -- so no ``/``, no ``..``, no
    hidden or absolute name can take a write outside ``--out``. Returns ``value``."""
    if not (isinstance(value, str) and _FILE_NAME.fullmatch(value)):
        raise ValueError(
            f"{name}: expected letters, digits, '_', '.', '+' or '-' (it names files and "
            f"directories under the output directory), got {value!r:.80}"
        )
    return value


def check_template(name: str, template: str, fields: Sequence[str]) -> tuple[str, ...]:
    """Raise unless ``template`` is a ``str.format`` text whose every placeholder is a plain name
    among ``fields`` (e.g. a claim's reproducing command ``"tt verify --n {n}"`` against its tier's
    sizes); return the placeholders used, in order, once each.

    A malformed template (``"tt {"``), a positional ``{}`` / ``{0}``, an attribute or index
    (``{n.real}``, ``{n[0]}``) or a name not in ``fields`` is refused naming ``name``, instead of
    the ``ValueError`` / ``IndexError`` / ``KeyError`` that ``template.format`` raises later.
    """
    import string

    if not isinstance(template, str):
        raise ValueError(f"{name}: expected a text, got {template!r:.80}")
    try:
        used = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError as err:
        raise ValueError(f"{name}: not a valid template ({err}): {template!r:.80}") from None
    known = set(fields)
    for field in used:
        if not field.isidentifier() or field not in known:
            raise ValueError(
                f"{name}: placeholder {{{field}}} is not one of the sizes "
                f"{sorted(known)} in {template!r:.80}"
            )
    return tuple(dict.fromkeys(used))
