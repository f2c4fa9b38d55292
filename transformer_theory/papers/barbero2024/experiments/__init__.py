"""Barbero et al. 2024's studies, one module each with its settings (a frozen dataclass),
``get_config(size)`` (sizes ``smoke`` and ``default``) and ``run(config, out_dir, *,
progress=True)``; ``transformer-theory experiment NAME`` runs one by name:

- :mod:`.collapse`: representational collapse over a grid of random models (the
  ``transformer-theory collapse`` command's settings and study).
- :mod:`.oversquash`: over-squashing over a grid of random models (``transformer-theory
  oversquash``).
- :mod:`.collapse_tasks`: copy-first, copy-last and count-ones trained small and evaluated long
  at every precision, with and without separators.

``_records``: the resumable record the two grid studies keep.
"""

__all__ = ["collapse", "collapse_tasks", "oversquash"]
