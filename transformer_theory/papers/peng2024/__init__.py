"""Peng, Narayanan & Papadimitriou 2024, "On Limitations of the Transformer Architecture": function
composition, the one-layer error bound of Theorem 1 and chain of thought (Theorem 2).

Modules:

- :mod:`.tasks`: function-composition prompts with exact answers, and Theorem 1's bound.
- :mod:`.networks`: the transformer with a true embedding, fake-quantized to ``p`` bits.
- :mod:`.training`: the trained composition experiments (records and sweeps).
- :mod:`.cot`: iterated composition with chain of thought: prompts, teacher forcing, the
  autoregressive loop, the trained CoT experiment and the steps it needs.
- :mod:`.construction`: one-pass composition by one layer, built by hand (ours): pair-token
  prompts, the exact two-head model, and the bits it needs beside Theorem 1's ``n log n``.
- :mod:`.one_pass`: the trained one-pass experiment on pair-token prompts (a recipe that learns,
  head outputs rounded to ``p`` bits), against the bound and the construction.
- :mod:`.plots`: their figures.
- :mod:`.configs`: the experiments' configs (``get_config(size)``).
- :mod:`.checks`: the checks behind the claims, each returning what it computed, in which
  arithmetic and over which inputs (:class:`transformer_theory.ledger.Checked`).
- :mod:`.claims`: the paper's statements in the claims ledger (``transformer-theory claims``).
"""

__all__ = [
    "checks",
    "claims",
    "configs",
    "construction",
    "cot",
    "networks",
    "one_pass",
    "plots",
    "tasks",
    "training",
]
