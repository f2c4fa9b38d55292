"""The checks of the claims ledger's rows (:mod:`.claims`) on MAJORITY, PARITY and Dyck-1 and
Hahn 2020's trained rows: each ``check(**sizes) -> Checked`` states its arithmetic (rationals or
arb balls through :func:`transformer_theory.exact.evaluate`; floats with a derived tolerance; a
record read) and records every element it evaluated in a :class:`~transformer_theory.ledger.Tally`
of a sub-domain of the row's domain (:mod:`._domains`), and :mod:`transformer_theory.ledger`
derives the status. The Dyck-(k, D) rows' checks are :mod:`._checks_dyck_k`, the counter
languages' :mod:`._checks_counters`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from transformer_theory import precision
from transformer_theory.ledger import (
    Checked,
    Domain,
    Enumerated,
    Product,
    Record,
    Tally,
    Trained,
    Witness,
)
from transformer_theory.papers.formal_languages import _constructions as recognizers
from transformer_theory.papers.formal_languages import _tasks as tasks
from transformer_theory.papers.formal_languages._domains import BINARY_STRINGS, ONES_STRINGS
from transformer_theory.papers.formal_languages._theory import (
    _MAX_MARGIN,
    derived_margin,
    float_tolerance,
    parity_precision_records,
    smallest_margin,
)
from transformer_theory.papers.formal_languages._theory_table import row_record, sampled_lengths

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

#: The four recognizers ``transformer-theory languages`` builds (the float64 table's rows).
TABLE_ROWS = Enumerated("the four recognizers built", recognizers.RECOGNIZERS, what="recognizer")
#: Every (recognizer, binary string) pair: the float64 table's statement.
TABLE_INPUTS = Product(TABLE_ROWS, BINARY_STRINGS)
#: PARITY's two variants: with Chiang & Cholak's final LayerNorm (eps = 0) and without it.
PARITY_VARIANTS = Enumerated(
    "PARITY's recognizer with and without the final LayerNorm", ("layernorm", "none"), "variant"
)
#: Every (PARITY variant, binary string) pair.
PARITY_INPUTS = Product(PARITY_VARIANTS, BINARY_STRINGS)
#: The domain of the training experiment (Hahn 2020's row as an experiment).
HAHN_TRAINED = Trained(
    "PARITY, Dyck-1 and Dyck-(2, 3) models trained on lengths 4-16 with softmax and leftmost-hard "
    "attention (languages_generalization)"
)


def balanced_samples(
    language: str, lengths: Sequence[int], samples: int
) -> tuple[list[tuple[int, ...]], list[bool], Domain]:
    """The strings :func:`.tasks.sample` draws (``samples`` balanced strings per length, seed =
    length) and their labels, and the sub-domain of :data:`BINARY_STRINGS` they are: seeded
    draws (``draw(seed, i)`` gives the i-th)."""
    drawn, labels = [], []
    for length in lengths:
        s, t = tasks.sample(language, length, samples, seed=length)
        drawn += [tuple(int(x) for x in row) for row in s]
        labels += [bool(x) for x in t]
    where = ", ".join(map(str, lengths))
    domain = BINARY_STRINGS.sample(
        len(drawn),
        0,
        lambda seed, i: drawn[i],
        what=f"of balanced {language} strings, {samples} per length L = {where} (seed = L)",
    )
    return drawn, labels, domain


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

    precision.require_x64("row_margins")
    language, arithmetic = _LANGUAGE[name], _ARITHMETIC[name]
    params = recognizers.build(name)
    strings = _strings_of(language, exhaustive, sampled, samples)
    tally = Tally(BINARY_STRINGS.upto(exhaustive))
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
            tol = 16 * n * precision.unit_roundoff("float64") * abs(want)
            on = bool(abs(m - want) < tol)
        smallest = signed if smallest is None else min(smallest, signed)
        if len(s) <= exhaustive:
            tally.record(tuple(int(x) for x in s))
        if not right or not on:
            wrong += not right
            off += not on
            if witness is None:
                witness = {"string": "".join(map(str, s)), "member": member, "margin": str(m)}
    values = {
        "strings": len(strings),
        "sampled_longer": sum(len(s) > exhaustive for s in strings),
        "wrong": wrong,
        "off_derived": off,
        "smallest_signed_margin": smallest,
        "witness": witness,
    }
    witnesses = ()
    if arithmetic == "enclosed":
        # the float64 forward pass of the same model on the first string lies in its enclosure
        witnesses = (_float_inside_enclosure(params, strings[0]),)
    return Checked(arithmetic, tally, values, witnesses=witnesses)


def _float_inside_enclosure(params, s) -> Witness:
    """The float64 margin of ``s`` (the library's float forward pass) inside the arb enclosure of
    the same margin, widened by ``64 n u`` of its size (the float pass's rounding)."""
    from transformer_theory import exact
    from transformer_theory.core.forward import forward

    x = np.array([tasks.BOS, *s])
    ball = exact.evaluate(params, x, arithmetic="enclosed").logits[-1]
    m_ball = ball[1] - ball[0]
    o = np.asarray(forward(params, x), dtype=np.float64)
    m_float = float(o[1] - o[0])
    slack = 64 * len(x) * precision.unit_roundoff("float64") * (abs(m_float) + 1)
    return Witness("float64 margin of the first string", m_float, m_ball, "inside", slack)


def table_float64(
    max_len: int = 1,
    exhaustive_up_to: int = 1,
    samples: int = 64,
    rows: Sequence[str] = recognizers.RECOGNIZERS,
) -> Checked:
    """What ``transformer-theory languages`` runs for its MAJORITY, PARITY and Dyck-1 rows
    (:func:`._theory_table.row_record`) in float64 for ``rows``: every row's accuracy, and each
    length's smallest margin against :func:`smallest_margin` less ``16 n u * 4 sqrt 5``.

    Covered: every (row, string) of lengths ``1..exhaustive_up_to``, counted from each length's
    record (the sampled longer lengths are beyond it); ``rows`` other than the four is not the
    row's statement (:data:`TABLE_INPUTS`) and reads as such."""
    precision.require_x64("table_float64")
    extra = sampled_lengths(max_len, exhaustive_up_to)
    rows = tuple(rows)
    which = (
        TABLE_ROWS
        if rows == tuple(TABLE_ROWS.items)
        else Enumerated("the recognizers " + ", ".join(rows), rows, what="recognizer")
    )
    tally = Tally(Product(which, BINARY_STRINGS.upto(exhaustive_up_to)))
    records = [
        row_record(name, exhaustive_up_to=exhaustive_up_to, sampled_lengths=extra, samples=samples)
        for name in rows
    ]
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
            if e["exhaustive"]:
                tally.record_count(e["strings"])
        smallest[name] = rec["min_margin"]
    return Checked(
        "float",
        tally,
        {
            "cases": cases,
            "sampled_longer": sampled_lengths(max_len, exhaustive_up_to),
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
    ``(0, 2e-4)`` bits. Covered: every (variant, drawn string) pair. Witnesses: each variant's
    float64 margin on the first string inside its enclosure, and the float64 cross-entropy of the
    model without the LayerNorm inside the certified interval. Values: ``failures`` (``n`` with
    an enclosure outside its bound)."""
    import flint

    from transformer_theory import exact
    from transformer_theory.core.forward import forward
    from transformer_theory.papers.formal_languages._theory import cross_entropy_bits

    precision.require_x64("parity_confidence")
    with_ln, without = recognizers.build("parity"), recognizers.build("parity_no_layernorm")
    drawn, labels, where = balanced_samples("parity", lengths, samples)
    tally = Tally(Product(PARITY_VARIANTS, where))
    be = exact.balls()  # the engine's log, exp and division (checked by its own rows)
    ln2 = be.log(flint.arb(2))
    failing, worst_plain, worst_ln = set(), None, None
    for s, t in zip(drawn, labels):
        n = len(s) + 1
        floor = 1 - be.div(flint.arb(2), flint.arb(n) ** 2 * ln2)
        sign = 1 if t else -1
        ce = []
        for variant, p in (("none", without), ("layernorm", with_ln)):
            o = exact.evaluate(p, np.array([tasks.BOS, *s]), arithmetic="enclosed").logits[-1]
            m = (o[1] - o[0]) * sign
            ce.append(be.div(be.log(1 + be.exp(-m)), ln2))
            tally.record((variant, s))
        if not (bool(ce[0] > floor and ce[0] < 1) and bool(ce[1] > 0 and ce[1] < 2e-4)):
            failing.add(n)
        worst_plain = float(ce[0].mid())
        worst_ln = max(worst_ln or 0.0, float(ce[1].mid()))
    first = drawn[0]
    n0 = len(first) + 1
    o = np.asarray(forward(without, np.array([tasks.BOS, *first])), dtype=np.float64)
    m0 = float(o[1] - o[0]) * (1 if labels[0] else -1)
    floor0 = 1 - 2 / (n0**2 * float(ln2.mid()))
    witnesses = (
        _float_inside_enclosure(without, first),
        _float_inside_enclosure(with_ln, first),
        Witness(
            "float64 cross-entropy without the LayerNorm, first string",
            float(cross_entropy_bits(m0)),
            (floor0, 1),
            "inside",
            64 * n0 * precision.unit_roundoff("float64"),
        ),
    )
    return Checked(
        "enclosed",
        tally,
        {
            "failures": len(failing),
            "failing_n": sorted(failing),
            "ce_bits_without_layernorm_last": f"{worst_plain:.7f}",
            "ce_bits_with_layernorm_max": f"{worst_ln:.3g}",
        },
        witnesses=witnesses,
    )


def parity_float(dtype: str, lengths: Sequence[int] = (64,), samples: int = 8) -> Checked:
    """:func:`parity_precision_records` in ``dtype``: each variant's smallest margin against the
    exact ``4/n^2`` and ``4 sqrt 5``, over :func:`float_tolerance` (absolute without the LayerNorm;
    times ``4 sqrt 5`` with it), and the misclassified strings. Covered: every (variant, drawn
    string) pair, counted from each record. Values: ``worst_over_tolerance`` (both variants),
    ``ln_worst_over_tolerance`` (the LayerNorm variant), ``misclassified``,
    ``plain_relative_error`` (the LayerNorm-free variant, the largest)."""
    precision.require_x64("parity_float")
    _, _, where = balanced_samples("parity", lengths, samples)
    tally = Tally(Product(PARITY_VARIANTS, where))
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
        tally.record_count(r["strings"])
    return Checked(
        "float",
        tally,
        {
            "worst_over_tolerance": worst,
            "ln_worst_over_tolerance": ln_worst,
            "misclassified": wrong,
            "first_misclassified_n": first_wrong,
            "plain_relative_error": rel,
        },
        tolerance=f"16 n u absolute (u = {precision.unit_roundoff(dtype):.3g}); "
        "times 4 sqrt 5 with the LN",
    )


LAYERNORM_EPS = 1e-5  # the library's default eps, the one the row is about


def layernorm_eps(lengths: Sequence[int] = (41,)) -> Checked:
    """PARITY's recognizer with the library's default ``eps`` (:data:`LAYERNORM_EPS`) in its
    final LayerNorm, run in arb balls by :func:`transformer_theory.exact.evaluate` on the string of
    ``L`` ones for each ``L`` (a member iff ``L`` odd): the signed margin's enclosure, which must
    lie in ``(0, 1)`` (against ``4 sqrt 5 = 8.944`` with ``eps = 0``). Covered: the strings of
    ``L`` ones at the listed ``L`` (:data:`ONES_STRINGS`). Witness: the float64 margin of the
    first string inside its enclosure. Values: ``inside`` (every enclosure certainly in
    ``(0, 1)``), ``margins``."""
    from transformer_theory import exact

    precision.require_x64("layernorm_eps")
    params = recognizers.build("parity")
    params = params.replace(config=params.config.replace(norm_eps=LAYERNORM_EPS))
    tally = Tally(ONES_STRINGS.at(lengths))
    inside, margins = True, {}
    for length in lengths:
        sign = 1 if length % 2 else -1
        s = (1,) * length
        o = exact.evaluate(params, np.array([tasks.BOS, *s]), arithmetic="enclosed").logits[-1]
        m = (o[1] - o[0]) * sign
        inside = inside and bool(m > 0 and m < 1)
        margins[length + 1] = f"{float(m.mid()):.3g}"
        tally.record(s)
    return Checked(
        "enclosed",
        tally,
        {"inside": inside, "margins": margins},
        witnesses=(_float_inside_enclosure(params, (1,) * lengths[0]),),
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
    from transformer_theory.papers.formal_languages import _study_languages_generalization as study
    from transformer_theory.papers.formal_languages.experiments import languages_generalization

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
        covered = Record(
            ", ".join(os.path.relpath(p, root) for p in found),
            "python experiments/languages_generalization.py",
        )
    else:
        config = languages_generalization.get_config("smoke")
        with tempfile.TemporaryDirectory() as out:
            study.run(config, out, progress=False)  # its file, read as the committed ones are
            with open(os.path.join(out, "languages_generalization.json")) as f:
                records = json.load(f)["records"]
        arithmetic, covered = "training", Trained("the smoke config, trained now")
    built = [r for r in records if r["model"] == "constructed"]
    trained = [r for r in records if r["final_loss"] is not None]

    def best(kind: str) -> str:
        accs = [max(r["accuracy"]) for r in trained if kind in r["model"]]
        return f"{max(accs):.2f}" if accs else "-"

    return Checked(
        arithmetic,
        covered,
        {
            "constructions_exact": bool(built)
            and all(a == 1.0 for r in built for a in r["accuracy"]),
            "trained": len(trained),
            "seeds": sorted({r["seed"] for r in trained}),
            "best_hard": best("hard (trained"),
            "best_softmax": best("softmax (trained"),
        },
    )
