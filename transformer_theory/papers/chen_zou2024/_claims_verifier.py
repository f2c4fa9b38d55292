"""Chen & Zou 2024's claims about what one layer cannot do, as ledger rows: Definitions 2-3,
Lemma 6, Propositions 7-10 on the verifier's models, the scope controls and the affine form (the
library's), Theorems 2 and 4 as exact certificates and accuracy bounds, §16's multi-head case.

A table of :class:`~transformer_theory.ledger.Row`; the checks live in :mod:`._checks_verifier`
(Props. 7-10 through :func:`transformer_theory.exact.evaluate` in arb balls). Printed words are
the paper's converted text verbatim, LaTeX and all; Definitions 2-3's quotes drop its markup and
write ``(+)``, ``sum``, ``lambda`` for its symbols, the transliteration tests/test_quotes.py maps.
"""

from __future__ import annotations

import functools

from transformer_theory.claims import judges
from transformer_theory.ledger import Row, open_claim
from transformer_theory.papers.chen_zou2024 import _checks_verifier as vc
from transformer_theory.papers.chen_zou2024 import _domains as domains

__all__ = ["CLAIMS"]

PAPER = "Chen & Zou 2024"

_PROP_SIZES = {
    "quick": {"datasets": ("toy",), "models": 2, "families": vc.QUICK_PROP_FAMILIES},
    "full": {"datasets": ("toy", "icqa", "templates"), "models": 4, "families": "all"},
}
_VERIFY_SIZES = {
    "quick": {"datasets": ("toy",), "models": 2, "families": vc.QUICK_CONTROL_FAMILIES},
    "full": {"datasets": ("toy", "icqa", "templates"), "models": 4, "families": "all"},
}

_PRINTED = {
    "7": (
        "§11, Proposition 7",
        r"If the input sequences \(\mathbf{X}^{(0)},\mathbf{X}^{(1)},\dots, \mathbf{X}^{(N-1)} \in"
        r" \mathcal{X}^n\) are dependent, then for the first attention layer \(\texttt{TF}_1\) for"
        r" any attention only transformer, we have \[\lambda_0 "
        r"(\texttt{TF}_1(\mathbf{X}^{(0)})[n-1]) + \lambda_1 "
        r"(\texttt{TF}_1(\mathbf{X}^{(1)})[n-1]) + \dots + \lambda_{N-1} "
        r"(\texttt{TF}_1(\mathbf{X}^{(N-1)})[n-1]) = \mathbf{0}.\]",
    ),
    "8": (
        "§11, Proposition 8",
        r"If the input sequences \(\mathbf{X}^{(0)},\mathbf{X}^{(1)},\dots, \mathbf{X}^{(N-1)} \in"
        r" \mathcal{X}^n\) are dependent, then for any single layer transformer \(\texttt{TF}\), "
        r"their prediction result \(\mathbf{o}^{(0)},\dots,\mathbf{o}^{(N-1)}\) \[\lambda_0 "
        r"\mathbf{o}^{(0)} + \lambda_1 \mathbf{o}^{(1)} + \dots + \lambda_{N-1} \mathbf{o}^{(N-1)}"
        r" = \mathbf{0}.\]",
    ),
    "9": (
        "§16, Proposition 9",
        r"If the input sequences \(\mathbf{X}^{(0)},\mathbf{X}^{(1)},\dots, \mathbf{X}^{(N-1)} \in"
        r" \mathcal{X}^n\) are dependent, then for any single layer single head transformer with "
        r"softmax attention \(\texttt{TF}_{\text{soft}}\), we have \[\lambda'_0 "
        r"(\texttt{TF}_{\text{soft}}(\mathbf{X}^{(0)})[n-1]) + \lambda'_1 "
        r"(\texttt{TF}_{\text{soft}}(\mathbf{X}^{(1)})[n-1]) + \dots + \lambda'_{N-1} "
        r"(\texttt{TF}_{\text{soft}}(\mathbf{X}^{(N-1)})[n-1]) = \mathbf{0}.\] where \(\lambda'_i "
        r"= \sum_{j=0}^{n-1}\sigma'(\mathbf{x}^{(i)}_j,\mathbf{x}_{n-1}) \lambda_i\)",
    ),
    "10": (
        "§16, Proposition 10",
        r"If the input sequences \(\mathbf{X}^{(0)},\mathbf{X}^{(1)},\dots, \mathbf{X}^{(N-1)} \in"
        r" \mathcal{X}^n\) are dependent, then for any single layer single head softmax "
        r"transformer \(\texttt{TF}_{\text{soft}}\), their prediction result "
        r"\(\mathbf{o}^{(0)},\dots,\mathbf{o}^{(N-1)}\) \[\lambda'_0 \mathbf{o}^{(0)} + \lambda'_1"
        r" \mathbf{o}^{(1)} + \dots + \lambda'_{N-1} \mathbf{o}^{(N-1)} = \mathbf{0}.\] where "
        r"\(\lambda'_i = \sum_{j=0}^{n-1}\sigma'(\mathbf{x}^{(i)}_j,\mathbf{x}_{n-1}) \lambda_i\)",
    ),
}
_THEOREM2 = (
    r"Then for any transformer with \(L = 1\) attention layer, no matter how many heads are "
    r"applied, there exists at least one data point "
    r"\((\mathbf{E}_{\texttt{IC-QA}}^{(\pi,\pi')}(c), \mathbf{a}_{\pi_c'})\in "
    r"\mathcal{D}_{\texttt{IC-QA}}^{(k)}\) such that "
    r"\(\texttt{TF}\big(\mathbf{E}_{\texttt{IC-QA}}^{(\pi,\pi')}(c)\big)\neq "
    r"\mathbf{a}_{\pi_c'}\)."
)
_THEOREM4 = (
    r"Then for any transformer with \(L = 1\) attention layer, no matter how many heads are "
    r"applied, there exists at least one data \((\texttt{sub}(\boldsymbol{t},s), y)\in "
    r"\mathcal{D}_{\texttt{TM}}\), generated via a template \(\boldsymbol{t}\) and a mapping "
    r"\(s\), such that \(\texttt{TF}(\texttt{sub}(\boldsymbol{t},s))\neq y\)."
)


