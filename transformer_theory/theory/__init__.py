"""Theory: dependence (Chen & Zou 2024, Definitions 2-3), the Proposition 7-10 checks, certificates,
witnesses.

- :mod:`transformer_theory.theory.dependence`: exact dependence finder/checker and generators.
- :mod:`transformer_theory.theory.checks`: batched float64 residual checks of Props. 7-10 and
  controls.
- :mod:`transformer_theory.theory.suite`: the built-in suite behind ``transformer-theory verify``.
- ``certificates`` / ``witness``: LP/MIP impossibility certificates and witness search.

The verdict table and the files ``verify`` / ``certify`` write are
:mod:`transformer_theory.verify_outputs` (at the edge: nothing under ``theory/`` plots or
touches files).

Submodules are imported on demand (``from transformer_theory.theory import dependence``).
"""

__all__ = [
    "certificates",
    "checks",
    "dependence",
    "suite",
    "witness",
]
