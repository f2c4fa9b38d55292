"""The compiled RASP programs as rows of the claims ledger (collected by
:mod:`transformer_theory.claims.runner`).

Each ``rasp.<program>`` row states that the model compiled from a library program
(:data:`transformer_theory.rasp.PROGRAMS`) equals the interpreter at every position of every input
over its vocabulary up to a length, every decision certified in arb balls by the exact engine
(:func:`transformer_theory.rasp._check.ledger_check`); ``rasp.reverse_float32_length64`` is the
float32 forward pass of ``reverse`` at length 64, on seeded samples;
each ``rasp.certified.<program>`` row states that the model compiled for ``N`` is exact on every
input of every length up to ``N`` in float32 and in float64 for every ``N`` tried up to a bound,
proved by the certificate (:func:`transformer_theory.rasp.certified_length`) without enumerating
the inputs, with its certified lengths as the figure; ``rasp.tracr_differential`` reads the
committed record of the differential run against tracr
(``experiments/results/rasp_tracr_differential.json``, written by ``experiments/rasp_tracr.py`` in
an environment where tracr is installed) and recomputes its verdict from the per-program counts.
"""

from __future__ import annotations

import os
from functools import partial

from transformer_theory.claims import judges
from transformer_theory.ledger import (
    REPO_ROOT,
    RESULTS_DIR,
    Checked,
    Family,
    Record,
    Row,
    Strings,
    Tally,
    Witness,
)
from transformer_theory.rasp import _certificate
from transformer_theory.rasp._check import ledger_check
from transformer_theory.rasp._library import PROGRAMS

__all__ = ["CLAIMS"]

PAPER = "Weiss et al. 2021 (RASP); this library's compiler"
STATEMENT = (
    "the compiled model equals the interpreter at every position of every input over vocab V up "
    "to length N, every decision certified in arb balls"
)
FIGURE = "agree on {inputs} inputs; certified min margin {min_margin} ({layers_text})"

# program: (vocabulary, quick lengths, full lengths): the program compiled for each length N on
# every input up to N
_SIZES = {
    "length": ("abc", (2, 3), (5, 6)),
    "reverse": ("abc", (2, 3), (5, 6)),
    "histogram": ("abc", (2, 3), (5, 6)),
    "sort": ("abc", (2, 3), (4, 5)),
    "frac_prevs": ("ab", (3, 4), (7, 8)),
    "dyck1": ("()", (3, 4), (7, 8)),
}


def _inputs_family(vocab: str) -> Family:
    """For every N >= 1: every input over ``vocab`` of length 1..N, to the model compiled for
    N."""
    return Family(
        "N",
        lambda N: Strings(tuple(vocab), range(1, N + 1), what="input"),
        start=1,
        what=f"every input over {{{', '.join(vocab)}}} up to N, to the model compiled for N",
    )


def _family_check(program: str, family: Family, vocab: str, max_lens: tuple) -> Checked:
    """:func:`ledger_check` (every decision enclosed in arb balls) of ``program`` compiled for
    each N of ``max_lens``, on every input up to N; the witness: the float64 forward pass's
    smallest margin, which must not lie below the certified lower end (less the float64
    rounding of the margin)."""
    tally = Tally(family.at(max_lens))
    agree, margin, inputs, layers, depth = True, None, 0, 0, 0
    witnesses = []
    for n in max_lens:
        v = ledger_check(program, vocab, n)
        flt = ledger_check(program, vocab, n, arithmetic="float")
        agree = agree and bool(v["agree"])
        m = v["min_margin"]
        margin = m if margin is None or (m is not None and m < margin) else margin
        inputs += v["inputs"]
        layers, depth = max(layers, v["layers"]), max(depth, v["attention_depth"])
        tally.record_count(v["inputs"])
        if m is not None and flt["min_margin"] is not None:
            f = float(flt["min_margin"])
            slack = 1e-9 * (1 + abs(f))
            witnesses.append(Witness(f"float64 min margin at N = {n}", f, m, "above", slack))
    values = {
        "agree": agree,
        "min_margin": margin,
        "inputs": inputs,
        "layers": layers,
        "layers_text": f"{layers} layer{'' if layers == 1 else 's'}",
        "attention_depth": depth,
    }
    return Checked("enclosed", tally, values, witnesses=witnesses)


