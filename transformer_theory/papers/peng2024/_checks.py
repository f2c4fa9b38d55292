"""The checks of Peng et al. 2024's rows (:mod:`.claims`): Theorem 1's bound evaluated in exact
rationals (its values and the cells where it is void), the library's own one-layer construction
run on every prompt at small ``n``, and the trained models measured against the bound and
Theorem 2's ``sqrt(n / (H d p))``. Each ``check(**sizes)`` returns a
:class:`~transformer_theory.ledger.Checked`; it never sees a tier.

The bound's arithmetic needs no model, so :mod:`transformer_theory.exact` is not involved: its
values are python ``Fraction``\\ s. The construction is a flax ``CompositionTransformer``, not a
:class:`~transformer_theory.params.ModelParams`, so it is run by its own float32 / fake-quantized
forward (:func:`._models.errors`), a ``float`` check.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from transformer_theory.domains import Enumerated, Family, Product, Record, Tally, Trained
from transformer_theory.ledger import REPO_ROOT, RESULTS_DIR, Checked
from transformer_theory.papers import study_of
from transformer_theory.papers.peng2024 import _theory as theory

__all__ = [
    "BOUND_CELLS",
    "BOUND_RESULTS",
    "COT_RESULTS",
    "ONE_PASS_RESULTS",
    "exact_bound",
    "theorem1_bound",
    "theorem1_construction",
    "theorem1_one_pass",
    "theorem1_trained",
    "theorem2_cot",
]

_ROOT = str(REPO_ROOT)
COT_RESULTS = os.path.join(str(RESULTS_DIR), "peng2024_composition_cot.json")
BOUND_RESULTS = os.path.join(str(RESULTS_DIR), "peng2024_composition_bound.json")
ONE_PASS_RESULTS = os.path.join(str(RESULTS_DIR), "peng2024_composition_one_pass.json")

WIDTHS = (2, 4, 8, 16)
BITS = (2, 4, 8, 32)
"""README's table: the one-layer cells ``d x p``."""


def _size(name: str, what: str, of=lambda k: k):
    return lambda k: Enumerated(f"{name} = {of(k)}", (of(k),), what=what)


#: The bound's arguments: every n = 2^k (k >= 1; log2 n an integer, so the bound is rational),
#: every H, d, p >= 1. The library's statement about the formula's values quantifies over them.
BOUND_CELLS = Product(
    Family("k", _size("n", "domain size", lambda k: 2**k), start=1, what="domain sizes n = 2^k"),
    Family("H", _size("H", "head count"), start=1, what="head counts H"),
    Family("d", _size("d", "width"), start=1, what="embedding widths d"),
    Family("p", _size("p", "precision"), start=1, what="precisions p"),
)
#: Every domain size n >= 2 of the composition task (each member: the prompts at that n).
PROMPT_SIZES = Family(
    "n",
    _size("n", "domain size (every prompt f, g, x at it)"),
    start=2,
    what="domain sizes n of the composition task, every prompt (f, g, x)",
)
#: The measurements: one-layer models trained now, or the committed records of such runs.
TRAINED_ONE_LAYER = Trained("one-layer transformers trained on function composition")
TRAINED_COT = Trained("one-layer causal transformers trained to write CoT for K compositions")


def exact_bound(n: int, heads: int, width: int, bits: int) -> Fraction | None:
    """``max(0, R) / (3 n log2 n)``, ``R = n log2 n - H (d + 1) p``, in rationals where ``n`` is
    a power of two (``log2 n`` an integer); ``None`` elsewhere."""
    if n < 2 or n & (n - 1):
        return None
    nlogn = n * (n.bit_length() - 1)
    r = nlogn - heads * (width + 1) * bits
    return Fraction(max(0, r), 3 * nlogn)


def _cells(cells: Any) -> list[tuple[int, int]]:
    """``("16x1", "64x1")`` (n x H; one may stand alone) as pairs."""
    if isinstance(cells, str):
        cells = (cells,)
    return [tuple(int(v) for v in c.split("x")) for c in cells]


