"""Conti 2024, "The Math behind Transformers" (survey thesis): efficient attention against exact
attention, head kinds by projection, and the encoder-decoder translation experiment.

Modules:

- :mod:`.tasks`: the synthetic translation task (reordering and agreement).
- :mod:`.efficient`: efficient attention's error and cost.
- :mod:`.heads`: positional / syntactic / rare-token heads by projection.
- :mod:`.translation`: the encoder-decoder experiment: train, decode, read the heads.
- :mod:`.plots`: the figures: head grids, error against budget, cost against length.
- :mod:`.loading`: trained models (depth runs and translation runs) loaded for the head analysis.
"""

__all__ = ["efficient", "heads", "loading", "plots", "tasks", "translation"]
