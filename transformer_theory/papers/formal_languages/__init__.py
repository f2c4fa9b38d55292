"""The formal-language table (Strobl et al. 2024): recognizers for MAJORITY, PARITY and Dyck-1,
their checks, and transformers trained with hard attention (Hahn 2020"s rows).

Modules:

- :mod:`.tasks`: the languages: members, non-members, balanced samples.
- :mod:`.constructions`: the recognizers" weights.
- :mod:`.checks`: records of every short string, margins by length and precision.
- :mod:`.hard_training`: straight-through hard-attention training.
"""

__all__ = ["checks", "constructions", "hard_training", "tasks"]
