"""The constructions against the verifier (Chen & Zou 2024, §11 Prop. 7-8, ``theory.checks``).

Prop. 7: for one attention layer and dependent sequences (``sum_i lambda_i X_i = 0`` position-wise),
``sum_i lambda_i TF_1(X_i)[n-1] = 0``. So the one-layer Theorem 1 model keeps the relation in its
stream and its logits, and the FIRST layer of every deeper construction keeps it in its stream;
the two- and three-layer models as a whole must break it in their logits (otherwise they could not
answer the dependent examples, which carry different labels: Theorems 2 and 4).

Tolerance: ``checks.set_tolerance`` = ``16 eps (D + N + C)`` (derived in that module); "broken"
means a relative residual above 1e-3, eleven orders of magnitude above it.
"""

import numpy as np
import pytest

from transformer_theory.constructions import theorem1, theorem3, theorem5, theorem6
from transformer_theory.params import stack_params
from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    SequenceClassification,
    TemplateMatching,
    all_templates,
)
from transformer_theory.theory import checks
from transformer_theory.theory import dependence as dep

BROKEN = 1e-3


def _residuals(params, sets, target):
    tok, lam = dep.stack_sets(sets)
    return checks.set_residuals(stack_params([params]), tok, lam, target=target)[0]


def test_theorem1_one_layer_keeps_prop7_and_prop8():
    task = SequenceClassification(2, 3, 8)  # all 2^3 sequences: 4 independent relations
    params = theorem1(task)
    tokens, labels = map(np.asarray, task.all())
    sets = dep.basis_sets(tokens, task.vocab_size, labels_B=labels)
    assert len(sets) == 4
    tol = checks.set_tolerance(np.float64, params.config)
    for target in ("stream1", "logits"):
        assert _residuals(params, sets, target).max() <= tol, target
    affine = checks.affine_residuals(stack_params([params]), tokens)
    assert affine.residual_M[0] <= checks.affine_tolerance(
        np.float64, params.config, affine.rank, affine.num_chunks
    )


def _icqa_case():
    return theorem3(InContextQA(3, 3, 2)), dep.icqa_example_sets(3, 3, 2, num_sets=4, seed=1)


def _template_case(version):
    tm = TemplateMatching(4, all_templates(3))
    return theorem5(tm, version=version), dep.template_pair_sets(4, tm.templates)


def _ictm_case():
    ic = InContextTemplateMatching(2, 2, all_templates(2), 2)
    tokens, labels = map(np.asarray, ic.all())
    return theorem6(ic), dep.basis_sets(tokens, ic.vocab_size, labels_B=labels)


DEEP = {
    "theorem3": _icqa_case,
    "theorem5-single": lambda: _template_case("single"),
    "theorem5-multi": lambda: _template_case("multi"),
    "theorem6": _ictm_case,
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_first_layer_keeps_prop7_whole_model_breaks_it(name):
    params, sets = DEEP[name]()
    assert sets and params.config.depth >= 2
    tol = checks.set_tolerance(np.float64, params.config)
    assert _residuals(params, sets, "stream1").max() <= tol
    assert _residuals(params, sets, "logits").max() > BROKEN