def theorem1_bound(
    ns: Any = (16, 64), heads: Any = (1, 2), widths: Any = WIDTHS, bits: Any = BITS
) -> Checked:
    """At every cell ``(n, H, d, p)`` of ``ns x heads x widths x bits`` (each ``n`` a power of
    two): the bound in exact rationals, the cells where it is void (``R <= 0``, an integer
    comparison), and the library's float :func:`~.theory.peng_error_bound` against the exact
    value (the difference taken exactly: a float64 is a rational). ``holds``: the float is
    within one rounding (``2 u``) everywhere and is exactly 0 at every void cell. Each cell is
    recorded once evaluated; one with no exact value (``n`` not a power of two) is skipped and the
    check is then incomplete."""
    ks = [int(n).bit_length() - 1 for n in ns]
    k_family, h_family, d_family, p_family = BOUND_CELLS.parts
    tally = Tally(
        Product(k_family.at(ks), h_family.at(heads), d_family.at(widths), p_family.at(bits))
    )
    rows, worst, void, bad_void = [], Fraction(0), [], []
    for n in ns:
        for h in heads:
            for d in widths:
                for p in bits:
                    exact = exact_bound(n, h, d, p)
                    if exact is None:
                        continue
                    got = theory.peng_error_bound(n, h, d, p)
                    diff = abs(Fraction(got) - exact)
                    worst = max(worst, diff)
                    if h * (d + 1) * p >= n * (n.bit_length() - 1):
                        void.append([n, h, d, p])
                        if got != 0:
                            bad_void.append([n, h, d, p])
                    rows.append({"n": n, "H": h, "d": d, "p": p, "exact": str(exact)})
                    tally.record((n, h, d, p))
    tol = Fraction(2 * math.ulp(1.0))
    values = {
        "cells": len(rows),
        "max_float_error": float(worst),
        "tolerance": float(tol),
        "void_cells": void,
        "float_not_zero_at_void": bad_void,
        "holds": bool(worst <= tol and not bad_void),
        "rows": rows,
    }
    return Checked("exact", tally, values)


def _saved_or_smoke(path: str, run_smoke: Callable[[str], Any]) -> tuple[Any, list, Any]:
    """The rows of the committed results file at ``path`` when it exists (``"record"``: its
    :class:`~transformer_theory.domains.Record`), else those of the ``records.json`` that the
    smoke config, trained now in a temporary directory, writes (``"training"``: ``None``): the
    rows as a file holds them either way."""
    from transformer_theory import jsonio

    if os.path.exists(path):
        saved = jsonio.read_json(path)
        source = Record(os.path.relpath(path, _ROOT), str(saved.get("produced_by", "")))
        return saved, saved["records"], source
    with tempfile.TemporaryDirectory() as out:
        run_smoke(out)
        records = jsonio.read_json(os.path.join(out, "records.json"))
    return None, records, None


def _measured(saved: Any, source: Any, values: dict, trained: Trained) -> Checked:
    """A measurement: the committed record ``source``, or the smoke config trained now
    (``trained``, the row's domain)."""
    if saved is not None:
        return Checked("record", source, values | {"source": source.words()})
    return Checked("training", trained, values | {"source": "smoke config trained now"})


def _row_text(r: dict) -> str:
    conv = "" if r.get("converged", True) else ", not converged"
    return (
        f"n={r['n']} H={r['heads']} d={r['d']} p={r['p']}: error {r['error']:.3f} "
        f"(bound {r['bound']:.3f}{conv})"
    )


