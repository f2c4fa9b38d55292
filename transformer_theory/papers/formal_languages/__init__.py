"""Strobl, Merrill, Weiss, Chiang & Angluin 2024, *What Formal Languages Can Transformers
Express? A Survey*: the rows of its table that the library builds -- recognizers for MAJORITY,
PARITY (with and without Chiang & Cholak's LayerNorm), Dyck-1, Dyck-(k, D) after Yao et al. 2021,
SHUFFLE-DYCK-k and simple counter machines after Bhattamishra et al. 2020 -- checked on every
short string, and transformers trained with hard attention (Hahn 2020's rows).

Role modules (private; this package's names below are the public face):

- ``_tasks``, ``_tasks_dyck_k``, ``_tasks_counters``: the languages -- membership references,
  every string of a length, samples with hard non-members (``sample``, ``dyck_k_sample``,
  ``counter_sample``), the counter machines and the true continuation sets.
- ``_constructions``, ``_constructions_dyck_k``, ``_constructions_counters``: the recognizers'
  weights (MAJORITY, PARITY, Dyck-1; Dyck-(k, D) and its input embedding ``dyck_k_embed``; the
  one-layer counter recognizer).
- ``_models``: hard-attention transformers trained with a straight-through estimator
  (``straight_through_weights``: hard forward, softmax gradient).
- ``_theory``, ``_theory_dyck_k``, ``_theory_counters``, ``_theory_table``: the derived margins
  and float tolerances, the recognizers measured against their languages (records), the counter
  layer in exact rationals, every table row checked one way, and what each costs.
- ``_checks``, ``_checks_dyck_k``, ``_checks_counters``: the claims' checks
  (``ledger.Checked``).
- ``_study_languages``, ``_study_dyck_k``, ``_study_languages_generalization``: the studies
  (build, check, record, plot) of the experiments below; ``_records``: the table's typed records.
- ``_plots``: the figures, drawn from records.
- :mod:`.claims`: the table's claims for the ledger (``transformer-theory claims --paper
  formal_languages``).
- :mod:`.experiments`: ``languages`` (every row, what ``transformer-theory languages`` runs),
  ``dyck_k`` and ``languages_generalization`` (``transformer-theory experiment NAME``).
"""

from transformer_theory.papers.formal_languages._constructions import (
    decision_margins,
    dyck1,
    majority,
    parity,
)
from transformer_theory.papers.formal_languages._constructions_counters import (
    counter_recognizer,
    next_symbol_margins,
    recognize,
)
from transformer_theory.papers.formal_languages._constructions_dyck_k import (
    dyck_k_embed,
    dyck_k_recognizer,
)
from transformer_theory.papers.formal_languages._models import (
    straight_through_weights,
    train_hard_attention,
)
from transformer_theory.papers.formal_languages._tasks import is_member, sample
from transformer_theory.papers.formal_languages._tasks_counters import counter_sample, machine
from transformer_theory.papers.formal_languages._tasks_dyck_k import dyck_k_sample
from transformer_theory.papers.formal_languages._theory_counters import exact_check

__all__ = [
    "counter_recognizer",
    "counter_sample",
    "decision_margins",
    "dyck1",
    "dyck_k_embed",
    "dyck_k_recognizer",
    "dyck_k_sample",
    "exact_check",
    "is_member",
    "machine",
    "majority",
    "next_symbol_margins",
    "parity",
    "recognize",
    "sample",
    "straight_through_weights",
    "train_hard_attention",
]
