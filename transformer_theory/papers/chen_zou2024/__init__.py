"""Chen & Zou 2024, "What Can Transformer Learn with Varying Depth?": the paper's folder.

The spine of the library is this paper's pipeline (:mod:`transformer_theory.tasks`,
:mod:`transformer_theory.constructions`, :mod:`transformer_theory.theory`); this folder holds what
is the paper's alone, in the same role files as every other paper. Modules:

- :mod:`.claims`: the paper's statements in the claims ledger (``transformer-theory claims
  --paper chen_zou2024``): one-layer impossibility (Definitions 2-3, Propositions 7-10, Theorems
  2 and 4, §16) and what depth can do (Lemmas 1-4, Theorems 1, 3, 5, 6, Figures 2-7).
"""

__all__ = ["claims"]
