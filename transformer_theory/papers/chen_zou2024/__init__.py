"""Chen & Zou 2024, "What Can Transformer Learn with Varying Depth?": the paper's folder.

The spine of the library is this paper's pipeline (:mod:`transformer_theory.tasks`,
:mod:`transformer_theory.constructions`, :mod:`transformer_theory.theory`); this face re-exports
the names a reader of the paper calls, by statement:

- §4's four tasks: :class:`SequenceClassification` (memorization), :class:`InContextQA`
  (reasoning), :class:`TemplateMatching` (generalization, Definition 1),
  :class:`InContextTemplateMatching` (contextual generalization).
- Definitions 2-3 (dependent sequences): :func:`is_dependence` checks a given ``lambda`` in
  integers, :func:`dependence_basis` finds every one exactly.
- Propositions 7-10 (a dependence cancels one layer's outputs, ReLU / one softmax head):
  :func:`check_family` on a batch of models, :func:`affine_residuals` for the stronger affine
  form on a whole dataset (``transformer-theory verify``).
- Theorems 2 and 4 (one layer cannot): :func:`certify_dataset` (an exact Farkas certificate that
  no one-layer model classifies a dataset) and :func:`accuracy_upper_bound` (the 3/4 bound);
  §16's open multi-head case: :func:`search_witness` (a model found, verified in float64).
- Theorems 1, 3, 5, 6 (what depth can): :func:`theorem1`, :func:`theorem3`, :func:`theorem5`,
  :func:`theorem6` build the constructions (Lemmas 1-4 inside), :func:`check_construction`
  evaluates one on every input (``transformer-theory construct``).
- Figures 2-7 (trained depth experiments): :mod:`.experiments` (one module per figure, trained by
  :mod:`transformer_theory.sweeps`; ``transformer-theory train --experiment NAME``).

Role modules (private):

- :mod:`._checks_verifier` / :mod:`._checks_construction`: the checks of the ledger rows, each
  returning a :class:`~transformer_theory.ledger.Checked`;
- :mod:`._claims_verifier` / :mod:`._claims_construction`: the rows (one layer cannot: Definitions
  2-3, Propositions 7-10, Theorems 2 and 4, §16; depth can: Lemmas 1-4, Theorems 1, 3, 5, 6,
  Figures 2-7), collected by :mod:`.claims` (``transformer-theory claims --paper chen_zou2024``).
"""

from transformer_theory.constructions import (
    check_construction,
    theorem1,
    theorem3,
    theorem5,
    theorem6,
)
from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    SequenceClassification,
    TemplateMatching,
)
from transformer_theory.theory.certificates import accuracy_upper_bound, certify_dataset
from transformer_theory.theory.checks import affine_residuals, check_family
from transformer_theory.theory.dependence import dependence_basis, is_dependence
from transformer_theory.theory.witness import search_witness

__all__ = [
    "InContextQA",
    "InContextTemplateMatching",
    "SequenceClassification",
    "TemplateMatching",
    "accuracy_upper_bound",
    "affine_residuals",
    "certify_dataset",
    "check_construction",
    "check_family",
    "dependence_basis",
    "is_dependence",
    "search_witness",
    "theorem1",
    "theorem3",
    "theorem5",
    "theorem6",
]
