"""Peng, Narayanan & Papadimitriou 2024's claims, as the library checks them: Theorem 1's bound
computed exactly where README quotes it (and where it is void), the trained composition models
measured against it (a measurement, never the theorem), and Theorem 2 (chain of thought) as the
measured CoT steps of one-layer models against ``sqrt(n / (H d p))``.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from fractions import Fraction

from transformer_theory.ledger import REPO_ROOT, RESULTS_DIR, Claim, Evidence

__all__ = ["CLAIMS"]

PAPER = "Peng et al. 2024"
_ROOT = str(REPO_ROOT)
_RESULTS = str(RESULTS_DIR)
_COT_RESULTS = os.path.join(_RESULTS, "peng2024_composition_cot.json")
_BOUND_RESULTS = os.path.join(_RESULTS, "peng2024_composition_bound.json")
_ONE_PASS_RESULTS = os.path.join(_RESULTS, "peng2024_composition_one_pass.json")

_THEOREM1_BOUND = (
    "If R = n log n - H (d + 1) p > 0, the probability that an H-headed layer with embedding d "
    "and precision p answers a composition query incorrectly is at least R / (3 n log n)."
)
_THEOREM1 = (
    "A single transformer attention layer cannot compute the answer to a function composition "
    "query correctly with significant probability of success, as long as the size of the domain "
    "of the function is large."
)

# README's table (n = 16, H = 1): the one-layer cells d x p
_WIDTHS = (2, 4, 8, 16)
_BITS = (2, 4, 8, 32)


def _exact_bound(n: int, heads: int, width: int, bits: int) -> Fraction | None:
    """``max(0, R) / (3 n log2 n)`` in rationals where ``n`` is a power of two (``log2 n`` is an
    integer), ``None`` elsewhere."""
    if n < 2 or n & (n - 1):
        return None
    nlogn = n * (n.bit_length() - 1)
    r = nlogn - heads * (width + 1) * bits
    return Fraction(max(0, r), 3 * nlogn)


def _saved_or_smoke(
    path: str, run_smoke: Callable[[str], list[dict]]
) -> tuple[dict | None, list[dict], str]:
    """The committed results file at ``path`` when one exists (either tier): ``(saved, records,
    source)``; else the records of ``run_smoke(out_dir)`` in a temporary directory and
    ``saved = None``."""
    from transformer_theory import jsonio

    if os.path.exists(path):
        saved = jsonio.read_json(path)
        source = os.path.relpath(path, _ROOT) + f" ({saved.get('produced_by', '')})"
        return saved, saved["records"], source
    with tempfile.TemporaryDirectory() as out:
        records = run_smoke(out)
    return None, records, "smoke config run now (no committed results file)"


def _theorem1_bound(tier: str) -> Evidence:
    """The library's :func:`~.tasks.peng_error_bound` against the bound in exact rationals at
    every cell of README's table (n = 16: n log2 n = 64), and the cells where it is void."""
    from transformer_theory.papers.peng2024 import tasks

    sizes = [(16, 1)] if tier == "quick" else [(16, 1), (16, 2), (64, 1), (256, 4)]
    rows, worst, void = [], 0.0, []
    for n, h in sizes:
        for d in _WIDTHS:
            for p in _BITS:
                exact = _exact_bound(n, h, d, p)
                got = tasks.peng_error_bound(n, h, d, p)
                diff = abs(Fraction(got) - exact)
                worst = max(worst, float(diff))
                if exact == 0:
                    void.append((n, h, d, p))
                rows.append({"n": n, "H": h, "d": d, "p": p, "exact": str(exact), "float": got})
    # a float64 quotient of integers is within one rounding of the exact value
    tol = 2 * math.ulp(1.0)
    readme_void = [(16, 1, d, p) for d in _WIDTHS for p in _BITS if (d + 1) * p >= 64]
    ok = worst <= tol and all(c in void for c in readme_void)
    details = {
        "cells": len(rows),
        "max_float_error": worst,
        "tolerance": tol,
        "void_cells_n16_H1": [list(c[2:]) for c in void if c[:2] == (16, 1)],
        "rows": rows,
    }
    if ok:
        return Evidence(
            "proved",
            f"bound exact in rationals on {len(rows)} cells (n = {sorted({s[0] for s in sizes})}); "
            f"void (R <= 0) at n = 16, H = 1 for (d, p) in "
            f"{details['void_cells_n16_H1']}",
            details,
        )
    return Evidence(
        "refuted", f"peng_error_bound off by {worst:.2e} or a void cell missed", details
    )


