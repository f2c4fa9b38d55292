"""How much memory and time efficient attention's studies need, from the shapes alone (Conti
2024, §2.1; :mod:`._models_efficient`).

``transformer-theory efficient-attention`` refuses, before any work, a run that would not fit in
memory or in the time budget (:mod:`transformer_theory.budget`); these are its estimates:

- :func:`estimate_bytes`: an upper estimate of one call's peak bytes (checked against XLA's own
  account of the compiled program in ``tests/papers/conti2024/test_efficient.py``);
  :func:`error_study_bytes` for the error study;
- :func:`estimate_macs` and :func:`call_seconds`: a lower bound on one call's seconds;
  :func:`cost_study_seconds` and :func:`error_study_seconds` for the two studies;
- :func:`check_study_budgets`: both studies' memory and time checked against the budgets, naming
  the size to lower;
- the budgets the studies sweep (:func:`default_budgets`, :data:`COST_BUDGETS`; what each counts,
  :data:`BUDGET_KINDS`), which :mod:`._models_efficient` builds its variants with.

Pure arithmetic on the sizes: nothing is built or compiled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from transformer_theory import _validate, budget

__all__ = [
    "BIGBIRD_WINDOW",
    "BUDGET_KINDS",
    "CALL_SECONDS",
    "COMPILE_SECONDS",
    "COST_BUDGETS",
    "GLOBAL",
    "MACS_PER_SECOND",
    "MEMORY_MARGIN",
    "SIZE_FIELDS",
    "call_seconds",
    "check_study_budgets",
    "check_study_memory",
    "check_study_seconds",
    "default_budgets",
    "cost_study_seconds",
    "error_study_bytes",
    "error_study_seconds",
    "estimate_bytes",
    "estimate_macs",
    "lengths",
]

BIGBIRD_WINDOW = 8  # BigBird's window
GLOBAL = (0,)  # the global positions of Longformer and BigBird
#: What each variant's budget counts (None: it has none): the key window, BigBird's random keys,
#: Linformer's rank, the Performer's random features.
BUDGET_KINDS: dict[str, str | None] = {
    "sliding_window": "window",
    "dilated_window": "window",
    "longformer": "window",
    "bigbird": "random keys",
    "linformer": "rank",
    "performer": "features",
    "linear_elu": None,
    "taylor": None,
    "dense": None,
    "window_dense_mask": "window",
}
# Budgets of the cost measurement (fixed while n grows).
COST_BUDGETS = {
    "sliding_window": 128,
    "dilated_window": 128,
    "longformer": 128,
    "bigbird": 32,
    "linformer": 256,
    "performer": 256,
    "linear_elu": None,
    "taylor": None,
    "dense": None,
    "window_dense_mask": 128,
}


def default_budgets(variant: str, n: int) -> list[int | None]:
    """Powers of two up to what makes the variant exact at length ``n`` (windows up to ``2 n``,
    random keys and ranks up to ``n``); features ``4, 16, ..., 1024``."""
    if variant not in BUDGET_KINDS:
        raise ValueError(f"variant: expected one of {tuple(BUDGET_KINDS)}, got {variant!r}")
    kind = BUDGET_KINDS[variant]
    if kind is None:
        return [None]
    if kind == "features":
        return [4**i for i in range(1, 6)]  # 4 .. 1024
    top = {"window": 2 * n, "random keys": n, "rank": n}[kind]
    return [2**i for i in range(int(top).bit_length())]  # 1, 2, 4, .., <= top


# Bytes of one call of each variant on float32 inputs of length n and width d (queries, keys and
# values of width d), its budget b, from the shapes each builds: dense holds the n x n scores and
# their exponentials (8 n^2 bytes); a blocked window holds, per query, the scores and weights of
# three blocks of b // 2 keys (times the dilation); BigBird gathers r random keys per query (n r d
# values) and deduplicates them against each other (an n x r x r comparison, one byte each);
# Linformer a k' x n projection (on the host and the device); the linear variants a few n x d
# (or n x m feature) arrays. The constants are fitted to XLA's own account (compiled
# memory_analysis()) at n = 512 and 2,048, d = 64 (2026-11-24, jax on the 2-core CPU), and the
# whole multiplied by MEMORY_MARGIN; tests/papers/conti2024/test_efficient.py checks every variant's
# estimate against budget.compiled_bytes at its largest budget.
MEMORY_MARGIN = 1.25


def _sizes(variant: str, n: int, dim: int, budget: int | None) -> tuple[int | None, float, float]:
    """The checked sizes of one call: ``(budget, n, d)``, the budget :data:`COST_BUDGETS`'s when
    None."""
    if variant not in BUDGET_KINDS:
        raise ValueError(f"variant: expected one of {tuple(BUDGET_KINDS)}, got {variant!r}")
    _validate.check_positive("n", n)
    _validate.check_positive("dim", dim)
    return COST_BUDGETS[variant] if budget is None else budget, float(n), float(dim)


def estimate_bytes(variant: str, n: int, dim: int, budget: int | None = None) -> float:
    """An upper estimate of the peak bytes of one call of ``variant`` at length ``n``, width
    ``dim`` and ``budget`` (None: :data:`COST_BUDGETS`), without building or compiling it (see
    the comment above for the model); batch ``B`` costs ``B`` times as much."""
    b, n, d = _sizes(variant, n, dim, budget)
    io = 16 * n * d  # q, k, v and the output
    if variant in ("dense", "window_dense_mask"):
        est = 9 * n * n + io  # scores and weights (8 n^2), a dense boolean mask (n^2)
    elif variant in ("sliding_window", "dilated_window", "longformer"):
        dilation = 2 if variant == "dilated_window" else 1
        est = 44 * n * d + 24 * n * dilation * max(b // 2, 1) + 8 * n * len(GLOBAL)
    elif variant == "bigbird":
        r = min(b, n)
        est = 44 * n * d + n * r * 4 * (2 * d + 16) + n * r * r
    elif variant == "linformer":
        est = 8 * n * min(b, n) + io
    elif variant == "performer":
        est = 12 * n * b + 2 * io
    else:  # linear_elu, taylor
        est = 2 * io
    return MEMORY_MARGIN * est


def error_study_bytes(n: int, dim: int, batch: int, variants: Sequence[str]) -> dict[str, float]:
    """Estimated peak bytes of :func:`error_vs_budget` on ``batch`` inputs of length ``n``: the
    exact reference and, for each variant, its largest default budget (the most expensive), each
    vmapped over the batch, plus the inputs and the reference output kept throughout.
    Returns ``{variant: bytes}`` (``"dense"`` for the reference)."""
    held = MEMORY_MARGIN * 16 * n * dim * batch  # q, k, v, the exact output
    out = {"dense": batch * estimate_bytes("dense", n, dim) + held}
    for name in variants:
        budgets = [b for b in default_budgets(name, n) if b is not None] or [None]
        out[name] = batch * estimate_bytes(name, n, dim, max(budgets, key=lambda b: b or 0)) + held
    return out


# Seconds, for the time estimate (``transformer-theory efficient-attention`` refuses a run that
# would exceed the time budget, before any work). Each is a LOWER bound on this library's
# machines, so an estimate above the budget means the run would take at least that long: a call
# of a compiled program costs at least its dispatch (CALL_SECONDS; measured 20-60 us on the 2-core
# CPU, 2026-11-24), a compilation at least COMPILE_SECONDS (0.1-2 s measured) and the arithmetic
# at most MACS_PER_SECOND multiply-adds a second (an accelerator's dense peak is above it; a CPU
# is far below it).
CALL_SECONDS = 1e-5
COMPILE_SECONDS = 0.05
MACS_PER_SECOND = 1e12


def estimate_macs(variant: str, n: int, dim: int, budget: int | None = None) -> float:
    """Multiply-adds of one call of ``variant`` at length ``n``, width ``dim`` and ``budget``
    (None: :data:`COST_BUDGETS`): ``n d`` times the keys each query reads and weighs (``n`` for
    the dense variants, three blocks of ``b / 2`` keys for the windows, the window, globals and
    random keys for BigBird, twice the rank for Linformer, three times the features for the
    Performer, twice the width for the linear variants). Pure arithmetic on the sizes."""
    b, n, d = _sizes(variant, n, dim, budget)
    if variant in ("dense", "window_dense_mask"):
        keys = n
    elif variant in ("sliding_window", "dilated_window", "longformer"):
        dilation = 2 if variant == "dilated_window" else 1
        keys = 3 * max(b // 2, 1) * dilation + len(GLOBAL)
    elif variant == "bigbird":
        keys = 3 * max(BIGBIRD_WINDOW // 2, 1) + len(GLOBAL) + min(b, n)
    elif variant == "linformer":
        keys = 2 * min(b, n)
    elif variant == "performer":
        keys = 3 * b
    else:  # linear_elu, taylor
        keys = 2 * d
    return 2 * n * d * keys  # scores, then the weighted values


def call_seconds(
    variant: str, n: int, dim: int, budget: int | None = None, batch: int = 1
) -> float:
    """A lower bound on the seconds of one call of ``variant`` on ``batch`` inputs (see
    :data:`CALL_SECONDS`)."""
    return CALL_SECONDS + batch * estimate_macs(variant, n, dim, budget) / MACS_PER_SECOND


def cost_study_seconds(
    lengths: Sequence[int], variants: Sequence[str], dim: int, repeats: int
) -> float:
    """A lower bound on the seconds of :func:`cost_vs_length`: per length and variant, one
    compilation, a warm-up call and ``repeats`` timed calls. Pure arithmetic (``repeats`` may be
    10^12)."""
    total = 0.0
    for n in lengths:
        for name in variants:
            total += COMPILE_SECONDS + (int(repeats) + 1) * call_seconds(name, n, dim)
    return total


def error_study_seconds(n: int, dim: int, batch: int, variants: Sequence[str]) -> float:
    """A lower bound on the seconds of :func:`error_vs_budget` on ``batch`` inputs of length
    ``n``: the exact reference and every default budget of every variant, each compiled once and
    called once on the whole batch."""
    total = COMPILE_SECONDS + call_seconds("dense", n, dim, batch=batch)
    for name in variants:
        for b in default_budgets(name, n):
            total += COMPILE_SECONDS + call_seconds(name, n, dim, b, batch=batch)
    return total


def lengths(min_len: int, max_len: int) -> list[int]:
    """``min_len, 2 min_len, 4 min_len, ...`` below ``max_len``, then ``max_len``."""
    _validate.check_int_arg("min_len", min_len)
    _validate.check_int_arg("max_len", max_len)
    out, n = [], min_len
    while n < max_len:
        out.append(n)
        n *= 2
    return out + [max_len]


# --- the budgets of both studies, checked before any work --------------------------------------

#: The sizes the budgets read, by their names (the study's settings fields).
SIZE_FIELDS = ("min_len", "max_len", "dim", "repeats", "error_len", "error_batch")


def _cost_peak(variants: Sequence[str], max_len: int, dim: int) -> tuple[str, float]:
    """The variant of the cost study with the largest peak and its bytes at ``max_len``."""
    cost = {v: estimate_bytes(v, max_len, dim) for v in variants}
    worst = max(cost, key=cost.get)
    return worst, cost[worst] + 12 * max_len * dim  # + the timed inputs


def _study_seconds(
    variants: Sequence[str], approximations: Sequence[str], sizes: Mapping[str, int]
) -> float:
    """A lower bound on the seconds of both studies on random inputs (trained inputs add more)."""
    z = sizes
    sweep = lengths(z["min_len"], z["max_len"])
    total = cost_study_seconds(sweep, variants, z["dim"], z["repeats"])
    if approximations:  # two kinds of random inputs
        total += 2 * error_study_seconds(z["error_len"], z["dim"], z["error_batch"], approximations)
    return total


def _fits(check: Callable[[], object]) -> bool:
    try:
        check()
    except budget.BudgetError:
        return False
    return True


def _blame(
    sizes: Mapping[str, int],
    defaults: Mapping[str, int],
    fields: Sequence[str],
    fits: Callable[[Mapping[str, int]], bool],
) -> str:
    """The names among ``fields`` to name for a run over budget, ``/``-joined: those above
    their default (out of their ordinary range) whose default alone makes ``fits(sizes)``
    true; else all those above their default; else all of ``fields`` (the defaults themselves do
    not fit)."""
    above = [f for f in fields if sizes[f] > defaults[f]]

    def fits_at_default(f: str) -> bool:
        at = {**sizes, f: defaults[f]}
        # a default out of order with another size (max_len < min_len) is no way out
        return at["max_len"] >= at["min_len"] and fits(at)

    alone = [f for f in above if fits_at_default(f)]
    return "/".join(alone or above or fields)


def check_study_memory(
    variants: Sequence[str],
    approximations: Sequence[str],
    sizes: Mapping[str, int],
    *,
    defaults: Mapping[str, int],
) -> dict[str, dict[str, float]]:
    """Refuse (:class:`~transformer_theory.budget.BudgetError`) when either study on random inputs
    (the cost of ``variants``, the error of ``approximations``, at ``sizes``:
    :data:`SIZE_FIELDS`) would not fit in memory, naming the size out of its ordinary range (above
    its ``defaults``, and whose default alone would fit).

    Returns:
      the estimates for the record: ``{"cost": {variant: bytes at max_len}, "errors":
      {variant: bytes}}`` (``errors`` empty without an approximation).
    """
    z = sizes
    cost = {v: estimate_bytes(v, z["max_len"], z["dim"]) for v in variants}
    worst, peak = _cost_peak(variants, z["max_len"], z["dim"])

    def cost_fits(a: Mapping[str, int]) -> bool:
        peak_a = _cost_peak(variants, a["max_len"], a["dim"])[1]
        return _fits(lambda: budget.check_memory(peak_a, what="", option=""))

    if not cost_fits(z):
        budget.check_memory(
            peak,
            what=f"timing {worst} at n = {z['max_len']}, width {z['dim']}",
            option=_blame(z, defaults, ["max_len", "dim"], cost_fits),
        )
    errors: dict[str, float] = {}
    if approximations:

        def error_bytes(a: Mapping[str, int]) -> dict[str, float]:
            return error_study_bytes(a["error_len"], a["dim"], a["error_batch"], approximations)

        def error_fits(a: Mapping[str, int]) -> bool:
            peak_a = max(error_bytes(a).values())
            return _fits(lambda: budget.check_memory(peak_a, what="", option=""))

        errors = error_bytes(z)
        if not error_fits(z):
            worst_e = max(errors, key=errors.get)
            budget.check_memory(
                errors[worst_e],
                what=f"the error study ({worst_e} at its largest budget, n = {z['error_len']}, "
                f"width {z['dim']}, {z['error_batch']} inputs at once)",
                option=_blame(z, defaults, ["error_len", "error_batch", "dim"], error_fits),
            )
    return dict(cost=cost, errors=errors)


def check_study_seconds(
    variants: Sequence[str],
    approximations: Sequence[str],
    sizes: Mapping[str, int],
    *,
    defaults: Mapping[str, int],
) -> float:
    """Refuse (:class:`~transformer_theory.budget.BudgetError`) when both studies at ``sizes``
    would take longer than the time budget by a lower-bound estimate, naming the size out of its
    ordinary range (as :func:`check_study_memory`); returns the estimate (seconds)."""
    z = sizes
    seconds = _study_seconds(variants, approximations, z)

    def time_fits(a: Mapping[str, int]) -> bool:
        seconds_a = _study_seconds(variants, approximations, a)
        return _fits(lambda: budget.check_seconds(seconds_a, what="", option=""))

    if not time_fits(z):
        budget.check_seconds(
            seconds,
            what=f"timing {len(variants)} variants at {len(lengths(z['min_len'], z['max_len']))} "
            f"lengths, {z['repeats']} calls each, and the error study (at least)",
            option=_blame(
                z, defaults, ["repeats", "max_len", "dim", "error_len", "error_batch"], time_fits
            ),
        )
    return seconds


def check_study_budgets(
    variants: Sequence[str],
    approximations: Sequence[str],
    sizes: Mapping[str, int],
    *,
    defaults: Mapping[str, int],
) -> dict:
    """:func:`check_study_memory`, then :func:`check_study_seconds`, before any work.

    Returns:
      ``{"memory": <check_study_memory's estimates>, "seconds": <the lower bound>}``.
    """
    memory = check_study_memory(variants, approximations, sizes, defaults=defaults)
    seconds = check_study_seconds(variants, approximations, sizes, defaults=defaults)
    return dict(memory=memory, seconds=seconds)
