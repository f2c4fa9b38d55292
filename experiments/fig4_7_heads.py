"""Figures 4-7 of Chen & Zou 2024 (§9.2, §9.3): heads per layer, per task.

Figures 4-6 (memorization, reasoning, generalization) compare ``[1], [2], [4], [1,1], [2,2],
[1,1,1]``; Figure 7 (contextual generalization) compares ``[1,1,1], [2,2,2], [1,1,2], [2,2,1],
[1,1,1,1]`` (3 and 4 layers, since fewer fail).

Command (quick, 2 CPU cores; 23 configs x 2 seeds)::

    transformer-theory train --experiment fig4_7_heads --size quick --seeds 0 1 --out
    results/heads_quick

Writes per-run metrics, ``summary.csv``, ``aggregate.csv`` and ``fig4_7_heads.png`` (one column per
task).

Expected (paper, §9.2-9.3): more heads help memorization; for reasoning and generalization the
number of heads matters little once there are two layers, and one layer fails whatever its heads;
for contextual generalization extra heads do not help (a single head in the last layer learns
fastest) and 4 layers learn faster than 3.
"""

from __future__ import annotations

from collections.abc import Sequence

from experiments import _common

NAME = "fig4_7_heads"
HEADS = {
    "memorization": ((1,), (2,), (4,), (1, 1), (2, 2), (1, 1, 1)),
    "reasoning": ((1,), (2,), (4,), (1, 1), (2, 2), (1, 1, 1)),
    "generalization": ((1,), (2,), (4,), (1, 1), (2, 2), (1, 1, 1)),
    "contextual": ((1, 1, 1), (2, 2, 2), (1, 1, 2), (2, 2, 1), (1, 1, 1, 1)),
}


def runs(
    size: str = "quick",
    seeds: Sequence[int] = (0, 1),
    tasks: Sequence[str] | None = None,
    steps: int | None = None,
    optimizer: str | None = None,
    learning_rate: float | None = None,
) -> list[_common.RunSpec]:
    tasks = tuple(tasks or _common.TASK_NAMES)
    return [
        _common.RunSpec(
            task, heads, seed, size, steps, optimizer=optimizer, learning_rate=learning_rate
        )
        for task in tasks
        for heads in HEADS[task]
        for seed in seeds
    ]


def run(
    out: str,
    size: str = "quick",
    seeds: Sequence[int] = (0, 1),
    tasks: Sequence[str] | None = None,
    steps: int | None = None,
    progress: bool = True,
    optimizer: str | None = None,
    learning_rate: float | None = None,
) -> list[dict]:
    rows = _common.sweep(
        NAME, runs(size, seeds, tasks, steps, optimizer, learning_rate), out, progress
    )
    plot(out)
    return rows


def plot(out: str) -> list[str]:
    return [
        _common.plot_curves(
            out, "fig4_7_heads.png", "Chen & Zou 2024, Figures 4-7: heads per layer"
        )
    ]