def _row(program: str, vocab: str, quick: tuple, full: tuple) -> Row:
    family = _inputs_family(vocab)
    return Row(
        id=f"rasp.{program}",
        paper=PAPER,
        place="the program's RASP definition",
        statement=STATEMENT,
        domain=family,
        check=partial(_family_check, program, family, vocab),
        judge=judges.all_of(judges.true("agree"), judges.all_right("min_margin"), figure=FIGURE),
        sizes={"quick": {"max_lens": quick}, "full": {"max_lens": full}},
        expected="finding",
        printed=None,
        note="certified for the float64 weights the compiler emits, at the listed N only",
    )


_REVERSE_64 = Strings(tuple("abc"), range(1, 65), what="input")


def _float_check(vocab: str, max_len: int, samples: int) -> Checked:
    lengths = [1, 16, 32, 63, 64]
    v = ledger_check(
        "reverse", vocab, max_len, arithmetic="float", dtype="float32", lengths=lengths,
        samples=samples,
    )  # fmt: skip
    n = v["inputs"]
    tally = Tally(_REVERSE_64.sample(n, 0, lambda seed, i: i, what="inputs, seeded by length"))
    tally.record_count(n)
    tol = (
        "none: float32 decoded values compared exactly (argmax of a one-hot block, nearest value "
        "of a numerical node), each decision with a positive margin"
    )
    return Checked("float", tally, v, tolerance=tol)


def _float_row() -> Row:
    return Row(
        id="rasp.reverse_float32_length64",
        paper=PAPER,
        place="the program's RASP definition",
        statement=(
            "reverse compiled for length 64 (constants chosen automatically by the compiler's "
            "laws) decodes to the interpreter's value at every position of seeded inputs of "
            "lengths 1, 16, 32, 63, 64 in the float32 forward pass"
        ),
        domain=_REVERSE_64,
        check=_float_check,
        judge=judges.all_of(
            judges.true("agree"),
            judges.all_right("min_margin"),
            figure="agree on {inputs} sampled inputs; min margin {min_margin} (float32)",
        ),
        sizes={
            "quick": {"vocab": "abc", "max_len": 64, "samples": 16},
            "full": {"vocab": "abc", "max_len": 64, "samples": 256},
        },
        expected="finding",
        printed=None,
        note="samples, not every input: verified strength; the tolerance is the decoding rule",
    )


TRACR_RECORD = os.path.join(str(RESULTS_DIR), "rasp_tracr_differential.json")
_TRACR_DOMAIN = Record(
    "experiments/results/rasp_tracr_differential.json", "experiments/rasp_tracr.py"
)


def tracr_differential(path: str | None = None) -> Checked:
    """The committed differential record against tracr, its verdict recomputed from the
    per-program counts: ``consistent`` iff for every program this compiler's model equals its
    interpreter at every position, the two interpreters agree, and this compiler's layers are at
    most tracr's. Without the record (tracr cannot be installed where the ledger runs): nothing
    computed, the row stays open."""
    from transformer_theory import jsonio

    path = path or TRACR_RECORD
    if not os.path.exists(path):
        return Checked("none", _TRACR_DOMAIN, {"consistent": None})
    rec = jsonio.read_json(path)
    progs = rec["programs"]
    ok = all(
        p["ours"]["disagree"] == 0
        and p["interpreters_disagree"] == 0
        and p["layers"]["ours"] <= p["layers"]["tracr"]
        for p in progs
    )
    fails = rec["failure_lengths"]
    values = {
        "consistent": ok,
        # frac_prevs is compared twice (non-causal and causal): one program, two comparisons
        "programs": len({p["program"].removesuffix("_causal") for p in progs}),
        "comparisons": len(progs),
        "inputs": sum(p["inputs"] for p in progs),
        "ours_disagree": sum(p["ours"]["disagree"] for p in progs),
        "tracr_disagree": sum(p["tracr"]["disagree"] for p in progs),
        "tracr_at_none": sum(p["tracr"]["at_none"] for p in progs),
        "layers": ", ".join(
            f"{p['program']} {p['layers']['ours']}/{p['layers']['tracr']}" for p in progs
        ),
        "tracr_length_fails_at": fails["length"]["tracr"]["float32"]["first_failure"],
        "tracr_frac_prevs_fails_at": fails["frac_prevs"]["tracr_first_failure"],
    }
    source = Record(os.path.relpath(path, REPO_ROOT), rec.get("produced_by", ""))
    return Checked("record", source, values)