def _theorem1_trained(tier: str) -> Evidence:
    """The one-pass run of ``configs/composition_bound.py``: the committed results file when one
    exists (either tier), else the smoke config run now. Every one-layer error is compared with
    the bound; the void cells (``R <= 0``) say whether the recipe learns at all."""
    from transformer_theory.papers.peng2024 import cot, tasks
    from transformer_theory.papers.peng2024.configs import composition_bound

    _, records, source = _saved_or_smoke(
        _BOUND_RESULTS,
        lambda out: cot.run_composition_bound(
            composition_bound.get_config("smoke"), out, progress=False
        ),
    )
    for r in records:  # the bound is recomputed, never read from the file
        r["bound"] = tasks.peng_error_bound(r["n"], r["heads"], r["d"], r["p"])
    below = [r for r in records if r["error"] < r["bound"]]
    void = [r for r in records if r["bound"] == 0]
    learned = [r for r in void if r["error"] <= 0.1]
    details = {
        "paper": "a one-layer transformer (H heads, embedding d, p-bit precision) answers "
        "composition wrongly with probability >= R / (3 n log n), R = n log n - H (d + 1) p",
        "source": source,
        "records": [
            {k: r[k] for k in ("n", "heads", "d", "p", "steps", "error", "bound", "chance_error")}
            for r in records
        ],
    }
    txt = "; ".join(
        f"n={r['n']} H={r['heads']} d={r['d']} p={r['p']}: error {r['error']:.3f} "
        f"(bound {r['bound']:.3f})"
        for r in records
    )
    if below:
        # a trained model below the bound: the reading of p (fake quantization) or the bound is
        # off; a training run decides nothing about the theorem, so it is flagged, not refuted
        return Evidence("open", f"a one-layer model lies below the bound: {txt}", details)
    positive = [r for r in records if r["bound"] > 0]
    # a failure where R > 0 speaks to the bound only if the recipe learns at that precision
    # where the bound is void
    comparable = [r for r in positive if any(v["p"] == r["p"] for v in learned)]
    verdict = (
        f"the recipe learns where the bound is void ({len(learned)} of {len(void)} void cells "
        f"at error <= 0.1, p in {sorted({r['p'] for r in learned})}); {len(comparable)} of "
        f"{len(positive)} R > 0 cells have a void cell of the same p that learned"
        if learned
        else "the recipe learns nowhere, so this shows nothing about the bound"
    )
    return Evidence("measured", f"{verdict}: {txt}", details)


def _theorem2_cot(tier: str) -> Evidence:
    """The CoT experiment: the committed results file when one exists (either tier), else the
    smoke config run now; the steps needed are recomputed from the records."""
    from transformer_theory.papers.peng2024 import cot
    from transformer_theory.papers.peng2024.configs import composition_cot

    config = composition_cot.get_config("smoke")
    saved, records, source = _saved_or_smoke(
        _COT_RESULTS, lambda out: cot.run_composition_cot(config, out, progress=False)
    )
    target = config.target if saved is None else saved["target"]
    summary = cot.steps_needed(records, target)
    bad_scale = [
        r
        for r in records
        if not math.isclose(
            r["cot_bound"], cot.cot_bound(r["n"], r["heads"], r["d"], r["p"]), rel_tol=1e-12
        )
    ]
    details = {
        "source": source,
        "paper": "a transformer layer needs Omega(sqrt(n / (H d p))) CoT steps for iterated "
        "function composition",
        "target": target,
        "summary": summary,
        "records": [
            {
                k: r[k]
                for k in (
                    "n",
                    "functions",
                    "stride",
                    "cot_steps",
                    "heads",
                    "d",
                    "p",
                    "steps",
                    "accuracy",
                    "token_accuracy",
                )
            }
            for r in records
        ],
    }
    if saved is not None and saved.get("summary") != summary:
        return Evidence("open", "the committed summary disagrees with its own records", details)
    if bad_scale:
        return Evidence("open", f"a record's sqrt(n / (H d p)) is wrong: {bad_scale[0]}", details)
    txt = "; ".join(
        f"n={r['n']} H={r['heads']} d={r['d']} p={r['p']} (sqrt {r['cot_bound']:.2f}): "
        + (f"{r['steps_needed']} steps" if r["steps_needed"] else f"none of {r['steps_tried']}")
        for r in summary
    )
    return Evidence(
        "measured", f"steps for accuracy >= {target}, K = {records[0]['functions']}: {txt}", details
    )


