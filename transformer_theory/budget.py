"""One mechanism for sizes that would exhaust memory or run for hours: estimate, then refuse or go.

Every command knows its shapes from its settings before it starts, so it can say what a run will
cost before paying for it. The rule (README, "Exit status"):

1. the command estimates its peak memory (and, where it can, its work) from its settings, from
   the shapes it will allocate, or from XLA's own account of a compiled program
   (:func:`compiled_bytes`, ``compiled.memory_analysis()``);
2. :func:`check_memory` compares the estimate with the memory this process can still get
   (:func:`available_memory`: ``MemAvailable`` and the cgroup limit, whichever is smaller) and
   raises :class:`BudgetError` naming the option to change, with both figures, when the estimate
   exceeds ``fraction`` of it; :func:`check_seconds` does the same for an estimated run time;
3. the command line turns :class:`BudgetError` into one line and exit 2, before any long work.

API functions that enumerate (all strings of a length, all subsets, a full n-gram table) take a
``limit`` and call :func:`check_count`, which raises ``ValueError`` with the count.

``TT_MEMORY_BUDGET`` (bytes, or with a suffix: ``512M``, ``4G``) overrides the measured available
memory and ``TT_TIME_BUDGET`` (seconds) the time limit, so tests and shared machines can set the
line deterministically.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

__all__ = [
    "BudgetError",
    "BudgetSettingError",
    "check_environment",
    "available_memory",
    "time_budget",
    "format_bytes",
    "format_seconds",
    "check_memory",
    "check_seconds",
    "check_count",
    "compiled_bytes",
]

DEFAULT_TIME_BUDGET_S = 4 * 3600.0
_SUFFIX = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


class BudgetError(ValueError):
    """A run whose estimated memory or time exceeds what this machine allows (exit 2 in the CLI).

    Attributes: ``option`` (what to change), ``estimate`` and ``available`` (bytes or seconds).
    """

    def __init__(self, message: str, *, option: str = "", estimate: float = 0, available=0):
        super().__init__(message)
        self.option = option
        self.estimate = estimate
        self.available = available


class BudgetSettingError(ValueError):
    """An environment budget (``TT_MEMORY_BUDGET``, ``TT_TIME_BUDGET``) that is not a positive
    finite number; the message names the variable (the CLI reports it as a usage error, exit 2)."""


def _parse_bytes(text: str) -> int:
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    suffix = t[-1] if t and t[-1] in _SUFFIX else ""
    number = t[: len(t) - len(suffix)] if suffix else t
    try:
        value = float(number) * _SUFFIX[suffix]
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 1):
        raise BudgetSettingError(
            f"TT_MEMORY_BUDGET: expected a positive size in bytes (e.g. 512M, 4G), got {text!r}"
        )
    return int(value)


def _parse_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise BudgetSettingError(f"TT_TIME_BUDGET: expected positive seconds, got {text!r}")
    return value


def check_environment() -> None:
    """Parse ``TT_MEMORY_BUDGET`` and ``TT_TIME_BUDGET`` when set: :class:`BudgetSettingError`
    naming the variable for a value that is not a positive finite number (``abc``, ``nan``,
    ``0``, ``-1``). The command line calls it before any command runs."""
    for name, parse in (("TT_MEMORY_BUDGET", _parse_bytes), ("TT_TIME_BUDGET", _parse_seconds)):
        text = os.environ.get(name, "")
        if text.strip():  # set but empty is unset, as before
            parse(text)


def _cgroup_free() -> int | None:
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if limit == "max":
            return None
        with open("/sys/fs/cgroup/memory.current") as f:
            used = int(f.read().strip())
        return max(int(limit) - used, 0)
    except (OSError, ValueError):
        return None


def available_memory() -> int:
    """Bytes this process can still allocate: ``TT_MEMORY_BUDGET`` if set, else the smaller of
    ``MemAvailable`` (``/proc/meminfo``) and the cgroup's remaining limit; where neither can be
    read, the physical memory (``os.sysconf``)."""
    env = os.environ.get("TT_MEMORY_BUDGET", "")
    if env.strip():
        return _parse_bytes(env)
    candidates = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    candidates.append(int(line.split()[1]) * 1024)
                    break
    except OSError:
        pass
    cg = _cgroup_free()
    if cg is not None:
        candidates.append(cg)
    if not candidates:
        try:
            candidates.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
        except (ValueError, OSError, AttributeError):
            candidates.append(8 * 2**30)
    return int(min(candidates))


def time_budget() -> float:
    """Seconds a single command may be estimated to run before it is refused (``TT_TIME_BUDGET``,
    default 4 hours)."""
    env = os.environ.get("TT_TIME_BUDGET", "")
    if env.strip():
        return _parse_seconds(env)
    return DEFAULT_TIME_BUDGET_S


def format_bytes(n: float) -> str:
    """``8.9 TiB``-style size."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} EiB"  # pragma: no cover