def _tracr_row() -> Row:
    return Row(
        id="rasp.tracr_differential",
        paper="Lindner et al. 2023 (tracr); this library's compiler",
        place="tracr's own library programs (tracr.compiler.lib, commit 9ce2b8c)",
        statement=(
            "tracr's library programs compiled by tracr and (translated) by this compiler, both "
            "models in float32 and both interpreters on every input up to each program's length, "
            "every position: this compiler's model equals the interpreter everywhere (None "
            "included), the interpreters agree, and this compiler never uses more layers"
        ),
        domain=_TRACR_DOMAIN,
        check=tracr_differential,
        judge=judges.true(
            "consistent",
            figure=(
                "{comparisons} comparisons of {programs} programs, {inputs} inputs: each model "
                "beside its own interpreter differs at {ours_disagree} positions here, at "
                "{tracr_disagree} in tracr ({tracr_at_none} of them where tracr's interpreter "
                "says None); "
                "layers ours/tracr: {layers}; at tracr's default mlp_exactness 100 its length is "
                "wrong from {tracr_length_fails_at} tokens, frac_prevs from length "
                "{tracr_frac_prevs_fails_at}"
            ),
        ),
        sizes={"quick": {}},
        expected="measured",
        printed=None,
        command="/tmp/tracr-venv/bin/python experiments/rasp_tracr.py "
        "--out experiments/results/rasp_tracr_differential.json",
        note="Reads the committed record (tracr cannot be installed where the ledger runs: "
        "without the record the row is open); the recipe is rasp._tracr.INSTALL.",
    )


# program: the bound N of the full tier (every length of DEFAULT_LENGTHS up to it certified in
# float32 and float64; measured with rasp.certified_length, see docs/rasp.md)
_CERTIFIED_UPTO = {name: 16 for name in PROGRAMS} | {"sort_by_frequency": 3}
_CERT_FIGURE = (
    "certified exact through N = {float32} (float32) and {float64} (float64) of the lengths "
    "tried up to {upto}"
)


def _certified_row(program: str, full: int) -> Row:
    family = _certificate.inputs_family(PROGRAMS[program].vocab)
    return Row(
        id=f"rasp.certified.{program}",
        paper=PAPER,
        place="the program's RASP definition; the certificate of rasp._certificate",
        statement=(
            f"the model compiled from {program} for N (constants by the compiler's laws) is "
            "exact on every input of every length up to N, every node at every position, in "
            "the float32 and the float64 forward pass (the standard rounding model), for every "
            "N tried up to the bound: proved by the certificate, without enumerating inputs"
        ),
        domain=family,
        check=partial(_certificate.ledger_check, program, family=family),
        judge=judges.true("certified", figure=_CERT_FIGURE),
        sizes={"quick": {"upto": 2}, "full": {"upto": full}},
        expected="finding",
        printed=None,
        note="the rounding model (every operation within u, exp within 4 ulps) is an assumption "
        "about XLA's kernels; the witness is the float32 forward pass's margin",
    )


CLAIMS: list[Row] = (
    [_row(p, v, q, f) for p, (v, q, f) in _SIZES.items()]
    + [_float_row()]
    + [_certified_row(p, n) for p, n in _CERTIFIED_UPTO.items()]
    + [_tracr_row()]  # last: its paper is tracr's (CLAIMS.md groups the rows by paper)
)