def _theorem1_construction(tier: str) -> Evidence:
    """The hand-built one-layer model (:mod:`.construction`, ours) run on every prompt of n = 2, 3
    (float32 and at its fewest exact bits, with the witness that one bit fewer errs) and on
    sampled prompts beyond (full tier); its message bits ``H (d + 1) p`` beside ``n log2 n``."""
    from transformer_theory.papers.peng2024 import construction

    ns = (2, 3) if tier == "quick" else (2, 3, 4, 8)
    rows = construction.budget_table(ns, samples=4096)
    exact = all(r["bits"] is not None and r["float32_errors"] == 0 for r in rows)
    witnessed = all(r["errors_below"] for r in rows if r["bits"] and r["bits"] > 2)
    details = {"rows": rows}
    txt = "; ".join(
        f"n={r['n']}: exact at p={r['bits']} on {r['prompts']} "
        f"{'(every prompt)' if r['exhaustive'] else 'sampled prompts'}, "
        f"H(d+1)p = {r['construction_bits']} bits vs n log2 n = {r['threshold_bits']:.1f} "
        f"(x{r['ratio']:.0f}), {r['errors_below']} errors at p={r['bits'] - 1}"
        for r in rows
        if r["bits"]
    )
    if exact and witnessed:
        return Evidence("verified", txt, details)
    return Evidence("refuted", f"the construction errs: {rows}", details)


def _theorem1_one_pass(tier: str) -> Evidence:
    """The run of ``configs/composition_one_pass.py``: the committed record when one exists,
    else the smoke config run now; every error against the bound (recomputed), the void cells
    that learned and converged, and the ``R > 0`` cells that converged with a void cell of the
    same ``p`` that learned."""
    from transformer_theory.papers.peng2024 import one_pass, tasks
    from transformer_theory.papers.peng2024.configs import composition_one_pass

    _, records, source = _saved_or_smoke(
        _ONE_PASS_RESULTS,
        lambda out: one_pass.run(composition_one_pass.get_config("smoke"), out, progress=False),
    )
    for r in records:
        r["bound"] = tasks.peng_error_bound(r["n"], r["heads"], r["d"], r["p"])
    below = [r for r in records if r["error"] < r["bound"]]
    void = [r for r in records if r["bound"] == 0]
    learned = [r for r in void if r["error"] <= 0.1 and r["converged"]]
    positive = [r for r in records if r["bound"] > 0]
    settled = [r for r in positive if r["converged"]]
    comparable = [r for r in settled if any(v["p"] == r["p"] for v in learned)]
    keys = ("n", "heads", "d", "p", "steps", "converged", "error", "bound", "mode_error")
    details = {"source": source, "records": [{k: r[k] for k in keys} for r in records]}
    txt = "; ".join(
        f"n={r['n']} H={r['heads']} d={r['d']} p={r['p']}: error {r['error']:.3f} "
        f"(bound {r['bound']:.3f}{'' if r['converged'] else ', not converged'})"
        for r in records
    )
    if below:
        return Evidence("open", f"a one-layer model lies below the bound: {txt}", details)
    verdict = (
        f"learned and converged at {len(learned)} of {len(void)} void cells "
        f"(p in {sorted({r['p'] for r in learned})}); {len(settled)} of {len(positive)} R > 0 "
        f"cells converged, {len(comparable)} of them beside a void cell of the same p that learned"
    )
    return Evidence("measured", f"{verdict}: {txt}", details)


