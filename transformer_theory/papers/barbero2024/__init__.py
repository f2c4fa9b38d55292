"""Barbero et al. 2024, "Transformers Need Glasses!": representational collapse and over-squashing
in causal Pre-LN transformers, and the trained copy / count tasks.

Modules:

- :mod:`.tasks`: copy-first, copy-last and count-ones with separators.
- :mod:`.collapse`: representational collapse measured by length and precision.
- :mod:`.oversquash`: sensitivities against attention paths and their bound.
- :mod:`.collapse_tasks`: the trained tasks that show collapse.
- :mod:`.plots`: the figures: collapse curves, over-squashing profiles, task accuracy.
"""

__all__ = ["collapse", "collapse_tasks", "oversquash", "plots", "tasks"]
