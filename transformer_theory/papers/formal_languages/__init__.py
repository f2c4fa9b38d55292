"""The formal-language table (Strobl et al. 2024): recognizers for MAJORITY, PARITY and Dyck-1,
their checks, and transformers trained with hard attention (Hahn 2020's rows).

Modules:

- :mod:`.tasks`: the languages: membership references, every string of a length, balanced samples.
- :mod:`.constructions`: the recognizers' weights (MAJORITY, PARITY with and without Chiang &
  Cholak's LayerNorm, Dyck-1) and their decision margins.
- :mod:`.counters`: SHUFFLE-DYCK-k and simple counter machines (Bhattamishra et al. 2020): the
  machines as data, one causal softmax layer computing each counter over the length, the
  next-symbol readout, exact rational checks and samples with hard non-members.
- :mod:`.dyck_k`: Dyck-(k, D) after Yao et al. 2021: the language (a stack, every string, members
  and hard non-members), the recognizer (``D + 2`` causal layers, hard and softmax), its checks,
  float32 margins and the claims' evidence.
- :mod:`.checks`: records of one recognizer (every short string, samples beyond), PARITY's margin
  and cross-entropy by float format, and the cost of each from its settings.
- :mod:`.study`: the table as a study (what ``transformer-theory languages`` runs): settings,
  estimate, records written as they finish, figures.
- :mod:`.hard_training`: straight-through hard-attention training (through
  :func:`transformer_theory.train.fit.fit`).
- :mod:`.generalization`: the trained-models experiment (Hahn 2020's rows), run from a config of
  :mod:`.configs`.
- :mod:`.configs`: the experiment's configs (``get_config(size)``), each with its command and
  result.
- :mod:`.plots`: the figures, drawn from records.
- :mod:`.claims`: the table's claims for the ledger (``transformer-theory claims --paper
  formal_languages``): the rows built proved in exact arithmetic, PARITY's confidence and
  precision, Hahn 2020's rows as an experiment, the rows not built as open.
"""

__all__ = [
    "checks",
    "claims",
    "configs",
    "constructions",
    "counters",
    "dyck_k",
    "generalization",
    "hard_training",
    "plots",
    "study",
    "tasks",
]
