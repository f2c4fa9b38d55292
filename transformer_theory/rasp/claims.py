"""The compiled RASP programs as rows of the claims ledger (collected by
:mod:`transformer_theory.claims.runner`).

Each ``rasp.<program>`` row states that the model compiled from a library program
(:data:`transformer_theory.rasp.PROGRAMS`) equals the interpreter at every position of every input
over its vocabulary up to a length, every decision certified in arb balls by the exact engine
(:func:`transformer_theory.rasp._check.ledger_check`); ``rasp.reverse_float32_length64`` is the
float32 forward pass of ``reverse`` at length 64, on seeded samples.
"""

from __future__ import annotations

from functools import partial

from transformer_theory.claims import judges
from transformer_theory.ledger import Row
from transformer_theory.rasp._check import ledger_check

__all__ = ["CLAIMS"]

PAPER = "Weiss et al. 2021 (RASP); this library's compiler"
STATEMENT = (
    "the compiled model equals the interpreter at every position of every input over vocab V up "
    "to length N, every decision certified in arb balls"
)
FIGURE = "agree on {inputs} inputs; certified min margin {min_margin} ({layers} layers)"

# program: (quick sizes, full sizes)
_SIZES = {
    "length": ({"vocab": "ab", "max_len": 3}, {"vocab": "abc", "max_len": 6}),
    "reverse": ({"vocab": "ab", "max_len": 3}, {"vocab": "abc", "max_len": 6}),
    "histogram": ({"vocab": "ab", "max_len": 3}, {"vocab": "abc", "max_len": 6}),
    "sort": ({"vocab": "ab", "max_len": 3}, {"vocab": "abc", "max_len": 5}),
    "frac_prevs": ({"vocab": "ab", "max_len": 3}, {"vocab": "ab", "max_len": 8}),
    "dyck1": ({"vocab": "()", "max_len": 4}, {"vocab": "()", "max_len": 8}),
}


def _row(program: str, quick: dict, full: dict) -> Row:
    return Row(
        id=f"rasp.{program}",
        paper=PAPER,
        place="the program's RASP definition",
        statement=STATEMENT,
        quantifier="finite",
        check=partial(ledger_check, program),
        judge=judges.all_of(judges.true("agree"), judges.all_right("min_margin"), figure=FIGURE),
        sizes={"quick": quick, "full": full},
        expected="finding",
        printed=None,
        note="certified for the float64 weights the compiler emits, on this finite input space",
    )


def _float_row() -> Row:
    lengths = [1, 16, 32, 63, 64]
    return Row(
        id="rasp.reverse_float32_length64",
        paper=PAPER,
        place="the program's RASP definition",
        statement=(
            "reverse compiled for length 64 (constants chosen automatically by the compiler's "
            "laws) decodes to the interpreter's value at every position of seeded inputs of "
            "lengths 1, 16, 32, 63, 64 in the float32 forward pass"
        ),
        quantifier="finite",
        check=partial(
            ledger_check, "reverse", arithmetic="float", dtype="float32", lengths=lengths
        ),
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


CLAIMS: list[Row] = [_row(p, q, f) for p, (q, f) in _SIZES.items()] + [_float_row()]
