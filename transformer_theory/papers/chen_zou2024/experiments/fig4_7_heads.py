"""Figures 4-7 of Chen & Zou 2024 (§9.2, §9.3): heads per layer, per task.

Figures 4-6 (memorization, reasoning, generalization) compare ``[1], [2], [4], [1,1], [2,2],
[1,1,1]``; Figure 7 (contextual generalization) compares ``[1,1,1], [2,2,2], [1,1,2], [2,2,1],
[1,1,1,1]`` (3 and 4 layers, since fewer fail).

Command (quick, 2 CPU cores; 23 configurations x 2 seeds)::

    transformer-theory train --experiment fig4_7_heads --size quick --seeds 0 1 \\
        --out results/heads_quick

Writes per-run metrics, ``summary.csv``, ``aggregate.csv`` and ``fig4_7_heads.png`` (one column per
task).

Expected (the paper, §9.2-9.3): more heads help memorization; for reasoning and generalization the
number of heads matters little once there are two layers, and one layer fails whatever its heads;
for contextual generalization extra heads do not help (a single head in the last layer learns
fastest) and 4 layers learn faster than 3.

Also ``transformer-theory experiment fig4_7_heads --size smoke`` (two one-layer runs, seconds).
"""

import dataclasses

from transformer_theory.sweeps import ExperimentSettings

#: The study that runs this experiment (:func:`transformer_theory.papers.study_of`).
STUDY = "transformer_theory.sweeps.directory"

#: ``default``: the figures as README quotes them; ``smoke``: two steps of one-layer runs.
SIZES = ("smoke", "default")
ONE_TO_THREE_LAYERS = ((1,), (2,), (4,), (1, 1), (2, 2), (1, 1, 1))
HEADS = {
    "memorization": ONE_TO_THREE_LAYERS,
    "reasoning": ONE_TO_THREE_LAYERS,
    "generalization": ONE_TO_THREE_LAYERS,
    "contextual": ((1, 1, 1), (2, 2, 2), (1, 1, 2), (2, 2, 1), (1, 1, 1, 1)),
}


@dataclasses.dataclass(frozen=True)
class HeadsPerLayerSettings(ExperimentSettings):
    """Chen & Zou 2024, Figures 4-7: heads per layer on each of the four tasks, held-out accuracy
    against steps (the fields a command line may change are ``train``'s options)."""


def get_config(size: str = "default") -> HeadsPerLayerSettings:
    """The figures' runs (``default``: quick setups, 2 seeds) or one of them for two steps
    (``smoke``)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = HeadsPerLayerSettings(
        name="fig4_7_heads",
        title="Chen & Zou 2024, Figures 4-7: heads per layer",
        heads=HEADS,
        seeds=(0, 1),
    )
    if size == "smoke":
        return config.replace(seeds=(0,), tasks=("reasoning",), depths=(1,), steps=2)
    return config