def theorem1_trained(path: str | None = None) -> Checked:
    """``experiments/composition_bound.py``'s one-layer runs (the committed record, else the smoke
    config now), each error beside the bound (recomputed, never read). ``consistent``: no model
    below the bound (``None`` otherwise: the reading of ``p`` or the bound is then in doubt)."""
    from transformer_theory.papers.peng2024.experiments import composition_bound

    saved, records, source = _saved_or_smoke(
        path or BOUND_RESULTS,
        lambda out: study_of(composition_bound).run(
            composition_bound.get_config("smoke"), out, progress=False
        ),
    )
    for r in records:
        r["bound"] = theory.peng_error_bound(r["n"], r["heads"], r["d"], r["p"])
    below = [r for r in records if r["error"] < r["bound"]]
    void = [r for r in records if r["bound"] == 0]
    learned = [r for r in void if r["error"] <= 0.1]
    positive = [r for r in records if r["bound"] > 0]
    comparable = [r for r in positive if any(v["p"] == r["p"] for v in learned)]
    summary = (
        f"the recipe learns where the bound is void ({len(learned)} of {len(void)} void cells "
        f"at error <= 0.1, p in {sorted({r['p'] for r in learned})}); {len(comparable)} of "
        f"{len(positive)} R > 0 cells have a void cell of the same p that learned"
        if learned
        else "the recipe learns nowhere, so this shows nothing about the bound"
    )
    keys = ("n", "heads", "d", "p", "steps", "error", "bound", "chance_error")
    values = {
        "consistent": None if below else True,
        "summary": summary,
        "runs": "; ".join(_row_text(r) for r in records),
        "records": [{k: r[k] for k in keys if k in r} for r in records],
    }
    return _measured(saved, source, values, TRAINED_ONE_LAYER)


def theorem1_one_pass(path: str | None = None) -> Checked:
    """``experiments/composition_one_pass.py``'s runs (the committed record, else the smoke config
    now): every error beside the bound (recomputed); ``consistent`` as in
    :func:`theorem1_trained`."""
    from transformer_theory.papers.peng2024.experiments import composition_one_pass

    saved, records, source = _saved_or_smoke(
        path or ONE_PASS_RESULTS,
        lambda out: study_of(composition_one_pass).run(
            composition_one_pass.get_config("smoke"), out, progress=False
        ),
    )
    for r in records:
        r["bound"] = theory.peng_error_bound(r["n"], r["heads"], r["d"], r["p"])
    below = [r for r in records if r["error"] < r["bound"]]
    void = [r for r in records if r["bound"] == 0]
    learned = [r for r in void if r["error"] <= 0.1 and r["converged"]]
    positive = [r for r in records if r["bound"] > 0]
    settled = [r for r in positive if r["converged"]]
    comparable = [r for r in settled if any(v["p"] == r["p"] for v in learned)]
    keys = ("n", "heads", "d", "p", "steps", "converged", "error", "bound", "mode_error")
    values = {
        "consistent": None if below else True,
        "summary": (
            f"learned and converged at {len(learned)} of {len(void)} void cells "
            f"(p in {sorted({r['p'] for r in learned})}); {len(settled)} of {len(positive)} "
            f"R > 0 cells converged, {len(comparable)} of them beside a void cell of the same p "
            "that learned"
        ),
        "runs": "; ".join(_row_text(r) for r in records),
        "records": [{k: r[k] for k in keys} for r in records],
    }
    return _measured(saved, source, values, TRAINED_ONE_LAYER)


