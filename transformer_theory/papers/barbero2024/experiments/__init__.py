"""Barbero et al. 2024's experiments, one module each: its settings (a frozen dataclass) and
``get_config(size)`` (sizes ``smoke`` and ``default``); the study, ``run(config, out_dir, *,
progress=True)``, is the paper's ``_study_<name>`` (:func:`transformer_theory.papers.study_of`);
``transformer-theory experiment NAME`` runs one by name:

- :mod:`.collapse`: representational collapse over a grid of random models (the
  ``transformer-theory collapse`` command's settings and study).
- :mod:`.oversquash`: over-squashing over a grid of random models (``transformer-theory
  oversquash``).
- :mod:`.collapse_tasks`: copy-first, copy-last and count-ones trained small and evaluated long
  at every precision, with and without separators.

The resumable record the two grid studies keep is the paper's ``_records``.
"""

__all__ = ["collapse", "collapse_tasks", "oversquash"]