def format_seconds(s: float) -> str:
    """``3.2 h`` / ``14 min`` / ``25 s``."""
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 60:
        return f"{s / 60:.0f} min"
    return f"{s:.0f} s"


def check_memory(
    estimate_bytes: float,
    *,
    what: str,
    option: str,
    fraction: float = 0.8,
    available: int | None = None,
) -> float:
    """Raise :class:`BudgetError` if ``estimate_bytes`` exceeds ``fraction`` of available memory.

    ``what`` says what the memory is for (``"the n-gram table"``), ``option`` what to change
    (``"--order/--alphabet"``). Returns the estimate, for the caller to print.
    """
    avail = available_memory() if available is None else int(available)
    if not math.isfinite(estimate_bytes) or estimate_bytes > fraction * avail:
        raise BudgetError(
            f"{option}: {what} needs about {format_bytes(estimate_bytes)} of memory, more than "
            f"this machine can give ({format_bytes(avail)} available); lower {option}",
            option=option,
            estimate=estimate_bytes,
            available=avail,
        )
    return float(estimate_bytes)


def check_seconds(
    estimate_s: float, *, what: str, option: str, limit_s: float | None = None
) -> float:
    """Raise :class:`BudgetError` if a run is estimated to take longer than ``limit_s`` (default
    :func:`time_budget`). Returns the estimate."""
    limit = time_budget() if limit_s is None else float(limit_s)
    if not math.isfinite(estimate_s) or estimate_s > limit:
        raise BudgetError(
            f"{option}: {what} would take about {format_seconds(estimate_s)} "
            f"(limit {format_seconds(limit)}; set TT_TIME_BUDGET to allow more); lower {option}",
            option=option,
            estimate=estimate_s,
            available=limit,
        )
    return float(estimate_s)


def check_count(name: str, count: int, limit: int | None, *, unit: str = "items") -> int:
    """Raise ``ValueError`` naming ``name`` if an enumeration of ``count`` items exceeds ``limit``.

    ``limit=None`` means no limit (the caller takes responsibility). Returns ``count``.
    """
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit >= 0
    ):
        raise ValueError(f"limit: expected a non-negative number or None, got {limit!r}")
    if limit is not None and count > limit:
        raise ValueError(
            f"{name}: this would enumerate {count:,} {unit}, more than limit={limit:,}; "
            f"pass a larger limit to allow it"
        )
    return int(count)


def compiled_bytes(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """Peak bytes XLA reports for ``jax.jit(fn)(*args, **kwargs)``, without running it.

    ``args`` may be ``jax.ShapeDtypeStruct``s, so nothing is allocated. The figure is arguments +
    outputs + temporaries - aliased bytes from ``compiled.memory_analysis()``; where a backend
    gives no analysis, 0.
    """
    import jax

    compiled = jax.jit(fn).lower(*args, **kwargs).compile()
    stats = compiled.memory_analysis()
    if stats is None:
        return 0
    total = (
        getattr(stats, "argument_size_in_bytes", 0)
        + getattr(stats, "output_size_in_bytes", 0)
        + getattr(stats, "temp_size_in_bytes", 0)
        - getattr(stats, "alias_size_in_bytes", 0)
    )
    return int(max(total, 0))
