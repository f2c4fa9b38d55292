"""Measurements of the formal-language recognizers (:mod:`.constructions`) as records of data:
accuracy and smallest margin by length, exhaustive up to a length and sampled beyond, and PARITY's
margin and cross-entropy against ``n`` by float format (Chiang & Cholak 2022, formats named as in
:mod:`transformer_theory.precision`); and what each costs, from its settings alone.

A margin here is signed by the truth: ``(o_1 - o_0)`` for members and ``(o_0 - o_1)`` for the rest,
so a string is classified correctly exactly when its margin is positive. Membership comes from
:func:`.tasks.is_member`, never from the model.

The second half holds the checks of the claims ledger's rows (:mod:`.claims`): each
``check(**sizes) -> Checked`` states its arithmetic (rationals or arb balls through
:func:`transformer_theory.exact.evaluate`; floats with a derived tolerance; a record read) and its
domain; and the continuation-set oracle (:func:`continuation_set`) that decides, from the
languages' definitions alone, which symbols may really follow a prefix.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike

from transformer_theory import _validate, precision
from transformer_theory.ledger import Checked
from transformer_theory.papers.formal_languages import constructions as recognizers
from transformer_theory.papers.formal_languages import tasks
from transformer_theory.params import ModelParams

__all__ = [
    "ENTRIES_PER_SECOND",
    "ROWS",
    "cross_entropy_bits",
    "evaluation_cost",
    "length_entry",
    "parity_precision_records",
    "precision_cost",
    "record_cost",
    "recognizer_record",
]

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
    """Accuracy and smallest signed margin of ``params`` on ``strings_BxN`` (one length)."""
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


# =========================================================================== the claims' checks
#
# Each ``check(**sizes) -> Checked`` below decides one row of :mod:`.claims` (the table of
# Strobl et al. 2024 as the seed slides print it). A check never sees a tier and never writes a
# status: it says how it computed (``exact`` rationals or ``enclosed`` arb balls through
# :func:`transformer_theory.exact.evaluate`; ``float`` with a derived tolerance; ``record``) and
# over what, and :mod:`transformer_theory.ledger` derives the status.

_UNIT_ROUNDOFF = {"float32": 2.0**-24, "float64": 2.0**-53}
_LANGUAGE = {
    "majority": "majority",
    "parity": "parity",
    "parity_no_layernorm": "parity",
    "dyck1": "dyck1",
}
# The arithmetic each recognizer's forward pass admits: softmax (PARITY) has no rational value.
_ARITHMETIC = {
    "majority": "exact",
    "dyck1": "exact",
    "parity": "enclosed",
    "parity_no_layernorm": "enclosed",
}


def _x64() -> None:
    import jax

    jax.config.update("jax_enable_x64", True)


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


def _strings_of(language: str, exhaustive: int, sampled: Sequence[int], samples: int) -> list:
    out = [s for n in range(1, exhaustive + 1) for s in tasks.all_strings(n)]
    for n in sampled:
        if n > exhaustive and tasks.has_both_classes(language, n):
            out.extend(tasks.sample(language, n, samples, seed=n)[0])
    return out


def row_margins(
    name: str, exhaustive: int, sampled: Sequence[int] = (), samples: int = 8
) -> Checked:
    """The recognizer ``name`` of :mod:`.constructions` run by :func:`transformer_theory.exact.
    evaluate` (rationals for MAJORITY and Dyck-1; arb balls for PARITY, whose softmax has no
    rational value) on every string of lengths ``1..exhaustive`` and ``samples`` balanced strings
    per length of ``sampled`` (seed = length): per string the sign of ``o_1 - o_0`` against
    :func:`.tasks.is_member`, and the margin against :func:`derived_margin` (exactly for
    MAJORITY; Dyck-1 a signed margin ``>= 1/(2n)``; PARITY within ``16 n u`` relative, the
    rounding of the float64 positional code ``i/n`` that the enclosed model carries).

    Values: ``strings``, ``wrong`` (sign wrong or undecided), ``off_derived`` and the first
    ``witness``."""
    from fractions import Fraction

    from transformer_theory import exact

    _x64()
    language, arithmetic = _LANGUAGE[name], _ARITHMETIC[name]
    params = recognizers.build(name)
    strings = _strings_of(language, exhaustive, sampled, samples)
    wrong = off = 0
    witness = None
    smallest = None
    for s in strings:
        trace = exact.evaluate(params, np.array([tasks.BOS, *s]), arithmetic=arithmetic)
        o = trace.logits[-1]
        m = o[1] - o[0]
        member = tasks.is_member(language, s)
        right = bool(m > 0) if member else bool(m < 0)
        want = derived_margin(name, s)
        n = len(s) + 1
        if arithmetic == "exact":
            signed = Fraction(int(m.p), int(m.q)) * (1 if member else -1)
            if name == "majority":
                on = Fraction(int(m.p), int(m.q)) == want
            else:
                on = signed >= Fraction(1, 2 * n)
        else:
            signed = float(m.mid()) * (1 if member else -1)
            tol = 16 * n * _UNIT_ROUNDOFF["float64"] * abs(want)
            on = bool(abs(m - want) < tol)
        smallest = signed if smallest is None else min(smallest, signed)
        if not right or not on:
            wrong += not right
            off += not on
            if witness is None:
                witness = {"string": "".join(map(str, s)), "member": member, "margin": str(m)}
    domain = f"every string of lengths 1-{exhaustive} over {{0, 1}}"
    if any(n > exhaustive for n in sampled):
        domain += f", and {samples} balanced strings per length {', '.join(map(str, sampled))}"
    return Checked(
        arithmetic,
        "upto",
        f"{domain} ({len(strings):,} strings)",
        {
            "strings": len(strings),
            "wrong": wrong,
            "off_derived": off,
            "smallest_signed_margin": smallest,
            "witness": witness,
        },
    )


# ------------------------------------------------------------------------ float64 table

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
    return 16.0 * n * _UNIT_ROUNDOFF[dtype]


def table_float64(
    max_len: int = 1,
    exhaustive_up_to: int = 1,
    samples: int = 64,
    rows: Sequence[str] = recognizers.RECOGNIZERS,
) -> Checked:
    """What ``transformer-theory languages`` runs (:func:`.study.check_rows`) in float64 for
    ``rows``: every row's accuracy, and each length's smallest margin against
    :func:`smallest_margin` less ``16 n u * 4 sqrt 5``."""
    from transformer_theory.papers.formal_languages import study

    _x64()
    settings = study.TableSettings(
        rows=tuple(rows), max_len=max_len, exhaustive_up_to=exhaustive_up_to, samples=samples
    )
    records = study.check_rows(settings)
    worst, cases, wrong = 0.0, 0, 0
    smallest = {}
    for rec in records:
        name = rec["construction"]
        for e in rec["by_length"]:
            n = e["length"] + 1
            tol = float_tolerance(n, "float64") * _MAX_MARGIN
            worst = max(worst, (smallest_margin(name, n) - e["min_margin"]) / tol)
            cases += e["strings"]
            wrong += round((1 - e["accuracy"]) * e["strings"])
        smallest[name] = rec["min_margin"]
    lengths = f"every string of lengths 1-{exhaustive_up_to}"
    extra = study.sampled_lengths(max_len, exhaustive_up_to)
    if extra:
        lengths += f", {samples} balanced strings per length {', '.join(map(str, extra))}"
    return Checked(
        "float",
        "upto",
        f"the {len(records)} rows on {lengths} ({cases:,} strings)",
        {
            "cases": cases,
            "misclassified": wrong,
            "max_shortfall_over_tolerance": worst,
            "smallest": {k: f"{v:.3g}" for k, v in smallest.items()},
        },
        tolerance="16 n u * 4 sqrt 5 per length (n = L + 1, u = 2^-53): two averages of n terms",
    )


# ------------------------------------------------------------------------ PARITY by n


def parity_confidence(lengths: Sequence[int] = (16,), samples: int = 4) -> Checked:
    """Hahn 2020's lemma on the construction and Chiang & Cholak's way out: both PARITY models
    run by :func:`transformer_theory.exact.evaluate` in arb balls on ``samples`` balanced strings
    per length, and ``log2(1 + e^-margin)`` enclosed. Without the LayerNorm every enclosure must
    lie in ``[1 - 2/(n^2 ln 2), 1)`` (so the cross-entropy tends to 1 bit), with it in
    ``(0, 2e-4)`` bits. Values: ``failures`` (``n`` with an enclosure outside its bound)."""
    import flint

    from transformer_theory import exact

    _x64()
    with_ln, without = recognizers.build("parity"), recognizers.build("parity_no_layernorm")
    ln2 = flint.arb(2).log()
    failures, worst_plain, worst_ln, total = [], None, None, 0
    for length in lengths:
        n = length + 1
        strings, labels = tasks.sample("parity", length, samples, seed=length)
        floor = 1 - flint.arb(2) / (flint.arb(n) ** 2 * ln2)
        ok = True
        for s, t in zip(strings, labels):
            total += 1
            sign = 1 if t else -1
            ce = []
            for p in (without, with_ln):
                o = exact.evaluate(p, np.array([tasks.BOS, *s]), arithmetic="enclosed").logits[-1]
                m = (o[1] - o[0]) * sign
                ce.append((1 + (-m).exp()).log() / ln2)
            ok = ok and bool(ce[0] > floor and ce[0] < 1) and bool(ce[1] > 0 and ce[1] < 2e-4)
            worst_plain = float(ce[0].mid())
            worst_ln = max(worst_ln or 0.0, float(ce[1].mid()))
        if not ok:
            failures.append(n)
    return Checked(
        "enclosed",
        "samples",
        f"{samples} balanced strings per n = {', '.join(str(x + 1) for x in lengths)} "
        f"({total} strings, both variants)",
        {
            "failures": len(failures),
            "failing_n": failures,
            "ce_bits_without_layernorm_last": f"{worst_plain:.7f}",
            "ce_bits_with_layernorm_max": f"{worst_ln:.3g}",
        },
    )


def parity_float(dtype: str, lengths: Sequence[int] = (64,), samples: int = 8) -> Checked:
    """:func:`parity_precision_records` in ``dtype``: each variant's smallest margin against the
    exact ``4/n^2`` and ``4 sqrt 5``, over :func:`float_tolerance` (absolute without the LayerNorm;
    times ``4 sqrt 5`` with it), and the misclassified strings. Values: ``worst_over_tolerance``
    (both variants), ``ln_worst_over_tolerance`` (the LayerNorm variant), ``misclassified``,
    ``plain_relative_error`` (the LayerNorm-free variant, the largest)."""
    _x64()
    records = parity_precision_records(lengths, dtypes=(dtype,), samples=samples)
    worst = ln_worst = rel = 0.0
    wrong, first_wrong = 0, None
    for r in records:
        n = r["n"]
        want = _MAX_MARGIN if r["layer_norm"] else 4 / n**2
        # 16 n u bounds the absolute error of sums of O(1) terms; the LayerNorm rescales, so
        # there the bound is relative to 4 sqrt 5.
        scale = want if r["layer_norm"] else 1.0
        ratio = abs(r["min_margin"] - want) / (float_tolerance(n, dtype) * scale)
        worst = max(worst, ratio)
        if r["layer_norm"]:
            ln_worst = max(ln_worst, ratio)
        else:
            rel = max(rel, abs(r["min_margin"] - want) / want)
        if r["accuracy"] < 1.0:
            wrong += round((1 - r["accuracy"]) * r["strings"])
            first_wrong = n if first_wrong is None else min(first_wrong, n)
    return Checked(
        "float",
        "samples",
        f"{samples} balanced strings per n = {', '.join(str(x + 1) for x in lengths)}, "
        "with and without the LayerNorm",
        {
            "worst_over_tolerance": worst,
            "ln_worst_over_tolerance": ln_worst,
            "misclassified": wrong,
            "first_misclassified_n": first_wrong,
            "plain_relative_error": rel,
        },
        tolerance=f"16 n u absolute (u = {_UNIT_ROUNDOFF[dtype]:.3g}); times 4 sqrt 5 with the LN",
    )


LAYERNORM_EPS = 1e-5  # the library's default eps, the one the row is about


def layernorm_eps(lengths: Sequence[int] = (41,)) -> Checked:
    """PARITY's recognizer with the library's default ``eps`` (:data:`LAYERNORM_EPS`) in its
    final LayerNorm, run in arb balls by :func:`transformer_theory.exact.evaluate` on the string of
    ``L`` ones for each ``L`` (a member iff ``L`` odd): the signed margin's enclosure, which must
    lie in ``(0, 1)`` (against ``4 sqrt 5 = 8.944`` with ``eps = 0``). Values: ``inside`` (every
    enclosure certainly in ``(0, 1)``), ``margins``."""
    from transformer_theory import exact

    _x64()
    params = recognizers.build("parity")
    params = params.replace(config=params.config.replace(norm_eps=LAYERNORM_EPS))
    inside, margins = True, {}
    for length in lengths:
        sign = 1 if length % 2 else -1
        o = exact.evaluate(
            params, np.array([tasks.BOS, *([1] * length)]), arithmetic="enclosed"
        ).logits[-1]
        m = (o[1] - o[0]) * sign
        inside = inside and bool(m > 0 and m < 1)
        margins[length + 1] = f"{float(m.mid()):.3g}"
    return Checked(
        "enclosed",
        "all",
        f"the strings of L ones, L = {', '.join(map(str, lengths))}",
        {"inside": inside, "margins": margins},
    )


# ------------------------------------------------------------------------ Hahn 2020, trained


def hahn_training(root: str | None = None) -> Checked:
    """The training experiment: the committed results file(s)
    ``experiments/results/languages_generalization*.json`` under ``root`` (default the
    checkout), read from disk (``record``); without one, the smoke config run now
    (``training``). Values: ``constructions_exact`` (every constructed recognizer at accuracy
    1.0), ``trained``, ``best_hard``, ``best_softmax``."""
    import glob
    import json
    import os
    import tempfile

    from transformer_theory.ledger import REPO_ROOT
    from transformer_theory.papers.formal_languages import generalization
    from transformer_theory.papers.formal_languages.configs import languages_generalization

    root = str(REPO_ROOT) if root is None else root
    results = os.path.join(root, "experiments", "results")
    found = sorted(
        glob.glob(os.path.join(results, "languages_generalization*.json"))
        + glob.glob(os.path.join(results, "languages_generalization*", "*.json"))
    )
    if found:
        records = []
        for path in found:
            with open(path) as f:
                records += json.load(f)["records"]
        arithmetic = "record"
        domain = "committed " + ", ".join(os.path.relpath(p, root) for p in found)
    else:
        config = languages_generalization.get_config("smoke")
        with tempfile.TemporaryDirectory() as out:
            records = generalization.run(config, out, progress=False)["records"]
        arithmetic, domain = "training", "the smoke config, trained now"
    built = [r for r in records if r["model"] == "constructed"]
    trained = [r for r in records if r["final_loss"] is not None]

    def best(kind: str) -> str:
        accs = [max(r["accuracy"]) for r in trained if kind in r["model"]]
        return f"{max(accs):.2f}" if accs else "-"

    return Checked(
        arithmetic,
        "samples",
        f"{domain}: {len(trained)} trained models, seeds {sorted({r['seed'] for r in trained})}",
        {
            "constructions_exact": bool(built)
            and all(a == 1.0 for r in built for a in r["accuracy"]),
            "trained": len(trained),
            "best_hard": best("hard (trained"),
            "best_softmax": best("softmax (trained"),
        },
    )


# ------------------------------------------------------------------------ Dyck-(k, D)


def dyck_k_margins(
    attention: str,
    exhaustive: Mapping[int, int] | None = None,
    depths: Sequence[int] = (2,),
    sampled: Sequence[int] = (),
    samples: int = 0,
) -> Checked:
    """:func:`.dyck_k.check_record` of the ``attention`` recognizer in float64 for each ``k`` of
    ``exhaustive`` (every string of length ``<= exhaustive[k]``) and each depth ``D``, with
    ``samples`` drawn strings per length of ``sampled``: every string classified as the stack
    says, the margins the derived ones within :func:`.dyck_k.tolerance` and (hard) leftmost-hard
    attention giving the same margins. Values: ``pairs`` (string, D) checked, ``failures``,
    ``smallest_margin_times_n``, ``first_failure``."""
    from transformer_theory.papers.formal_languages import dyck_k

    _x64()
    exhaustive = {2: 6} if exhaustive is None else {int(k): int(v) for k, v in exhaustive.items()}
    failures, first, pairs, low = 0, None, 0, math.inf
    for k, e in exhaustive.items():
        for depth in depths:
            r = dyck_k.check_record(
                k,
                depth,
                attention=attention,
                exhaustive_up_to=e,
                sampled_lengths=sampled,
                samples=max(samples, 1),
                leftmost=True,
            )
            pairs += r["strings_checked"]
            low = min(low, r["min_margin_times_n"])
            bad = [e for e in r["by_length"] if e["accuracy"] < 1.0 or not e["derived"]]
            diff = r["leftmost_max_difference"]
            longest = max(x["length"] for x in r["by_length"]) + 1
            if diff is not None and diff > dyck_k.tolerance(longest, "float64"):
                bad.append({"leftmost_max_difference": diff})
            failures += len(bad)
            if bad and first is None:
                first = {"k": k, "depth": depth, "entry": str(bad[0])}
    what = ", ".join(f"k = {k}: every string of length <= {e}" for k, e in exhaustive.items())
    if sampled and samples:
        what += f"; {samples} drawn per length {', '.join(map(str, sampled))}"
    return Checked(
        "float",
        "upto",
        f"D = {', '.join(map(str, depths))}; {what} ({pairs:,} (string, D) pairs)",
        {
            "pairs": pairs,
            "failures": failures,
            "smallest_margin_times_n": low,
            "first_failure": first,
        },
        tolerance="16 n u (u = 2^-53): averages of n terms of size <= 1, three summed",
    )


def dyck_k_float32(lengths: Sequence[int] = (16,), samples: int = 16) -> Checked:
    """:func:`.dyck_k.margin_records` of the hard Dyck-(2, 4) recognizer in float32, ``samples``
    strings per even length: the members' margin error against :func:`.dyck_k.tolerance`
    (``within``) and the first ``n`` with a misclassified string."""
    from transformer_theory.papers.formal_languages import dyck_k

    _x64()
    records = dyck_k.margin_records(2, 4, lengths, dtypes=("float32",), samples=samples)
    first_wrong = next((r["n"] for r in records if r["accuracy"] < 1.0), None)
    worst = max(r["member_margin_error"] / r["tolerance"] for r in records)
    return Checked(
        "float",
        "samples",
        f"{samples} drawn strings per n = {', '.join(str(r['n']) for r in records)}",
        {
            "members_error_over_tolerance": worst,
            "first_misclassified_n": first_wrong,
            "smallest_margin_times_n": min(r["min_margin_times_n"] for r in records),
        },
        tolerance="16 n u (u = 2^-24)",
    )


# ------------------------------------------------------------------------ counter languages


def counter_tolerance(n: int, guards: int, dtype: str) -> float:
    """A bound on the float error of one output of :func:`.counters.build` at ``n`` positions,
    derived by hand (not itself checked): ``2 (4G + 1) (n + 5) u`` (``G`` the output's guards,
    ``u`` the unit roundoff). Each stream coordinate is a uniform average of ``n`` values in
    ``[-1, 1]`` (within ``(n + 2) u`` of the exact one, Higham's ``gamma_n``), each hidden unit
    combines at most two of them, each guard adds at most two units, the readout adds ``b/2``;
    the factor 2 covers the roundings of those additions."""
    return 2.0 * (4 * guards + 1) * (n + 5) * _UNIT_ROUNDOFF[dtype]


def counter_languages(
    languages: Sequence[str], exhaustive: Sequence[int], sampled: Sequence[int], samples: int
) -> Checked:
    """:func:`.counters.exact_check` (rationals) of :func:`.counters.build` for each language:
    every string of lengths ``0..exhaustive[i]`` and every prefix of ``samples`` strings per
    length of ``sampled`` (:func:`.counters.sample`, seed = length). At each position every
    output is exactly ``1/(2n)`` where the MACHINE's guards allow the symbol and ``<= -1/(2n)``
    where not, and acceptance by the next-symbol convention equals :func:`.counters.is_member`.
    Values: ``failures`` (languages failing), ``strings``, ``outputs``, ``witness``."""
    from transformer_theory.papers.formal_languages import counters

    _x64()
    failures, strings, outputs, witness = 0, 0, 0, None
    parts = []
    for language, e in zip(languages, exhaustive):
        params = counters.build(counters.machine(language))
        drawn = []
        for length in sampled:
            drawn.extend(counters.sample(language, length, samples, seed=length)[0])
        for res in (
            counters.exact_check(params, language, e),
            counters.exact_check(params, language, 0, samples=drawn),
        ):
            strings += res["strings"]
            outputs += res["outputs"]
            if not res["ok"]:
                failures += 1
                witness = witness or {"language": language, **res["witness"]}
                break
        parts.append(f"{language}: lengths 0-{e}")
    return Checked(
        "exact",
        "upto",
        f"every string of {'; '.join(parts)}; every prefix of {samples} drawn strings per length "
        f"{', '.join(map(str, sampled))} ({strings:,} strings, {outputs:,} outputs)",
        {"failures": failures, "strings": strings, "outputs": outputs, "witness": witness},
    )


def predicted_sign_safe_n(guards: int, dtype: str) -> int:
    """The largest ``n`` with ``counter_tolerance(n) < 1/(2n)``: where the hand-derived rounding
    model of :func:`counter_tolerance` PREDICTS every output's sign right (a prediction of that
    model, not a checked bound)."""
    c = 4 * (4 * guards + 1) * _UNIT_ROUNDOFF[dtype]
    n = int((-5 + math.sqrt(25 + 4 / c)) / 2)
    while c * n * (n + 5) >= 1:
        n -= 1
    while c * (n + 1) * (n + 6) < 1:
        n += 1
    return n


def counter_float(dtype: str, lengths: Sequence[int] = (64,), samples: int = 6) -> Checked:
    """SHUFFLE-DYCK-2's recognizer in ``dtype`` (``core.forward_all``) on ``samples`` strings per
    length: each output against the exact one (:class:`.counters.ExactCounterModel`, rationals)
    over :func:`counter_tolerance` and over the smallest margin ``1/(2n)``, and the misclassified
    strings. Only the lengths run are checked; ``predicted_sign_safe_n`` is the rounding model's
    extrapolation, reported, not checked."""
    import jax.numpy as jnp

    from transformer_theory.papers.formal_languages import counters

    _x64()
    language = "shuffle_dyck_2"
    m = counters.machine(language)
    G = max(len(g) for g in (*m.guards, m.end_guards))
    exact_model = counters.ExactCounterModel(counters.build(m))
    params = counters.build(m, dtype=getattr(jnp, dtype))
    wrong, over_tol, over_margin = 0, 0.0, 0.0
    for length in lengths:
        strings, labels, _ = counters.sample(language, length, samples, seed=length)
        floats = np.concatenate(
            [
                counters.next_symbol_margins(params, strings[i : i + 2])
                for i in range(0, len(strings), 2)
            ]
        )
        wrong += int(np.sum(counters.accepts(floats, strings) != labels))
        for s, f in zip(strings, floats):
            for i, row_q in enumerate(exact_model.margins([m.bos, *s])):
                err = max(abs(float(q) - float(x)) for q, x in zip(row_q, f[i]))
                over_margin = max(over_margin, err * 2 * (i + 1))
                over_tol = max(over_tol, err / counter_tolerance(i + 1, G, dtype))
    return Checked(
        "float",
        "samples",
        f"{language}, {samples} strings per n = {', '.join(str(x + 1) for x in lengths)}, "
        "every output at every position",
        {
            "misclassified": wrong,
            "error_over_tolerance": over_tol,
            "error_over_smallest_margin": over_margin,
            "n_checked_max": max(lengths) + 1,
            "predicted_sign_safe_n": predicted_sign_safe_n(G, dtype),
        },
        tolerance=f"2 (4G + 1)(n + 5) u, G = {G}, u = {_UNIT_ROUNDOFF[dtype]:.3g} (hand-derived)",
    )


# ------------------------------------------------------------------------ continuation sets

END = "end"


def _completions(language: str, prefix: list[int]) -> list[list[int]]:
    """Candidate completions ``u`` of ``prefix``: if ``prefix`` is a prefix of ANY member, one
    of these completes it (the argument per language below), so ``prefix`` is a prefix of a
    member iff ``is_member(prefix + u)`` for one of them. Only :func:`.counters.is_member` (the
    languages' definitions: per-type depths, a recursive-descent parse, the block pattern)
    decides; the machines' guards are not used.

    - SHUFFLE-DYCK-k: the closes of each type's open depth. If ``prefix + v`` is a member, no
      type's depth is negative in a prefix of ``prefix``, so closing each open type is one.
    - ``boolexp_n``: ``0^K``, ``K <= (n - 1) |prefix| + 1``. A prefix of an expression leaves
      ``K`` sub-expressions open (each symbol opens at most ``n - 1`` more); ``K`` operands
      close them.
    - ``a^m b^m (c^m)``: the member with ``m <= |prefix| + 1`` having ``prefix`` as its prefix
      (a prefix with a ``b`` or ``c`` fixes ``m = #a <= |prefix|``; ``a^i`` is a prefix of the
      member with ``m = i``).
    """
    from transformer_theory.papers.formal_languages import counters

    m = counters.machine(language)
    if language.startswith("shuffle_dyck"):
        k = m.num_symbols // 2
        depth = [0] * k
        for x in prefix:
            depth[x // 2] += -1 if x % 2 else 1
        if min(depth) < 0:
            return []
        return [[2 * t + 1 for t in range(k) for _ in range(depth[t])]]
    if language.startswith("boolexp"):
        n = m.num_symbols - 2
        return [[0] * K for K in range((n - 1) * len(prefix) + 2)]
    blocks = m.num_symbols
    out = []
    for size in range(len(prefix) + 2):
        member = [x for x in range(blocks) for _ in range(size)]
        if len(member) >= len(prefix) and member[: len(prefix)] == prefix:
            out.append(member[len(prefix) :])
    return out


def viable(language: str, prefix: Sequence[int]) -> bool:
    """``prefix`` is a prefix of some member of ``language`` (:func:`_completions`)."""
    from transformer_theory.papers.formal_languages import counters

    p = [int(x) for x in prefix]
    return any(counters.is_member(language, p + u) for u in _completions(language, p))


def continuation_set(language: str, prefix: Sequence[int]) -> frozenset:
    """The TRUE continuation set of ``prefix``: the symbols ``a`` with ``prefix + a`` a prefix
    of a member, and :data:`END` if ``prefix`` is itself a member."""
    from transformer_theory.papers.formal_languages import counters

    p = [int(x) for x in prefix]
    S = counters.machine(language).num_symbols
    out = {a for a in range(S) if viable(language, p + [a])}
    if counters.is_member(language, p):
        out.add(END)
    return frozenset(out)


def _viable_leaves(language: str, max_length: int) -> tuple[list[list[int]], int]:
    """The maximal strings of the tree of viable prefixes of length ``<= max_length`` (each
    viable prefix is a prefix of one of them) and the number of viable prefixes."""
    from transformer_theory.papers.formal_languages import counters

    S = counters.machine(language).num_symbols
    leaves, count = [], 0
    stack = [[]]
    while stack:
        p = stack.pop()
        count += 1
        children = [p + [a] for a in range(S) if len(p) < max_length and viable(language, p + [a])]
        if children:
            stack.extend(reversed(children))
        else:
            leaves.append(p)
    return leaves, count


def continuations(languages: Sequence[str], max_lengths: Sequence[int]) -> Checked:
    """The counter recognizer's per-position next-symbol sets against the TRUE continuation
    sets (:func:`continuation_set`) at every viable prefix (a prefix of some member) of length
    ``<= max_lengths[i]``: the model's set at a prefix is ``{s : o_s > 0}`` of
    :func:`transformer_theory.exact.evaluate` in arb balls (softmax) at that position, each
    sign decided by its ball (an undecided sign counts as a disagreement). Prefixes outside the
    language's prefixes (continuation set empty) are not compared: the convention of
    :func:`.counters.accepts` never reads the outputs after the first symbol that left it.

    Values: ``prefixes``, ``disagreements`` (in all), ``by_language`` (disagreements per
    language), ``witness`` (the first: language, prefix, model's set, true set)."""
    from transformer_theory import exact
    from transformer_theory.papers.formal_languages import counters

    _x64()
    total, bad, by_language, witness = 0, 0, {}, None
    for language, L in zip(languages, max_lengths):
        m = counters.machine(language)
        params = counters.build(m)
        names = [*range(m.num_symbols), END]
        leaves, _ = _viable_leaves(language, L)
        seen, wrong = set(), 0
        for leaf in leaves:
            logits = exact.evaluate(params, np.array([m.bos, *leaf]), arithmetic="enclosed").logits
            for i in range(len(leaf) + 1):
                p = tuple(leaf[:i])
                if p in seen:
                    continue
                seen.add(p)
                row = logits[i]
                decided = all(bool(x > 0) or bool(x < 0) for x in row)
                model = frozenset(s for s, x in zip(names, row) if bool(x > 0))
                true = continuation_set(language, p)
                if not decided or model != true:
                    wrong += 1
                    if witness is None or len(p) < len(witness["prefix"]):
                        witness = {
                            "language": language,
                            "prefix": [m.symbols[x] for x in p],
                            "model": sorted(_label(m, x) for x in model),
                            "true": sorted(_label(m, x) for x in true),
                        }
        total += len(seen)
        bad += wrong
        by_language[language] = wrong
    return Checked(
        "enclosed",
        "upto",
        "every prefix of a member, of length <= "
        + ", ".join(f"{x} ({lang})" for x, lang in zip(max_lengths, languages))
        + f" ({total:,} prefixes)",
        {
            "prefixes": total,
            "disagreements": bad,
            "by_language": by_language,
            "witness": witness,
            "differs": True if bad else None,
        },
    )


def _label(m: Any, x: Any) -> str:
    return "END" if x == END else m.symbols[x]
