"""The study of Chen & Zou 2024's ``contextual_depth3_recipes`` experiment: its settings
(:class:`.experiments.contextual_depth3_recipes.RecipeSettings`, read by their fields) -> one
seed of the paper-size 3-layer contextual model trained under the variant
(:func:`transformer_theory.sweeps.recipes.train_recipe`) -> one JSON line per held-out
evaluation appended to ``<variant>_seed<seed>.jsonl`` as it comes.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

from transformer_theory.jsonio import dumps_json
from transformer_theory.sweeps.recipes import RecipeEval, train_recipe

__all__ = ["RecipeRun", "run"]


@dataclasses.dataclass(frozen=True)
class RecipeRun:
    """What :func:`run` trained: the variant, the seed, one evaluation per 500 steps
    (``evals``) and the file they were written to (``path``)."""

    variant: str
    seed: int
    evals: tuple[RecipeEval, ...]
    path: str

    @property
    def rows(self) -> list[dict]:
        """One row per evaluation (the table ``experiment`` prints)."""
        return [dataclasses.asdict(e) for e in self.evals]


def run(
    config: Any,
    out_dir: str,
    *,
    progress: bool = True,
    on_eval: Callable[[RecipeEval], None] | None = None,
) -> RecipeRun:
    """Train ``config``'s seed under its variant, writing each evaluation to
    ``out_dir/<variant>_seed<seed>.jsonl`` (flushed: a killed run keeps what it logged) and
    handing it to ``on_eval``."""
    del progress  # one line per evaluation is the progress
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{config.variant}_seed{config.seed}.jsonl")
    evals = []
    with open(path, "w") as f:
        for row in train_recipe(config.variant, config.seed, config.steps):
            f.write(dumps_json(row) + "\n")
            f.flush()
            evals.append(row)
            if on_eval is not None:
                on_eval(row)
    return RecipeRun(config.variant, config.seed, tuple(evals), path)
