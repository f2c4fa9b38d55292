"""Measurements of the formal-language recognizers (:mod:`.constructions`) as records of data:
accuracy and smallest margin by length, exhaustive up to a length and sampled beyond, and PARITY's
margin and cross-entropy against ``n`` by float format (Chiang & Cholak 2022, formats named as in
:mod:`transformer_theory.precision`); and what each costs, from its settings alone.

A margin here is signed by the truth: ``(o_1 - o_0)`` for members and ``(o_0 - o_1)`` for the rest,
so a string is classified correctly exactly when its margin is positive. Membership comes from
:func:`.tasks.is_member`, never from the model.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike

from transformer_theory import _validate, precision
from transformer_theory.papers.formal_languages import _constructions as recognizers
from transformer_theory.papers.formal_languages import _tasks as tasks
from transformer_theory.params import ModelParams

# The table rows built: recognizer -> (language, attention, positional code, source).
ROWS = {
    "majority": ("majority", "hard_average", "none", "Pérez, Marinković & Barceló 2019"),
    "parity": ("parity", "softmax", "chiang_cholak", "Chiang & Cholak 2022 (with LayerNorm)"),
    "parity_no_layernorm": ("parity", "softmax", "chiang_cholak", "Chiang & Cholak 2022"),
    "dyck1": ("dyck1", "hard_average (causal)", "none", "Yao et al. 2021 (first layer)"),
}


# Peak memory of one batch through a recognizer, in units of (rows * n^2 * itemsize): XLA's own
# account (budget.compiled_bytes of constructions.languages._margins) gave 2.0-2.4 for MAJORITY
# and PARITY and 3.0-4.1 for Dyck-1, n = 257..2049, float32 and float64 (2026-11-24); 5 covers
# them all. The strings themselves are held about three times (the sampler's list, the stacked
# array, the BOS-prefixed device copy).
_MAPS_PER_ROW = 5
_STRING_COPIES = 3
# Attention-map entries per second through a recognizer: 0.4e7-4.4e7 measured on this project's
# loaded 2-core CPU (n = 257..2049, 2026-11-24); the estimate takes a faster 5e7, so it refuses
# only what would exceed the time budget even on a less loaded machine.
ENTRIES_PER_SECOND = 5e7


def evaluation_cost(length: int, count: int, itemsize: int = 8) -> tuple[float, float]:
    """``(peak_bytes, map_entries)`` of :func:`length_entry` on ``count`` strings of ``length``:
    the peak memory of one chunk of :func:`.constructions.decision_margins` plus the strings, and
    the attention-map entries ``count (length + 1)^2`` computed (the work, for a time estimate).
    Plain arithmetic, nothing allocated."""
    _validate.check_int_arg("length", length, 0)
    _validate.check_int_arg("count", count, 1)
    n = int(length) + 1
    chunk = min(int(count), max(1, 2**22 // (n * n)))
    peak = _MAPS_PER_ROW * chunk * n * n * itemsize + _STRING_COPIES * int(count) * n * 4
    return float(peak), float(count) * n * n


def record_cost(
    exhaustive_up_to: int,
    sampled_lengths: Iterable[int] = (),
    samples: int = 64,
    itemsize: int = 8,
) -> tuple[float, float]:
    """``(peak_bytes, map_entries)`` of one :func:`recognizer_record` with these settings (the
    peak over its lengths, the entries summed); the work of every row is the same."""
    costs = [evaluation_cost(n, 2**n, itemsize) for n in range(1, int(exhaustive_up_to) + 1)]
    costs += [
        evaluation_cost(n, samples, itemsize)
        for n in sorted(set(int(x) for x in sampled_lengths))
        if n > exhaustive_up_to
    ]
    return max((c[0] for c in costs), default=0.0), sum(c[1] for c in costs)


def precision_cost(
    lengths: Iterable[int], samples: int = 8, dtypes: Sequence[str] = ("float32", "float64")
) -> tuple[float, float]:
    """``(peak_bytes, map_entries)`` of :func:`parity_precision_records` (two variants per
    format; ``dtypes`` names formats of :data:`transformer_theory.precision.FORMATS`)."""
    for name in dtypes:
        _validate.check_choice("dtypes", name, precision.FORMATS)
    costs = [evaluation_cost(n, samples, jnp.dtype(dt).itemsize) for n in lengths for dt in dtypes]
    return max((c[0] for c in costs), default=0.0), 2 * sum(c[1] for c in costs)


def _signed(margins_B: np.ndarray, labels_B: np.ndarray) -> np.ndarray:
    return np.where(labels_B, margins_B, -margins_B).astype(np.float64)


def length_entry(
    params: ModelParams, language: str, strings_BxN: np.ndarray, exhaustive: bool
) -> dict:
    """Accuracy and smallest signed margin of ``params`` on ``strings_BxN`` (one length).

    Raises:
      ValueError: ``strings_BxN`` holds no string (an empty batch has no smallest margin).
    """
    if np.shape(strings_BxN)[0] == 0:
        raise ValueError("strings_BxN: empty batch, no string to check at this length")
    labels = tasks.members(language, strings_BxN)
    signed = _signed(recognizers.decision_margins(params, strings_BxN), labels)
    return {
        "length": int(np.shape(strings_BxN)[1]),
        "strings": int(len(labels)),
        "members": int(labels.sum()),
        "exhaustive": bool(exhaustive),
        "accuracy": float(np.mean(signed > 0)),
        "min_margin": float(signed.min()),
    }


def recognizer_record(
    name: str,
    *,
    exhaustive_up_to: int,
    sampled_lengths: Iterable[int] = (),
    samples: int = 64,
    seed: int = 0,
    dtype: jnp.dtype | type = jnp.float64,
) -> dict:
    """One row of the table: the recognizer ``name`` checked on every string of lengths
    ``1..exhaustive_up_to`` and on ``samples`` balanced strings of each of ``sampled_lengths``
    (skipping a length without both classes, e.g. odd lengths for Dyck-1).

    Returns:
      ``{language, construction, attention, positional, source, dtype, lengths_checked,
      exhaustive_up_to, accuracy, min_margin, by_length: [...]}``.
    """
    _validate.check_choice("name", name, recognizers.RECOGNIZERS)
    _validate.check_positive("exhaustive_up_to", exhaustive_up_to)
    _validate.check_positive("samples", samples)
    # all_strings refuses lengths beyond its limit (2^20 strings) naming "length"; say which
    # argument of this function asked for it.
    if 2 ** int(exhaustive_up_to) > tasks.ALL_STRINGS_LIMIT:
        raise ValueError(
            f"exhaustive_up_to: {exhaustive_up_to} would enumerate 2^{int(exhaustive_up_to)} "
            f"strings, more than {tasks.ALL_STRINGS_LIMIT:,}"
        )
    language, attention, positional, source = ROWS[name]
    params = recognizers.build(name, dtype=dtype)
    entries = [
        length_entry(params, language, tasks.all_strings(n), True)
        for n in range(1, exhaustive_up_to + 1)
    ]
    for n in sorted(set(int(x) for x in sampled_lengths)):
        if n <= exhaustive_up_to or not tasks.has_both_classes(language, n):
            continue
        strings, _ = tasks.sample(language, n, samples, seed=seed + n)
        entries.append(length_entry(params, language, strings, False))
    total = sum(e["strings"] for e in entries)
    return {
        "language": language,
        "construction": name,
        "attention": attention,
        "positional": positional,
        "source": source,
        "dtype": jnp.dtype(dtype).name,
        "lengths_checked": [e["length"] for e in entries],
        "exhaustive_up_to": int(exhaustive_up_to),
        "strings_checked": int(total),
        "accuracy": float(sum(e["accuracy"] * e["strings"] for e in entries) / total),
        "min_margin": float(min(e["min_margin"] for e in entries)),
        "by_length": entries,
    }


def cross_entropy_bits(signed_margins: ArrayLike) -> np.ndarray:
    """Cross-entropy ``log2(1 + exp(-m))`` of a two-class softmax with signed margin ``m`` (1 bit
    at ``m = 0``, Hahn's limit), computed stably in float64."""
    m = np.asarray(signed_margins, np.float64)
    return np.logaddexp(0.0, -m) / np.log(2.0)


def parity_precision_records(
    lengths: Iterable[int],
    dtypes: Sequence[str] = ("float32", "float64"),
    samples: int = 8,
    seed: int = 0,
) -> list[dict]:
    """PARITY with and without the LayerNorm, in each float format, on ``samples`` balanced
    strings of each length: ``{n, dtype, layer_norm, accuracy, min_margin, max_cross_entropy_bits,
    mean_cross_entropy_bits}`` per (length, dtype, variant); ``n`` counts BOS.

    ``dtypes`` names formats of :data:`transformer_theory.precision.FORMATS`
    (:func:`transformer_theory.precision.dtype_of`: float64 needs ``jax_enable_x64``, refused
    rather than silently computed in float32)."""
    _validate.check_positive("samples", samples)
    formats = {name: precision.dtype_of(name) for name in dtypes}
    records = []
    for length in lengths:
        _validate.check_positive("lengths", length)
        strings, labels = tasks.sample("parity", int(length), samples, seed=seed + int(length))
        for name, dtype in formats.items():
            for layer_norm in (True, False):
                params = recognizers.parity(layer_norm=layer_norm, dtype=dtype)
                signed = _signed(recognizers.decision_margins(params, strings), labels)
                ce = cross_entropy_bits(signed)
                records.append(
                    {
                        "n": int(length) + 1,
                        "dtype": name,
                        "layer_norm": layer_norm,
                        "strings": int(samples),
                        "accuracy": float(np.mean(signed > 0)),
                        "min_margin": float(signed.min()),
                        "max_cross_entropy_bits": float(ce.max()),
                        "mean_cross_entropy_bits": float(ce.mean()),
                    }
                )
    return records


def _ones(string: Sequence[int]) -> int:
    return int(sum(int(x) for x in string))


def derived_margin(name: str, string: Sequence[int]) -> Any:
    """The decision ``o_1 - o_0`` that :mod:`.constructions` derives for ``string`` (``n = L +
    1``): MAJORITY ``(2 (#1 - #0) - 1) / n`` exactly; PARITY ``+-4/n^2`` without the LayerNorm and
    ``+-4 sqrt 5`` with it (a float: the target of an enclosure); Dyck-1 only a bound (``None``:
    the signed margin is at least ``1/(2n)``)."""
    from fractions import Fraction

    L = len(string)
    n, ones = L + 1, _ones(string)
    sign = 1 if ones % 2 else -1
    if name == "majority":
        return Fraction(2 * (2 * ones - L) - 1, n)
    if name == "parity_no_layernorm":
        return 4.0 * sign / n**2
    if name == "parity":
        return sign * 4.0 * math.sqrt(5.0)
    return None


_MAX_MARGIN = 4 * math.sqrt(5.0)  # the largest margin size of the four rows (PARITY with LN)


def smallest_margin(name: str, n: int) -> float:
    """The smallest signed margin the construction allows at ``n = L + 1`` (proved on every
    string up to a length by the rows above): MAJORITY ``1/n``, PARITY ``4/n^2`` and
    ``4 sqrt 5``, Dyck-1 ``1/(2n)``."""
    return {
        "majority": 1 / n,
        "parity": _MAX_MARGIN,
        "parity_no_layernorm": 4 / n**2,
        "dyck1": 1 / (2 * n),
    }[name]


def float_tolerance(n: int, dtype: str) -> float:
    """A conservative bound on the float error of one margin: ``16 n u`` (``u`` the unit
    roundoff): each margin is at most two averages of ``n`` terms of size at most 1 (each within
    ``n u`` of the exact average, Higham's ``gamma_n``), a ReLU MLP of O(1) terms and a
    classifier of factor at most 4."""
    return 16.0 * n * precision.unit_roundoff(dtype)
