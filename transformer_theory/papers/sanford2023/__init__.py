"""Sanford, Hsu & Telgarsky 2023, "Representational Strengths and Limitations of Transformers":
q-sparse averaging (qSA) and its restricted-isometry numerics, Match2 and Match3, and the trained
separations against fully connected and recurrent networks.

Modules (private, by role; the names below are the public face):

- ``_tasks``: qSA, Match2 and Match3 inputs with exact targets (``qsa_target``); the Match task
  registry; DISJ's pairs encoded as qSA instances.
- ``_constructions``: the softmax+MLP layer and the forward pass the units share;
  ``_constructions_qsa``: the qSA unit (Theorem 2; run by ``qsa_apply``);
  ``_constructions_match2``: the Match2 unit (Theorem 6); ``_constructions_match3``: the
  Match3Bigram (depth 2) and Match3Local (one layer) units; ``_constructions_registry``: the
  checked units by name (``UNITS``: sizes, build, apply; ``exact_scale``);
  ``_constructions_records``: one configuration built and checked (``qsa_record``,
  ``match_record``).
- ``_models``: the Flax NNX networks the separations train; ``_models_separations``: training
  them on qSA; ``_models_match``: one trained softmax layer on Match2 / Match3.
- ``_theory_rip``: the Rademacher matrix ``U`` and its restricted isometry / orthogonality
  constants; ``_theory_disjointness``: the qSA lower bound's reduction from set disjointness, the
  one-way protocol and where Match3's bound binds (``match3_bound_table``; the pairs' instances
  are ``_tasks``', the unit ``_constructions_qsa``'s); ``_theory_message``: Alice's ``m p``-bit
  message; ``_theory_costs``: what each check costs, and the refusal of sizes beyond the budget.
- ``_checks``: the checks behind the claims (:class:`transformer_theory.ledger.Checked`).
- ``_plots``: the figures of the study and of the trained experiments.
- :mod:`.experiments`: ``sanford`` (the study of ``transformer-theory sanford``),
  ``qsa_separation``, ``qsa_bits_attention``, ``qsa_bits_rnn``, ``match_width``
  (``transformer-theory experiment NAME``).
- :mod:`.claims`: the paper's statements in the claims ledger (``transformer-theory claims``).
"""

from transformer_theory.papers.sanford2023._constructions_match2 import match2_construction
from transformer_theory.papers.sanford2023._constructions_match3 import (
    match3bigram_construction,
    match3local_construction,
)
from transformer_theory.papers.sanford2023._constructions_qsa import (
    qsa_apply,
    qsa_construction,
    qsa_worst_error,
    rademacher,
)
from transformer_theory.papers.sanford2023._constructions_records import match_record, qsa_record
from transformer_theory.papers.sanford2023._constructions_registry import UNITS
from transformer_theory.papers.sanford2023._models_separations import qsa_trained_record
from transformer_theory.papers.sanford2023._tasks import match_labels, qsa_sample
from transformer_theory.papers.sanford2023._theory_disjointness import (
    match3_bound_table,
    protocol_table,
    reduction_record,
)
from transformer_theory.papers.sanford2023._theory_rip import rip_constants

__all__ = [
    "UNITS",
    "match2_construction",
    "match3_bound_table",
    "match3bigram_construction",
    "match3local_construction",
    "match_labels",
    "match_record",
    "protocol_table",
    "qsa_apply",
    "qsa_construction",
    "qsa_record",
    "qsa_sample",
    "qsa_trained_record",
    "qsa_worst_error",
    "rademacher",
    "reduction_record",
    "rip_constants",
]