def _prop_row(prop: str) -> Row:
    place, printed = _PRINTED[prop]
    target = "the first layer's stream at n-1" if prop in ("7", "9") else "the logits at n-1"
    weight = ", each weighted by its model's Z_i enclosed in balls" if prop in ("9", "10") else ""
    return Row(
        id=f"chen_zou2024.prop{prop}",
        paper=PAPER,
        place=place,
        statement=(
            f"On verify's random models (seed 0) of every family in scope of Prop. {prop} "
            f"(checks.FAMILIES), {target} on every sequence of every dependent set of the "
            "datasets (paper example, exact basis, Lemma 6 pairs, random sets), evaluated by "
            "exact.evaluate in 256-bit arb balls: the residual sum_i lambda_i t_i"
            f"{weight} contains 0 and lies within {vc.CERTIFY_BOUND:g} in every coordinate"
        ),
        domain=domains.PROPOSITIONS[prop],
        check=functools.partial(vc.proposition, prop),
        judge=judges.true(
            "supported",
            figure="{model_set_pairs} model-set residuals in balls, all <= "
            "{max_residual_upper_bound} ({exactly_zero} exactly 0)",
        ),
        sizes=_PROP_SIZES,
        expected="verified",
        printed=printed,
        note=(
            "Random models drawn by verify, not every model: each residual is enclosed "
            "rigorously, but the proposition (for any transformer) is verified on samples, not "
            "certified. A ball excluding 0 would refute it."
        ),
    )