def theorem2_cot(path: str | None = None) -> Checked:
    """The CoT runs (the committed record, else the smoke config now): the fewest CoT steps
    reaching the target per cell, recomputed from the records (``_theory.steps_needed``), beside
    ``sqrt(n / (H d p))`` (recomputed). ``consistent``: the committed summary and every
    record's ``sqrt`` agree with the recomputation (``None`` otherwise)."""
    from transformer_theory.papers.peng2024 import _models_cot as cot
    from transformer_theory.papers.peng2024 import _theory as cot_theory
    from transformer_theory.papers.peng2024.experiments import composition_cot

    config = composition_cot.get_config("smoke")
    saved, records, source = _saved_or_smoke(
        path or COT_RESULTS, lambda out: study_of(composition_cot).run(config, out, progress=False)
    )
    target = config.target if saved is None else saved["target"]
    summary = cot_theory.steps_needed(records, target)
    bad_scale = [
        r
        for r in records
        if not math.isclose(
            r["cot_bound"], cot.cot_bound(r["n"], r["heads"], r["d"], r["p"]), rel_tol=1e-12
        )
    ]
    agrees = saved is None or saved.get("summary") == summary
    txt = "; ".join(
        f"n={r['n']} H={r['heads']} d={r['d']} p={r['p']} (sqrt {r['cot_bound']:.2f}): "
        + (f"{r['steps_needed']} steps" if r["steps_needed"] else f"none of {r['steps_tried']}")
        for r in summary
    )
    values = {
        "consistent": True if agrees and not bad_scale else None,
        "summary_agrees": agrees,
        "bad_scale": len(bad_scale),
        "target": target,
        "functions": records[0]["functions"] if records else None,
        "steps": txt,
        "summary": summary,
    }
    return _measured(saved, source, values, TRAINED_COT)


def theorem1_construction(ns: Any, samples: int, max_bits: int = 24) -> Checked:
    """The library's hand-built one-layer model (:func:`._constructions.build`) per ``n`` in
    ``ns``: every prompt for ``n <= 3`` (:func:`._tasks.checking_prompts`), ``samples``
    sampled ones beyond, in float32 and at its fewest exact bits ``p <= max_bits``
    (:func:`._constructions.smallest_exact_bits`), with the errors at ``p - 1``; its message
    bits ``H (d + 1) p`` beside ``n log2 n``. ``holds``: right on every prompt in float32 and at
    some ``p``, and wrong somewhere at ``p - 1`` (when ``p > 2``)."""
    from transformer_theory.papers.peng2024 import _constructions as construction
    from transformer_theory.papers.peng2024 import _tasks as tasks

    ns = [int(v) for v in ((ns,) if isinstance(ns, (int, str)) else ns)]
    # every prompt at n <= 3 (recorded once each has run); larger n sampled, outside the tally
    tally = Tally(PROMPT_SIZES.at([n for n in ns if n <= 3] or [2]))
    rows = []
    for n in ns:
        tokens, answers, exhaustive = tasks.checking_prompts(n, int(samples))
        found = construction.smallest_exact_bits(
            n, tokens, answers, exhaustive, max_bits=int(max_bits)
        )
        if n <= 3 and found["exhaustive"]:
            tally.record(n)
        d = construction.construction_width(n)
        budget = None if found["bits"] is None else construction.HEADS * (d + 1) * found["bits"]
        rows.append(found | {"d": d, "threshold_bits": n * math.log2(n), "budget": budget})
    exact = all(r["bits"] is not None and r["float32_errors"] == 0 for r in rows)
    witnessed = all(r["errors_below"] for r in rows if r["bits"] and r["bits"] > 2)
    values = {
        "holds": bool(exact and witnessed),
        "rows": rows,
        "table": "; ".join(
            f"n={r['n']}: exact at p={r['bits']} on {r['prompts']} "
            f"{'(every prompt)' if r['exhaustive'] else 'sampled prompts'}, H(d+1)p = "
            f"{r['budget']} bits vs n log2 n = {r['threshold_bits']:.1f}, "
            f"{r['errors_below']} errors at p={r['bits'] - 1}"
            if r["bits"]
            else f"n={r['n']}: no p <= {max_bits} exact"
            for r in rows
        ),
    }
    sampled = [n for n in ns if n > 3]
    values["sampled"] = f"{samples} sampled prompts at n in {sampled}" if sampled else None
    return Checked(
        "float",
        tally,
        values,
        tolerance=(
            "none needed for the decision at the fake-quantized p (each value rounded to p bits "
            "by the model itself); float32's argmax is not bounded by a derived rounding error"
        ),
    )
