"""The formal-language table's claims (Strobl et al. 2024's survey table, as the seed lecture slides
print it: "Figure: Surveyed claims and their assumptions in Strobl et al. (2024)", slide 27 of
``shared/seeds/001_4a8a9b13747ade48.txt``), and the library's findings on the constructions
behind its rows: a table of :class:`~transformer_theory.ledger.Row`.

``printed`` is the table's row verbatim (its cells joined by `` | ``, several rows by `` / ``); a
row of the library's own (a variant of a construction, a float-format measurement, a property the
table does not state) has ``printed=None``. The checks live in :mod:`._checks`,
:mod:`._checks_dyck_k` and :mod:`._checks_counters`; the status is derived by
:func:`transformer_theory.ledger.derive_status`.
"""

from __future__ import annotations

import functools

from transformer_theory.claims import judges
from transformer_theory.ledger import Continuum, Exists, Row, open_claim
from transformer_theory.papers.formal_languages import _checks as checks
from transformer_theory.papers.formal_languages import _checks_counters, _checks_dyck_k
from transformer_theory.papers.formal_languages import _domains as domains

__all__ = ["CLAIMS"]

PAPER = "Strobl et al. 2024"
_SLIDE = "seed slides p. 27, table of Strobl et al. (2024)"
_LANG_CMD = "transformer-theory languages --out DIR"
_ID_CMD = "transformer-theory claims --id formal_languages.{} --tier full"

# The table's rows, verbatim (cells joined by " | ").
_MAJORITY = "→ MAJORITY | Pérez et al. 2019 | none | average-hard"
_SHUFFLE = "∋ SHUFFLE-DYCK-k | Bhattamishra et al. 2020a | none | softmax, future mask"
_SSCM = "⊇ SSCMs | Bhattamishra et al. 2020a | none | softmax, future mask"
_DYCK_K = "∋ Dyck-k | Yao et al. 2021 | $i/n$ , $i/n^3$ , $n$ | softmax & leftmost-hard"
_PARITY = "∋ Parity | Chiang and Cholak 2022 | $i/n, (-1)^i$ | softmax"
_HAHN_HARD = "∌ Parity, Dyck-1 | Hahn 2020 | R | leftmost-hard"
_HAHN_SOFT = (
    "₱ Parity, Dyck-2 | Hahn 2020 | R | softmax, future mask | $\\varepsilon_N > 0$ , vanishing KL"
)

_COUNTERS = ("shuffle_dyck_1", "shuffle_dyck_2", "shuffle_dyck_3", "anbn", "boolexp_3")


def _none_wrong(figure: str):
    return judges.all_of(
        judges.exactly("wrong", 0), judges.exactly("off_derived", 0), figure=figure
    )


_ROW_FIGURE = (
    "{wrong} misclassified, {off_derived} off the derived margin on {strings} strings; smallest "
    "signed margin {smallest_signed_margin}"
)
_ROW_SIZES = {
    "quick": {"exhaustive": 5, "sampled": (16,), "samples": 4},
    "full": {"exhaustive": 9, "sampled": (16, 32, 64, 128), "samples": 16},
}


def _row(name: str):
    return functools.partial(checks.row_margins, name)


def _counter_sizes(languages, quick, full):
    return {
        "quick": {"languages": languages, "exhaustive": quick, "sampled": (16,), "samples": 3},
        "full": {
            "languages": languages,
            "exhaustive": full,
            "sampled": (16, 32, 64, 128, 256),
            "samples": 32,
        },
    }


_COUNTER_FIGURE = "{failures} language(s) failing on {strings} strings ({outputs} outputs exact)"
_COUNTER_JUDGE = judges.exactly("failures", 0, figure=_COUNTER_FIGURE)
_ANBNCN_SIZES = {
    "quick": {"languages": ("anbncn",), "exhaustive": (6,), "sampled": (18,), "samples": 3},
    "full": {
        "languages": ("anbncn",),
        "exhaustive": (9,),
        "sampled": (18, 33, 66, 129, 255),
        "samples": 32,
    },
}

