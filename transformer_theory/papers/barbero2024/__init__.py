"""Barbero et al. 2024, "Transformers Need Glasses!": representational collapse and over-squashing
in causal Pre-LN transformers, and the trained copy / count tasks.

Modules:

- :mod:`.models`: the paper's model (causal Pre-LN), its random instances, size and token maps.
- :mod:`.tasks`: copy-first, copy-last and count-ones with separators.
- :mod:`.collapse`: representational collapse measured by length and precision.
- :mod:`.oversquash`: sensitivities against attention paths and their bound.
- :mod:`.study`: the grids of models the ``collapse`` and ``oversquash`` commands run.
- :mod:`.collapse_tasks`: the trained tasks that show collapse (training, evaluation, the run).
- :mod:`.configs`: the trained experiment's config (``get_config(size)``).
- :mod:`.plots`: the figures: collapse curves, over-squashing profiles, task accuracy.
- :mod:`.checks`: the checks behind the claims, each returning what it computed, in which
  arithmetic and over which inputs (:class:`transformer_theory.ledger.Checked`).
- :mod:`.claims`: the paper's statements in the claims ledger, each with the check that decides
  it (``transformer-theory claims --paper barbero2024``).
"""

__all__ = [
    "checks",
    "claims",
    "collapse",
    "collapse_tasks",
    "configs",
    "models",
    "oversquash",
    "plots",
    "study",
    "tasks",
]
