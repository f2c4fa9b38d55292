"""The typed records of the ``ngram_learnability`` study (:func:`._study_ngram_learnability.run`):
``ngram_learnability.json`` field for field as the file holds it."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["LearnabilityResult", "LearnabilityRow"]


@dataclasses.dataclass(frozen=True)
class LearnabilityRow:
    """One cell: the LM (``order`` n, ``alphabet`` |Sigma|, ``rank``: ``"full"`` for Dirichlet
    rows), the training (``steps``, ``final_loss``) and the KL per symbol over the first outcomes
    of the trained model, the unigram fit and the Theorem 3.1 construction."""

    order: int
    alphabet: int
    rank: int | str
    steps: int
    final_loss: float
    kl_per_symbol_trained: float
    kl_per_symbol_unigram: float
    kl_per_symbol_construction: float


@dataclasses.dataclass(frozen=True)
class LearnabilityResult:
    """The study's record: a row per cell (in the grid's order), the seconds so far and the
    settings it ran (their fields, as JSON holds them)."""

    rows: tuple[LearnabilityRow, ...]
    seconds: float
    config: dict[str, Any]
