"""Peng, Narayanan & Papadimitriou 2024, "On Limitations of the Transformer Architecture": function
composition and the one-layer error bound of Theorem 1.

Modules:

- :mod:`.tasks`: function-composition prompts with exact answers, and Theorem 1's bound.
- :mod:`.networks`: the transformer with a true embedding, fake-quantized to ``p`` bits.
- :mod:`.training`: the trained composition experiments (records and sweeps).
- :mod:`.plots`: their figures.
- :mod:`.configs`: the experiments' configs (``get_config(size)``).
- :mod:`.claims`: the paper's statements in the claims ledger (``transformer-theory claims``).
"""

__all__ = ["claims", "configs", "networks", "plots", "tasks", "training"]