CLAIMS: list[Claim] = [
    Claim(
        id="peng2024.theorem1_bound",
        paper=PAPER,
        place="Theorem 1 (the bound's value)",
        printed=_THEOREM1_BOUND,
        checked=(
            "tasks.peng_error_bound (log in bits) against R / (3 n log2 n) in exact rationals "
            "at every cell d in {2, 4, 8, 16} x p in {2, 4, 8, 32} (quick: n = 16, H = 1, "
            "README's table; full: also H = 2, n = 64, 256 with H = 4), within one float64 "
            "rounding; and the bound is exactly 0 (void) wherever H (d + 1) p >= n log n, "
            "e.g. every p = 32 cell at n = 16."
        ),
        expected="proved",
        check=_theorem1_bound,
        command="python -c 'from transformer_theory.papers.peng2024 import tasks; "
        "print(tasks.peng_error_bound(16, 1, 4, 8))'",
    ),
    Claim(
        id="peng2024.theorem1_trained",
        paper=PAPER,
        place="Theorem 1 (one layer cannot compose functions over a large domain)",
        printed=_THEOREM1,
        checked=(
            "Measured, not the theorem: one-layer transformers with a true embedding of width d, "
            "weights and activations fake-quantized to p bits, answering g(f(x)) in one pass "
            "(table-form prompts, cot.run_composition_bound), held-out error beside the bound "
            "(recomputed), with ONE recipe at cells where the bound is void and where R > 0, so "
            "that the recipe's success where the bound is void makes its failure where R > 0 "
            "mean something. Reads the committed experiments/results/peng2024_composition_bound"
            ".json when present, else runs the smoke config; a model below the bound is flagged "
            "open. README's earlier run (experiments/composition_depth.py, 2,000 steps, random-"
            "order pairs) learned nowhere."
        ),
        expected="measured",
        check=_theorem1_trained,
        command="python experiments/composition_bound.py --out DIR",
    ),
    Claim(
        id="peng2024.theorem2",
        paper=PAPER,
        place="Theorem 2 (chain of thought)",
        printed=(
            "A transformer layer requires Omega(sqrt(n / (H d p))) CoT steps for correctly "
            "answering iterated function composition prompts."
        ),
        checked=(
            "Measured, not the theorem (the Omega hides an unspecified constant): one-layer causal "
            "transformers (H heads, embedding d, weights and activations fake-quantized to p bits) "
            "trained with teacher forcing to write S = K / s CoT tokens for K composed functions "
            "and evaluated autoregressively (cot.cot_record); per (n, H, d, p) the fewest S "
            "reaching the target accuracy (cot.steps_needed, recomputed from the records) beside "
            "sqrt(n / (H d p)). Reads the committed experiments/results/peng2024_composition_cot"
            ".json when present, else runs the smoke config. A measured S is an upper bound on "
            "what this recipe needs, not on what any one-layer model needs."
        ),
        expected="measured",
        check=_theorem2_cot,
        command="python experiments/composition_cot.py --out DIR",
    ),
    Claim(
        id="peng2024.theorem1_construction",
        paper=PAPER,
        place="Theorem 1 (how many bits one layer needs: the other side, our construction)",
        printed=_THEOREM1_BOUND,
        checked=(
            "Ours, not the paper's: a hand-built one-layer CompositionTransformer (two heads, "
            "d = n ceil(log2 n) + 5 n + 1, a ReLU MLP; construction.build) on pair-token prompts "
            "answers g(f(x)) right on every prompt of n = 2, 3 (every f, g, x, blocks shuffled) "
            "and on 4,096 sampled prompts at n = 4, 8 (full tier), in float32 and at its fewest "
            "exact bits p (weights and activations fake-quantized), with the errors at p - 1 as "
            "the witness that fewer fail; its message bits H (d + 1) p beside the threshold "
            "n log2 n below which the bound is positive. Verified (a float32 forward), not "
            "proved."
        ),
        expected="verified",
        check=_theorem1_construction,
        command="python -c 'from transformer_theory.papers.peng2024 import construction; "
        "print(construction.budget_table((2, 3, 4, 8, 16)))'",
    ),
    Claim(
        id="peng2024.theorem1_one_pass",
        paper=PAPER,
        place="Theorem 1 (one layer cannot compose functions over a large domain)",
        printed=_THEOREM1,
        checked=(
            "Measured, not the theorem: one-layer transformers on pair-token prompts, head "
            "outputs (the messages the theorem counts) rounded to p bits, trained with an "
            "auxiliary f(x) curriculum (one_pass.run) to convergence (loss over the last tenth "
            "of steps within 5% of the tenth before); held-out error beside the bound "
            "(recomputed) where it is void and where R > 0. Reads the committed experiments/"
            "results/peng2024_composition_one_pass.json when present, else runs the smoke "
            "config; a model below the bound is flagged open."
        ),
        expected="measured",
        check=_theorem1_one_pass,
        command="python experiments/composition_one_pass.py --out DIR",
    ),
]
