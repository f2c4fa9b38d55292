"""Barbero et al. 2024, "Transformers Need Glasses! Information Over-Squashing in Language
Tasks": representational collapse and over-squashing in causal Pre-LN transformers, and the
trained copy / count tasks.

Modules (private; the names below are the public face):

- ``_models``: the paper's model (causal Pre-LN), its random instances and grids, size and token
  maps; ``_models_trained``: the small trained models of the copy / count tasks.
- ``_tasks``: copy-first, copy-last and count-ones with separators; the collapse patterns.
- ``_theory_collapse``: representational collapse measured by length and precision, its rate
  and the one-layer limit derived from the weights.
- ``_theory_oversquash``: sensitivities against attention paths and their certified bound.
- ``_checks``: the checks behind the claims, each returning a
  :class:`~transformer_theory.ledger.Checked`.
- ``_plots``: the figures: collapse curves, over-squashing profiles, task accuracy.
- :mod:`.claims`: the paper's statements in the claims ledger
  (``transformer-theory claims --paper barbero2024``).
- :mod:`.experiments`: the settings of ``transformer-theory collapse`` and ``transformer-theory
  oversquash`` (their fields are the commands' options) and of the trained ``collapse_tasks``
  experiment, with ``get_config(size)`` (the study of each: ``papers.study_of``).
- ``_study_collapse``, ``_study_oversquash``, ``_study_collapse_tasks``: the studies (build,
  check, record, plot), reading the settings by their fields; ``_records``: the typed records
  they write and return, and the resume bookkeeping of the two grid studies; ``_records_grid``:
  the grid studies' record written as each model is measured.
"""

from transformer_theory.papers.barbero2024._models import (
    POSITIONAL,
    causal_pre_ln_config,
    model_grid,
    random_model,
)
from transformer_theory.papers.barbero2024._tasks import CopyingTask, pattern_tokens
from transformer_theory.papers.barbero2024._theory_collapse import (
    asymptotic_rate,
    model_record,
    one_layer_limit,
)
from transformer_theory.papers.barbero2024._theory_oversquash import (
    causal_path_counts,
    oversquash_record,
    sensitivities,
    sensitivity_bound,
)

__all__ = [
    "CopyingTask",
    "POSITIONAL",
    "asymptotic_rate",
    "causal_path_counts",
    "causal_pre_ln_config",
    "model_grid",
    "model_record",
    "one_layer_limit",
    "oversquash_record",
    "pattern_tokens",
    "random_model",
    "sensitivities",
    "sensitivity_bound",
]
