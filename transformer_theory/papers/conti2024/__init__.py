"""Conti 2024, "The Math behind Transformers" (survey thesis): efficient attention against exact attention, head kinds by projection, and the encoder-decoder translation experiment.

Modules:

- :mod:`.tasks`: the synthetic translation task (reordering and agreement).
- :mod:`.efficient`: efficient attention"s error and cost.
- :mod:`.heads`: positional / syntactic / rare-token heads by projection.
- :mod:`.translation`: the encoder-decoder experiment: train, decode, read the heads.
"""

__all__ = ["efficient", "heads", "tasks", "translation"]