CLAIMS: list[Row] = [
    Row(
        id="chen_zou2024.definition2",
        paper=PAPER,
        place="§11, Definition 2 and the example after Definition 3",
        statement=(
            "The per-position token multisets of the two sides of the paper's example (lambda = "
            "(1, 1, -1, -1)) are equal (python integers), is_dependence agrees, and lambda = "
            "(1, -1, 1, -1) is rejected"
        ),
        domain=domains.DEFINITION2,
        check=vc.definition2,
        judge=judges.true(
            "holds",
            figure="per-position multisets equal: {printed_multisets_equal}; is_dependence: "
            "{is_dependence}; (1,-1,1,-1) rejected: {non_dependence_rejected}",
        ),
        sizes={"quick": {}},
        expected="proved",
        printed=(
            "the sequences (a,b,r), (b,a,r), (a,a,r), (b,b,r) are dependent. This is because "
            "(a,b,r) (+) (b,a,r) = ([a,b],[a,b],[r,r]) = (a,a,r) (+) (b,b,r)."
        ),
    ),
    Row(
        id="chen_zou2024.definition3_basis",
        paper=PAPER,
        place="§11, Definition 3 and its example",
        statement=(
            "dependence.dependence_basis (HNF + LLL, flint integers) of every maximal group of "
            "sequences (all V^(n-1) sequences of length n over V tokens ending in one token; "
            "every set sharing its last token lies in one, so its dependences are in the "
            "group's lattice): every basis row balances every position (recomputed in python "
            "integers) and has sum lambda = 0, and the basis has B - rank(C) rows (exact rank), "
            "so every dependence there has sum lambda = 0"
        ),
        domain=domains.SEQUENCE_GROUPS,
        check=vc.definition3,
        judge=judges.true(
            "holds",
            figure="{basis_rows} basis dependences over {sequences} sequences; failing groups: "
            "{failures}; counterexample: {counterexample}",
        ),
        sizes={"quick": {"upto": 6}, "full": {"upto": 8}},
        expected="bounded",
        printed=(
            "Additionally, we can observe that sum_{i=0}^{N-1} lambda_i = 0 since both sides of "
            "5 should have the same number of discrete tokens in each position."
        ),
        note="Every V + n up to the bound only; the sentence is for every dependence.",
    ),
    Row(
        id="chen_zou2024.lemma6_template_pairs",
        paper=PAPER,
        place="§14.1, Lemma 6",
        statement=(
            "dependence.template_pair_sets on every pair of different templates of length l "
            "over an alphabet of A symbols (both with at most A wildcards), every A + l up to a "
            "bound: each set (the substitutions of t weighted n^(t'), those of t' weighted "
            "-n^(t): the proof's lambda, lambda' > 0) is a dependence, checked in integers"
        ),
        domain=domains.LEMMA6,
        check=vc.lemma6,
        judge=judges.true(
            "holds", figure="{dependent} of {pair_sets} template-pair sets dependent"
        ),
        sizes={"quick": {"upto": 6}, "full": {"upto": 8}},
        expected="bounded",
        printed=(
            r"Given any two different templates \(\mathbf{t},\mathbf{t}'\), and all possible "
            r"sequences generated \(\mathcal{D}_{\texttt{tmpl}}^{(\mathbf{t})} = \{ "
            r"\mathbf{X}_0,\dots,\mathbf{X}_{n^{(\mathbf{t})}-1} \}\), "
            r"\(\mathcal{D}_{\texttt{tmpl}}^{(\mathbf{t}')} = \{ "
            r"\mathbf{X}'_0,\dots,\mathbf{X}'_{n^{(\mathbf{t}')}-1} \}\), there exist "
            r"\(\lambda,\lambda' \in \mathbb{Z}_{+}\) such that the combined occurrence of each "
            r"token at each position in \(\mathcal{D}_{\texttt{tmpl}}^{(\mathbf{t})}\) is equal to"
            r" the combined occurrence of each token at each position in "
            r"\(\mathcal{D}_{\texttt{tmpl}}^{(\mathbf{t}')}\)"
        ),
        note="Every A + l up to the bound only; lambda is the proof's (a failure would be the "
        "library's candidate failing, not the lemma).",
    ),
    *(_prop_row(p) for p in ("7", "8", "9", "10")),
    Row(
        id="chen_zou2024.scope_controls",
        paper=PAPER,
        place="§11 and §16 (the premises of Propositions 7-10)",
        statement=(
            "The premises matter: outside them the relations fail. suite.run_checks (float64) on "
            "the controls (plain lambda for softmax, two layers, an MLP, a final LayerNorm, three "
            "softmax heads, as the families chosen allow): every control's max relative residual "
            "exceeds its tolerance"
        ),
        domain=domains.CONTROLS,
        check=vc.scope_controls,
        judge=(
            judges.true(
                "controls_fail",
                figure="{failing_controls} of {controls} controls fail: residual "
                "{control_residual_min} .. {control_residual_max} (smallest "
                "{smallest_residual_over_tolerance} x tolerance)",
            )
        ),
        sizes=_VERIFY_SIZES,
        expected="finding",
        command="transformer-theory verify",
        note="The paper states the propositions with their premises; that each premise is "
        "needed is the library's finding (float64 residuals against a heuristic tolerance).",
    ),
    Row(
        id="chen_zou2024.affine_form",
        paper=PAPER,
        place="§11, Proposition 7 (the library's strengthening)",
        statement=(
            "In scope, w_i t_i = a + M c_i for every sequence (c_i its flattened one-hot, w_i = 1 "
            "for ReLU, Z_i for one softmax head): suite.run_checks' least-squares fit over each "
            "whole dataset (exact integer Gram counts, rational solve), relative residual within "
            "the heuristic tolerance"
        ),
        domain=domains.AFFINE,
        check=vc.affine_form,
        judge=(
            judges.true(
                "holds",
                figure="{verdicts} in-scope fits, largest residual {max_residual} against the "
                "smallest tolerance {smallest_tolerance}; failures: {failures}",
            )
        ),
        sizes=_VERIFY_SIZES,
        expected="finding",
        command="transformer-theory verify",
        note="float64 against a heuristic tolerance, on random models: not a rigorous bound.",
    ),
    Row(
        id="chen_zou2024.theorem2_toy",
        paper=PAPER,
        place="§5, Theorem 2 (proved in §13.1 on one designed dataset)",
        statement=(
            "On the four sequences (a,b,r), (b,a,r), (a,a,r), (b,b,r) labelled 0, 0, 1, 1 no "
            "one-layer ReLU model (any heads) and no one-layer single-head softmax model is right "
            "on all four: Farkas certificates of the linear relaxation re-verified in rationals"
        ),
        domain=domains.THEOREM2,
        check=vc.theorem2_toy,
        judge=judges.true("impossible", figure="exact certificates (impossible): {families}"),
        sizes={"quick": {}},
        expected="example",
        printed=_THEOREM2,
        note="One designed dataset of a statement about every in-context QA dataset (every weight "
        "of both families covered by the certificate); the softmax family is one head: several "
        "softmax heads are §16's open question.",
    ),
    Row(
        id="chen_zou2024.theorem2_accuracy",
        paper=PAPER,
        place="§13.1, Theorem 2's proof (the toy set D_toy-icl)",
        statement=(
            "No one-layer model (ReLU any heads; one softmax head) classifies D_toy-icl (exact "
            "certificates), and at most 3 of its 4 examples are right "
            "(accuracy_upper_bound(method='exact'))"
        ),
        domain=domains.ONE_LAYER,
        check=vc.theorem2_accuracy,
        judge=(
            judges.all_of(
                judges.true("impossible"),
                judges.exactly("max_correct", 3),
                figure="exact certificates (impossible): {certificates}; at most {bound} correct",
            )
        ),
        sizes={"quick": {}},
        expected="finding",
        note="The paper proves impossibility; the bound 3/4 is the library's.",
    ),
    Row(
        id="chen_zou2024.theorem4_templates",
        paper=PAPER,
        place="§14.1, Theorem 4",
        statement=(
            "TemplateMatching(A, (t, t')), all its sequences, for every pair of different "
            "templates of every A + l up to a bound (a dataset with two templates or more "
            "contains such a pair): no one-layer ReLU model (any heads) and no single-head "
            "softmax model classifies it (Farkas certificates re-verified in rationals)"
        ),
        domain=domains.THEOREM4,
        check=vc.theorem4_templates,
        judge=judges.true(
            "impossible",
            figure="exact certificates on {certified_pairs} of {pairs} template pairs (both "
            "families); failing: {failing}",
        ),
        sizes={"quick": {"upto": 5}, "full": {"upto": 6}},
        expected="bounded",
        printed=_THEOREM4,
        note="Every A + l up to the bound only.",
    ),
    Row(
        id="chen_zou2024.icqa_accuracy_bound",
        paper=PAPER,
        place="§5, Theorem 2 on a whole in-context QA dataset",
        statement=(
            "InContextQA(3, 3, 2), all 72 sequences: both families impossible (exact "
            "certificates) and at most 54 of 72 right (accuracy_upper_bound with the method "
            "given)"
        ),
        domain=domains.ONE_LAYER,
        check=vc.icqa_whole,
        judge=(
            judges.all_of(
                judges.true("impossible"),
                judges.exactly("max_correct", 54),
                figure="exact certificates (impossible): {certificates}; at most {bound} "
                "correct ({method})",
            )
        ),
        sizes={"quick": {"method": "sound"}, "full": {"method": "exact"}},
        expected="finding",
        command="transformer-theory verify",
        note="The paper proves impossibility (chen_zou2024.theorem2_toy); the bound is the "
        "library's.",
    ),
    Row(
        id="chen_zou2024.section16_multihead",
        paper=PAPER,
        place="§5, after Theorem 2 (the multi-head softmax case)",
        statement=(
            "One softmax layer with two heads classifies all 4 sequences of Theorem 2's toy set: "
            "witness.search_witness (verify's key) finds a model, and its margin on each example, "
            "enclosed by exact.margins in 256-bit balls, lies above 0"
        ),
        domain=domains.SECTION16,
        check=vc.section16_multihead,
        judge=judges.true(
            "witness_found", figure="witness: {witness}, every margin >= {min_margin_lower} (balls)"
        ),
        sizes={
            "quick": {"heads": 2, "steps": 300, "restarts": 4},
            "full": {"heads": [2, 4], "steps": 300, "restarts": 4},
        },
        expected="finding",
        note=(
            "The paper leaves the multi-head softmax case open ('extending to multiple head case "
            "is left for future study'): whether one layer with several softmax heads can perform "
            "the reasoning task. This answers it on the 4-sequence toy set only; it refutes "
            "nothing, and says nothing of the whole task (chen_zou2024.section16_open_question)."
        ),
    ),
    Row(
        id="chen_zou2024.witness_scope",
        paper=PAPER,
        place="§13.1, Theorem 2 (its scope: one attention layer)",
        statement=(
            "Theorem 2's scope is tight on its toy set: witness.search_witness (verify's keys) "
            "finds a model classifying all 4 examples for each out-of-scope family searched "
            "(one ReLU layer + MLP; full: also two ReLU layers), and none for one softmax head "
            "(full tier, in scope); float64 margins above 1e-8 max(1, |o|)"
        ),
        domain=domains.WITNESS_SCOPE,
        check=vc.witness_scope,
        judge=(
            judges.true(
                "tight",
                figure="out-of-scope witnesses found: {out_of_scope_found}, margin >= "
                "{min_margin_over_tolerance} x tolerance; in-scope witnesses: "
                "{in_scope_witnesses}",
            )
        ),
        sizes={
            "quick": {"indices": 3, "steps": 300, "restarts": 4},
            "full": {"indices": [0, 3, 4], "steps": 300, "restarts": 4},
        },
        expected="finding",
        note="float64 witnesses (MLP layers are out of the enclosed margin's reach here); a "
        "failed in-scope search proves nothing by itself (Theorem 2's certificates do).",
    ),
    open_claim(
        id="chen_zou2024.affine_form_10m",
        paper=PAPER,
        place="§11, Propositions 7-8 at scale (the library's 10^7 run)",
        printed=None,
        statement=(
            "The affine form holds on all 11,289,600 sequences of in-context QA(8, 8, 4) for 2 "
            "ReLU models with 3 heads (README: residual 2.9e-13 <= 1.6e-11)"
        ),
        reason=(
            "not re-run by the ledger: experiments/verify_10m.py takes 26-28 s on an idle machine "
            "(minutes under load) and commits no results file to read; the same check on the "
            "verify datasets is chen_zou2024.affine_form"
        ),
        command=(
            "python experiments/verify_10m.py --n-q 8 --n-a 8 --k 4 --models 2 --family relu-3h"
        ),
        domain=domains.AFFINE,
    ),
    open_claim(
        id="chen_zou2024.section16_open_question",
        paper=PAPER,
        place="§5, after Theorem 2",
        printed=(
            "Moreover, we claim that 2 is not limited to the ReLU attention, but can also apply "
            "to softmax attention when using single head in16 (extending to multiple head case "
            "is left for future study)."
        ),
        reason=(
            "a statement about every size of the task, not one dataset: the library shows only "
            "that Prop. 10's argument does not carry over (softmax-3h breaks the relation, "
            "chen_zou2024.scope_controls) and that 2 softmax heads classify the 4-sequence toy set "
            "(chen_zou2024.section16_multihead); no certificate or construction covers the whole "
            "in-context QA task for several heads"
        ),
        command="transformer-theory verify",
        domain=domains.SECTION16_OPEN,
    ),
]