CLAIMS: list[Row] = [
    Row(
        id="formal_languages.majority",
        paper=PAPER,
        place=f"{_SLIDE}, lower bounds, row MAJORITY",
        printed=_MAJORITY,
        statement=(
            "The library's one-layer average-hard recognizer with no positional encoding "
            "(constructions.majority: all scores 0, BOS writes the tie-breaker -1/2), evaluated "
            "in rationals (exact.evaluate): it accepts exactly the members, with margin "
            "(2 (#1 - #0) - 1) / (L + 1) exactly, on every string up to a length (and sampled "
            "longer ones)"
        ),
        domain=checks.BINARY_STRINGS,
        check=_row("majority"),
        judge=_none_wrong(_ROW_FIGURE),
        sizes=_ROW_SIZES,
        expected="bounded",
        command=_ID_CMD.format("majority"),
        note="Every length only up to the bound; the sampled lengths are samples.",
    ),
    Row(
        id="formal_languages.parity_layernorm",
        paper=PAPER,
        place=f"{_SLIDE}, lower bounds, row Parity",
        printed=_PARITY,
        statement=(
            "The library's two-layer softmax recognizer with PE (i/n, (-1)^i) and a final "
            "LayerNorm with eps = 0 (constructions.parity; weights derived from Chiang & "
            "Cholak's mechanism, not transcribed), enclosed in arb balls (exact.evaluate; "
            "softmax and the norm's square root have no rational value): every sign certain and "
            "right, and the margin within 16 n u (relative) of +-4 sqrt 5"
        ),
        domain=checks.BINARY_STRINGS,
        check=_row("parity"),
        judge=_none_wrong(_ROW_FIGURE),
        sizes=_ROW_SIZES,
        expected="bounded",
        command=_ID_CMD.format("parity_layernorm"),
        note=(
            "The enclosed model carries the float64 positional code i/n (its rounding is why "
            "the margin is 4 sqrt 5 only to 16 n u); eps = 0 is not the library's default "
            "(formal_languages.layernorm_eps)."
        ),
    ),
    Row(
        id="formal_languages.parity_no_layernorm",
        paper=PAPER,
        place=f"{_SLIDE}, row Parity (the construction before the LayerNorm)",
        statement=(
            "Without the final LayerNorm (constructions.parity(layer_norm=False)) the same "
            "recognizer is still right on every string, with a decision that shrinks like 1/n^2: "
            "enclosed in arb balls, every sign certain and right and the margin within 16 n u "
            "(relative) of +-4/n^2, n = L + 1"
        ),
        domain=checks.BINARY_STRINGS,
        check=_row("parity_no_layernorm"),
        judge=(_none_wrong(_ROW_FIGURE)),
        sizes=_ROW_SIZES,
        expected="finding",
        command=_ID_CMD.format("parity_no_layernorm"),
    ),
    Row(
        id="formal_languages.dyck1",
        paper=PAPER,
        place=f"{_SLIDE}, lower bounds, row Dyck-k at k = 1",
        statement=(
            "Dyck-1 by the library's construction after Yao et al.'s first layer "
            "(constructions.dyck1: two causal AVERAGE-hard layers, no positional code; not the "
            "row's PE or attention), in rationals (exact.evaluate): right on every string, signed "
            "margin >= 1/(2n)"
        ),
        domain=checks.BINARY_STRINGS,
        check=_row("dyck1"),
        judge=(_none_wrong(_ROW_FIGURE)),
        sizes=_ROW_SIZES,
        expected="finding",
        command=_ID_CMD.format("dyck1"),
        note="Not the table's assumptions (PE i/n, i/n^3, n; softmax & leftmost-hard).",
    ),
    Row(
        id="formal_languages.table_float64",
        paper=PAPER,
        place=f"{_SLIDE}, the four rows built (MAJORITY, PARITY with and without LN, Dyck-1)",
        statement=(
            "What `transformer-theory languages` runs in float64: every row at "
            "accuracy 1.0 and each length's smallest margin at least the derived one (MAJORITY "
            "1/n, PARITY 4/n^2 or 4 sqrt 5, Dyck-1 1/(2n); n = L + 1) less the tolerance"
        ),
        domain=checks.TABLE_INPUTS,
        check=checks.table_float64,
        judge=(
            judges.all_of(
                judges.exactly("misclassified", 0),
                judges.at_most("max_shortfall_over_tolerance", 1),
                figure="{misclassified} misclassified on {cases} strings; largest shortfall "
                "{max_shortfall_over_tolerance} x tolerance; smallest margins {smallest}",
            )
        ),
        sizes={
            "quick": {"max_len": 2, "exhaustive_up_to": 2, "samples": 64},
            "full": {"max_len": 256, "exhaustive_up_to": 10, "samples": 64},
        },
        expected="finding",
        command=_LANG_CMD + " --parity-lengths none",
    ),
    Row(
        id="formal_languages.parity_confidence",
        paper=PAPER,
        place=f"{_SLIDE}, upper bounds, row 'Parity, Dyck-2, Hahn 2020' (on one construction)",
        statement=(
            "On the library's PARITY construction, log2(1 + e^-margin) enclosed in arb balls "
            "(exact.evaluate): without the LayerNorm every enclosure lies in [1 - 2/(n^2 ln 2), "
            "1) bits (so the cross-entropy tends to 1 bit, as Hahn 2020's lemma says it must); "
            "with Chiang & Cholak's LayerNorm (eps = 0) in (0, 2e-4) bits at every n checked"
        ),
        domain=checks.PARITY_INPUTS,
        check=checks.parity_confidence,
        judge=(
            judges.exactly(
                "failures",
                0,
                figure="{failures} n outside the bounds; cross-entropy without LN "
                "{ce_bits_without_layernorm_last} bits at the largest n, with LN at most "
                "{ce_bits_with_layernorm_max}",
            )
        ),
        sizes={
            "quick": {"lengths": (16,), "samples": 4},
            "full": {"lengths": (64, 256), "samples": 8},
        },
        expected="finding",
        command=_LANG_CMD + " --parity-lengths 64,256,1024,2048",
        note=(
            "One construction, not Hahn's theorem (every Lipschitz softmax transformer); the "
            "eps = 0 LayerNorm is not Lipschitz (formal_languages.hahn_softmax)."
        ),
    ),
    Row(
        id="formal_languages.parity_float64",
        paper=PAPER,
        place=f"{_SLIDE}, row Parity (the margin in float64)",
        statement=(
            "checks.parity_precision_records in float64: every string right, each smallest margin "
            "within 16 n u (absolute; times 4 sqrt 5 with the LayerNorm) of the exact 4/n^2 and "
            "4 sqrt 5"
        ),
        domain=checks.PARITY_INPUTS,
        check=functools.partial(checks.parity_float, "float64"),
        judge=(
            judges.all_of(
                judges.exactly("misclassified", 0),
                judges.at_most("worst_over_tolerance", 1),
                figure="{misclassified} misclassified; worst error {worst_over_tolerance} x "
                "tolerance; relative error without LN {plain_relative_error}",
            )
        ),
        sizes={
            "quick": {"lengths": (64,), "samples": 8},
            "full": {"lengths": (64, 256, 1024, 2048), "samples": 8},
        },
        expected="finding",
        command=_LANG_CMD + " --parity-lengths 64,256,1024,2048",
    ),
    Row(
        id="formal_languages.parity_float32",
        paper=PAPER,
        place=f"{_SLIDE}, row Parity (the margin in float32)",
        statement=(
            "checks.parity_precision_records in float32: with the LayerNorm the margin stays "
            "4 sqrt 5 within 16 n u * 4 sqrt 5 on every string; without it the relative error of "
            "4/n^2 and the first n that misclassifies are reported (measurements beside it)"
        ),
        domain=checks.PARITY_INPUTS,
        check=functools.partial(checks.parity_float, "float32"),
        judge=(
            judges.at_most(
                "ln_worst_over_tolerance",
                1,
                figure="with LN worst error {ln_worst_over_tolerance} x tolerance; without LN "
                "relative error up to {plain_relative_error}, first misclassified n = "
                "{first_misclassified_n}",
            )
        ),
        sizes={
            "quick": {"lengths": (64,), "samples": 8},
            "full": {"lengths": (64, 256, 1024, 2048), "samples": 8},
        },
        expected="finding",
        command=_LANG_CMD + " --parity-lengths 64,256,1024,2048",
        note="The LayerNorm-free numbers are measurements; only the LayerNorm part is judged.",
    ),
    Row(
        id="formal_languages.layernorm_eps",
        paper=PAPER,
        place=f"{_SLIDE}, row Parity (the LayerNorm of Chiang & Cholak's trick)",
        statement=(
            "The trick needs eps = 0: with the library's default eps = 1e-5 in the final "
            "LayerNorm, PARITY's recognizer on the string of L ones has a signed margin certainly "
            "in (0, 1) (arb balls, exact.evaluate), against 4 sqrt 5 = 8.944 with eps = 0"
        ),
        domain=domains.ONES_STRINGS,
        check=checks.layernorm_eps,
        judge=(judges.true("inside", figure="margin in (0, 1): {inside}; margins by n {margins}")),
        sizes={"quick": {"lengths": (41, 64)}, "full": {"lengths": (41, 256, 1024)}},
        expected="finding",
        command="pytest tests/papers/formal_languages/test_constructions.py -k eps_zero",
    ),
    Row(
        id="formal_languages.hahn_training",
        paper=PAPER,
        place=f"{_SLIDE}, upper bounds, row 'Parity, Dyck-1, Hahn 2020' (as an experiment)",
        printed=_HAHN_HARD,
        statement=(
            "An experiment, not the theorem: PARITY, Dyck-1 and Dyck-(2, 3) models trained on "
            "lengths 4-16 with softmax and leftmost-hard attention (straight-through; an "
            "annealed-softmax curriculum), evaluated at lengths 8-256 beside the constructions "
            "(generalization.run); read from the committed record when there is one"
        ),
        domain=checks.HAHN_TRAINED,
        check=checks.hahn_training,
        judge=judges.true(
            "constructions_exact",
            figure="{trained} trained models: best accuracy hard {best_hard}, softmax "
            "{best_softmax}; constructions exact: {constructions_exact}",
        ),
        sizes={"quick": {}},
        expected="measured",
        command="python experiments/languages_generalization.py --out DIR --seeds 0",
    ),
    open_claim(
        "formal_languages.hahn_hard",
        PAPER,
        f"{_SLIDE}, upper bounds, row 'Parity, Dyck-1, Hahn 2020'",
        _HAHN_HARD,
        "an impossibility over every parameter setting at unbounded length: no finite check "
        "or training run can show it (formal_languages.hahn_training is the experiment beside it)",
        domain=Continuum(
            "every leftmost-hard transformer (real weights and PE), at every input length"
        ),
    ),
    open_claim(
        "formal_languages.hahn_softmax",
        PAPER,
        f"{_SLIDE}, upper bounds, row 'Parity, Dyck-2, Hahn 2020'",
        _HAHN_SOFT,
        "a statement about every Lipschitz softmax transformer; checked only on one "
        "construction (formal_languages.parity_confidence), whose LayerNorm with eps = 0 is "
        "not Lipschitz; Dyck-2 needs a four-symbol alphabet the tasks do not have",
        domain=Continuum(
            "every softmax transformer with a future mask (real weights and PE), at every input "
            "length"
        ),
    ),
    Row(
        id="formal_languages.dyck_k",
        paper=PAPER,
        place=f"{_SLIDE}, lower bounds, row Dyck-k (leftmost-hard)",
        printed=_DYCK_K,
        statement=(
            "Dyck-(k, D) (bounded depth D) by the library's recognizer after Yao et al. 2021 "
            "(dyck_k_recognizer, a variant: D + 2 causal layers, code (i/n, n); layer 1 "
            "average-hard, layers 2.. leftmost-hard give the same margins) run by core.forward in "
            "float64 against a stack: every string right, members' margin 1/(4n) and non-members' "
            "<= -3/(4n) within 16 n u"
        ),
        domain=Exists(
            "a transformer with the row's PE (i/n, i/n^3, n) and softmax & leftmost-hard "
            "attention recognizing Dyck-k (the library's: dyck_k_recognizer)",
            domains.DYCK_K_STRINGS,
        ),
        check=functools.partial(_checks_dyck_k.dyck_k_margins, "hard"),
        judge=judges.exactly(
            "failures",
            0,
            figure="{failures} failing lengths on {pairs} (string, D) pairs; smallest margin "
            "{smallest_margin_times_n}/n",
        ),
        sizes={
            "quick": {"exhaustive": {2: 6}, "depths": (2,)},
            "full": {
                "exhaustive": {2: 7, 3: 5},
                "depths": (1, 2, 3, 4),
                "sampled": (16, 64),
                "samples": 32,
            },
        },
        expected="verified",
        command=_ID_CMD.format("dyck_k"),
        note=(
            "Bounded depth D only, the library's PE (i/n, n) not (i/n, i/n^3, n); float64 "
            "(the recognizer reads a float embedding)."
        ),
    ),
    Row(
        id="formal_languages.dyck_k_softmax",
        paper=PAPER,
        place=f"{_SLIDE}, lower bounds, row Dyck-k (softmax)",
        printed=_DYCK_K,
        statement=(
            "The same weights with softmax attention, the level scores scaled by 2N ln(2N^2) and "
            "the aggregation's by 2N ln(4N) for strings up to N - 1 symbols "
            "(dyck_k.softmax_scales), in float64: every string right, members' margin 1/(4n) "
            "within 16 n u"
        ),
        domain=Exists(
            "a transformer with the row's PE (i/n, i/n^3, n) and softmax & leftmost-hard "
            "attention recognizing Dyck-k (the library's: dyck_k_recognizer)",
            domains.DYCK_K_STRINGS,
        ),
        check=functools.partial(_checks_dyck_k.dyck_k_margins, "softmax"),
        judge=judges.exactly(
            "failures",
            0,
            figure="{failures} failing lengths on {pairs} (string, D) pairs; smallest margin "
            "{smallest_margin_times_n}/n",
        ),
        sizes={
            "quick": {"exhaustive": {2: 6}, "depths": (2,)},
            "full": {
                "exhaustive": {2: 7, 3: 5},
                "depths": (1, 2, 3, 4),
                "sampled": (16, 64),
                "samples": 32,
            },
        },
        expected="verified",
        command=_ID_CMD.format("dyck_k_softmax"),
        note="The margin shrinks like 1/n while the scores grow like n^2 log n.",
    ),
    Row(
        id="formal_languages.dyck_k_float32",
        paper=PAPER,
        place=f"{_SLIDE}, row Dyck-k (the margin in float32)",
        statement=(
            "The hard Dyck-(2, 4) recognizer in float32 (dyck_k.margin_records): the members' "
            "margin error within 16 n u at every n checked; the first misclassified n reported"
        ),
        domain=_checks_dyck_k.DYCK_2_4_STRINGS,
        check=_checks_dyck_k.dyck_k_float32,
        judge=(
            judges.at_most(
                "members_error_over_tolerance",
                1,
                figure="members' error {members_error_over_tolerance} x 16 n u; first "
                "misclassified n = {first_misclassified_n}",
            )
        ),
        sizes={
            "quick": {"lengths": (16,), "samples": 16},
            "full": {"lengths": (16, 64, 256, 512), "samples": 16},
        },
        expected="finding",
        command="transformer-theory experiment dyck_k",
    ),
    Row(
        id="formal_languages.shuffle_dyck",
        paper=PAPER,
        place=f"{_SLIDE}, lower bounds, row SHUFFLE-DYCK-k",
        printed=_SHUFFLE,
        statement=(
            "For k = 1, 2, 3, Bhattamishra et al.'s mechanism as the library's model "
            "(counter_recognizer(counters.shuffle_dyck(k)): one causal softmax layer, W_QK = 0, a "
            "ReLU MLP, an output per next symbol and for the end at every position) in rationals "
            "(counters.exact_check): each output exactly 1/(2n) where the machine's guards allow "
            "the symbol and <= -1/(2n) where not, and acceptance by the next-character convention "
            "= membership (per-type depths)"
        ),
        domain=Exists(
            "a softmax transformer with a future mask and no PE recognizing SHUFFLE-DYCK-k (the "
            "library's: counter_recognizer)",
            domains.SHUFFLE_DYCK_STRINGS,
        ),
        check=functools.partial(
            _checks_counters.counter_languages, statement=domains.SHUFFLE_DYCK_STRINGS
        ),
        judge=_COUNTER_JUDGE,
        sizes=_counter_sizes(_COUNTERS[:3], (6, 4, 3), (14, 7, 6)),
        expected="bounded",
        command=_ID_CMD.format("shuffle_dyck"),
        note=(
            "The outputs are compared with the machine's guards; that they are the TRUE "
            "continuation sets is formal_languages.counter_continuations. The exact pass is "
            "counters.ExactCounterModel (rationals, prefix by prefix), not exact.evaluate."
        ),
    ),
    Row(
        id="formal_languages.shuffle_dyck_float64",
        paper=PAPER,
        place=f"{_SLIDE}, row SHUFFLE-DYCK-k (the margins in float64)",
        statement=(
            "SHUFFLE-DYCK-2's recognizer in float64 (core.forward_all): every string right and "
            "every output within the hand-derived 2 (4G + 1)(n + 5) u (G = 2) of the exact one, "
            "at the lengths run"
        ),
        domain=domains.SHUFFLE_DYCK_2_STRINGS,
        check=functools.partial(_checks_counters.counter_float, "float64"),
        judge=(
            judges.all_of(
                judges.exactly("misclassified", 0),
                judges.at_most("error_over_tolerance", 1),
                figure="checked to n = {n_checked_max}: {misclassified} misclassified, largest "
                "error {error_over_tolerance} x tolerance ({error_over_smallest_margin} x the "
                "smallest margin 1/(2n)); the rounding model PREDICTS right signs to n = "
                "{predicted_sign_safe_n} (unchecked)",
            )
        ),
        sizes={
            "quick": {"lengths": (64,), "samples": 6},
            "full": {"lengths": (64, 256, 1024, 2048), "samples": 6},
        },
        expected="finding",
        command=_ID_CMD.format("shuffle_dyck_float64"),
        note=(
            "Only the lengths run are checked. The sign-safe n is a prediction of the "
            "hand-derived rounding model 2 (4G + 1)(n + 5) u < 1/(2n), which nothing checks "
            "beyond those lengths; it is no guarantee."
        ),
    ),
    Row(
        id="formal_languages.shuffle_dyck_float32",
        paper=PAPER,
        place=f"{_SLIDE}, row SHUFFLE-DYCK-k (the margins in float32)",
        statement=(
            "The same in float32: every string right and every output within the hand-derived "
            "tolerance at the lengths run; the error against the smallest margin 1/(2n) reported"
        ),
        domain=domains.SHUFFLE_DYCK_2_STRINGS,
        check=functools.partial(_checks_counters.counter_float, "float32"),
        judge=(
            judges.all_of(
                judges.exactly("misclassified", 0),
                judges.at_most("error_over_tolerance", 1),
                figure="checked to n = {n_checked_max}: {misclassified} misclassified, largest "
                "error {error_over_tolerance} x tolerance ({error_over_smallest_margin} x 1/(2n)); "
                "the rounding model predicts right signs to n = {predicted_sign_safe_n} "
                "(unchecked)",
            )
        ),
        sizes={
            "quick": {"lengths": (64,), "samples": 6},
            "full": {"lengths": (64, 256, 1024, 2048), "samples": 6},
        },
        expected="finding",
        command=_ID_CMD.format("shuffle_dyck_float32"),
    ),
    Row(
        id="formal_languages.sscm_anbn",
        paper=PAPER,
        place=f"{_SLIDE}, lower bounds, row SSCMs (one counter language: a^n b^n)",
        statement=(
            "a^n b^n as the library's machine counters.anbn (counters #a - #b and #b) through the "
            "same counter layer, in rationals (counters.exact_check): outputs exactly +-1/(2n) as "
            "the guards say, acceptance = the block pattern; samples: the member and near misses"
        ),
        domain=domains.ANBN_STRINGS,
        check=functools.partial(_checks_counters.counter_languages, statement=domains.ANBN_STRINGS),
        judge=(_COUNTER_JUDGE),
        sizes=_counter_sizes(("anbn",), (10,), (14,)),
        expected="finding",
        command=_ID_CMD.format("sscm_anbn"),
        note=(
            "The machine is the library's; the table's row is about the class "
            "(formal_languages.sscm)."
        ),
    ),
    Row(
        id="formal_languages.sscm_anbncn",
        paper=PAPER,
        place=f"{_SLIDE}, lower bounds, row SSCMs (one counter language: a^n b^n c^n)",
        statement=(
            "a^n b^n c^n as the library's machine counters.anbncn (counters #a - #b, #b - #c, "
            "#b + #c, #c) through the same counter layer, in rationals: outputs exactly +-1/(2n) "
            "as the guards say, and ACCEPTANCE = the block pattern (the per-position sets are "
            "not the continuation sets: formal_languages.sscm_anbncn_continuations)"
        ),
        domain=domains.ANBNCN_STRINGS,
        check=functools.partial(
            _checks_counters.counter_languages, statement=domains.ANBNCN_STRINGS
        ),
        judge=(_COUNTER_JUDGE),
        sizes=_ANBNCN_SIZES,
        expected="finding",
        command=_ID_CMD.format("sscm_anbncn"),
    ),
    Row(
        id="formal_languages.sscm_boolexp",
        paper=PAPER,
        place=f"{_SLIDE}, lower bounds, row SSCMs (n-ary Boolean expressions)",
        statement=(
            "BoolExp-3 in prefix notation (counters.boolexp(3): operands 0, 1 and one operator "
            "of each arity 1-3, the library's alphabet; one counter, the expressions still "
            "needed) through the same counter layer, in rationals: outputs exactly +-1/(2n) as "
            "the guards say, acceptance = a recursive-descent parse"
        ),
        domain=domains.BOOLEXP_STRINGS,
        check=functools.partial(
            _checks_counters.counter_languages, statement=domains.BOOLEXP_STRINGS
        ),
        judge=(_COUNTER_JUDGE),
        sizes=_counter_sizes(("boolexp_3",), (4,), (6,)),
        expected="finding",
        command=_ID_CMD.format("sscm_boolexp"),
    ),
    Row(
        id="formal_languages.counter_continuations",
        paper=PAPER,
        place=f"{_SLIDE}, rows SHUFFLE-DYCK-k and SSCMs (the next-character outputs)",
        statement=(
            "For SHUFFLE-DYCK-1..3, a^n b^n and BoolExp-3, the counter recognizer's next-symbol "
            "set {s : o_s > 0} (arb balls, exact.evaluate) equals the TRUE continuation set (the "
            "symbols a with prefix + a a prefix of a member, and the end iff the prefix is a "
            "member; decided from the languages' definitions, not the machines) at every prefix "
            "of a member"
        ),
        domain=domains.COUNTER_PREFIXES,
        check=_checks_counters.continuations,
        judge=(
            judges.exactly(
                "disagreements",
                0,
                figure="{disagreements} of {prefixes} prefixes differ; by language {by_language}",
            )
        ),
        sizes={
            "quick": {"languages": _COUNTERS, "max_lengths": (6, 4, 2, 6, 3)},
            "full": {"languages": _COUNTERS, "max_lengths": (12, 7, 5, 16, 5)},
        },
        expected="finding",
        command=_ID_CMD.format("counter_continuations"),
        note=(
            "Prefixes that left the language (continuation set empty) are not compared: there "
            "the outputs still follow the counters, and the convention never reads them."
        ),
    ),
    Row(
        id="formal_languages.sscm_anbncn_continuations",
        paper=PAPER,
        place=f"{_SLIDE}, row SSCMs (the next-character outputs for a^n b^n c^n)",
        statement=(
            "For a^n b^n c^n the counter recognizer's next-symbol sets are NOT the continuation "
            "sets: at a prefix of a member the model allows a symbol no member continues with "
            "(after a^i b^j, 0 < j < i, it allows c); acceptance is still right "
            "(formal_languages.sscm_anbncn), because the string is rejected later"
        ),
        domain=Exists(
            "a prefix of a member at which the recognizer allows a symbol no member continues with",
            domains.ANBNCN_RECOGNIZER,
        ),
        check=_checks_counters.anbncn_continuations,
        judge=judges.true(
            "differs",
            figure="{disagreements} of {prefixes} prefixes differ; first witness {witness}",
        ),
        sizes={
            "quick": {"languages": ("anbncn",), "max_lengths": (4,)},
            "full": {"languages": ("anbncn",), "max_lengths": (12,)},
        },
        expected="finding",
        command=_ID_CMD.format("sscm_anbncn_continuations"),
        note="A per-position guard on #a - #b = 0 before c would make the sets right.",
    ),
    open_claim(
        "formal_languages.sscm",
        PAPER,
        f"{_SLIDE}, lower bounds, row SSCMs",
        _SSCM,
        "a class of machines, not one language: counter_recognizer builds the recognizer of any "
        "machine given as data, but only the instances SHUFFLE-DYCK-1..3, BoolExp-3, a^n b^n and "
        "a^n b^n c^n are checked (formal_languages.shuffle_dyck, .sscm_boolexp, .sscm_anbn, "
        ".sscm_anbncn); the guards are the library's reading of the machines' zero checks",
    ),
    open_claim(
        "formal_languages.class_p",
        PAPER,
        f"{_SLIDE}, rows '⊇ P' (Pérez et al. 2021) and '= P' (Merrill & Sabharwal 2024)",
        "⊇ P | Pérez et al. 2021 | $i, 1/i, 1/i^2$ | average-hard | poly(n) steps / "
        "= P | Merrill & Sabharwal 2024 | none | average-hard, future mask | poly(n) steps",
        "a class of languages, not one: nothing to check exhaustively; intermediate steps "
        "(chain of thought) are not built",
    ),
    open_claim(
        "formal_languages.class_re",
        PAPER,
        f"{_SLIDE}, equivalences, row '= RE'",
        "= RE | Pérez et al. 2021 | $i, 1/i, 1/i^2$ | average-hard | unbounded steps",
        "a class of languages with unbounded decoding steps and unbounded precision: no finite "
        "check",
    ),
    open_claim(
        "formal_languages.fo_mon",
        PAPER,
        f"{_SLIDE}, lower bounds, row '⊇ FO[Mon]'",
        "⊇ FO[Mon] | Barceló et al. 2024 | arbitrary | leftmost-hard",
        "a class of languages (first-order logic with monadic numerical predicates): nothing to "
        "check exhaustively",
    ),
    open_claim(
        "formal_languages.ltl_c_mon",
        PAPER,
        f"{_SLIDE}, lower bounds, row '⊇ LTL+C[Mon]'",
        "⊇ LTL+C[Mon] | Barceló et al. 2024 | arbitrary | average-hard",
        "a class of languages (temporal logic with counting): nothing to check exhaustively; "
        "MAJORITY, one of its languages, is built (formal_languages.majority)",
    ),
    open_claim(
        "formal_languages.foc_mod",
        PAPER,
        f"{_SLIDE}, rows '⊋ FOC[MOD; +]' (lower bounds) and '⊆ FOC[MOD; +]' (upper bounds)",
        "⊋ FOC[MOD; +] | Chiang et al. 2023 | sinusoidal | softmax / "
        "⊆ FOC[MOD; +] | Chiang et al. 2023 | O(1) | softmax",
        "a class of languages, and a bound over every fixed-precision model: no finite check",
    ),
    open_claim(
        "formal_languages.angluin_fo",
        PAPER,
        f"{_SLIDE}, equivalences, rows '= FO', '= FO[MOD]', '= FO[Mon]'",
        "= FO | Angluin et al. 2023 | none | rightmost-hard, strict future mask / "
        "= FO[MOD] | Angluin et al. 2023 | sinusoidal | rightmost-hard, strict future mask / "
        "= FO[Mon] | Angluin et al. 2023 | arbitrary | rightmost-hard, strict future mask",
        "classes of languages (equivalences with logics): nothing to check exhaustively; "
        "rightmost-hard attention with a strict mask is not among the library's kinds",
    ),
    open_claim(
        "formal_languages.ac0",
        PAPER,
        f"{_SLIDE}, upper bounds, row '⊆ AC^0'; the slide's main result",
        "$\\subseteq AC^0$ | Hao et al. 2022 | Q | leftmost-hard",
        "an upper bound over every model (a circuit simulation): no finite check can show it",
    ),
    open_claim(
        "formal_languages.tc0",
        PAPER,
        f"{_SLIDE}, upper bounds, rows '⊆ TC^0', '⊆ L-uniform TC^0', '⊆ FOM[BIT]'",
        "⊆ TC <sup>0</sup> | Merrill et al. 2022 | F | average-hard / "
        "⊆ L-uniform TC <sup>0</sup> | Merrill & Sabharwal 2023a | $O(\\log n)$ | softmax / "
        "⊆ FOM[BIT] | Merrill & Sabharwal 2023b | $O(\\log n)$ | softmax / "
        "⊆ L-uniform TC <sup>0</sup> | Strobl 2023 | F | average-hard",
        "upper bounds over every model (circuit simulations): no finite check can show them",
    ),
]
