"""Figure 2 of Chen & Zou 2024 (§6.1): depth 1, 2, 3 and 4 (one head per layer) on each of the four
tasks; held-out accuracy and loss against training steps, per task and depth, over several seeds.

Command (quick, 2 CPU cores; 4 tasks x 4 depths x 3 seeds = 48 runs, each a few seconds)::

    transformer-theory train --experiment fig2_depth --size quick --seeds 0 1 2 \\
        --out results/fig2_quick

Writes ``results/fig2_quick/<task>_heads<h>_seed<s>/metrics.{csv,json}``, ``summary.csv`` (final
held-out accuracy per run), ``aggregate.csv`` (mean, std, min, max over seeds) and
``fig2_depth.png``; ``transformer-theory plot results/fig2_quick`` redraws the figure.

Expected (the paper's claim, §6.1): memorization reaches 1.0 at every depth; reasoning and
generalization stay at chance with one layer and reach 1.0 with two or more; contextual
generalization stays at chance with one and two layers and succeeds with three or four.

Measured with this quick config (3 seeds, mean [min, max] held-out accuracy; README has the table):
memorization 1.0 at every depth; reasoning 1 layer 0.13 (chance 0.17), 2 layers 0.99 [0.96, 1],
3 layers 0.70 [0.11, 1] (one seed collapses to a constant answer), 4 layers 1.0; generalization
(class-balanced, chance 0.2) 1 layer exactly 0.20, 2 layers 0.90 [0.79, 1], 3 layers 0.60 [0.2,
0.8], 4 layers 0.93 [0.8, 1] -- the misses are the template ``aaa`` (10 sequences in all, 1-2 held
out) and one collapsed 3-layer seed; contextual (chance 0.25, k = 2) 1 layer 0.25, 2 layers 0.51
(= picking one of the two in-context answers), 3 layers 0.99 [0.98, 1], 4 layers 1.0.

Paper sizes (§9.1; hours on a CPU, use an accelerator)::

    transformer-theory train --experiment fig2_depth --size paper --seeds 0 1 2 \\
        --out results/fig2_paper

Measured at paper size, reasoning only (InContextQA(100, 100, 3), chance 0.01, 2 CPU cores): with
the default SGD (lr 0.1) 1 layer ends at 0.007 and 2 layers plateau at 0.35 (loss ~ln 3: one of the
k context answers, not the right one) after 20,000 steps (5 and 13 min); with
``--optimizer adam --lr 1e-3`` 1 layer stays at 0.007 and 2 layers reach 1.00 by step 500 (seeds 0,
1, 2). With Adam (lr 1e-3, seed 0, ``--steps 5000``): generalization 1 layer 0.067 (chance),
2 layers 1.00; contextual 2 layers 0.51 (1/k), 3 layers 0.73 (flat from step 1,000 to 10,000).

Also ``transformer-theory experiment fig2_depth --size smoke`` (one run, seconds).
"""

import dataclasses

from transformer_theory.sweeps import TASK_NAMES, ExperimentSettings

#: The study that runs this experiment (:func:`transformer_theory.papers.study_of`).
STUDY = "transformer_theory.sweeps.directory"

DEPTHS = (1, 2, 3, 4)


#: ``default``: the figure as README quotes it (the quick setups, 3 seeds); ``smoke``: one
#: two-layer reasoning run of 2 steps (seconds).
SIZES = ("smoke", "default")
HEADS = {task: tuple((1,) * depth for depth in DEPTHS) for task in TASK_NAMES}


@dataclasses.dataclass(frozen=True)
class Fig2DepthSettings(ExperimentSettings):
    """Chen & Zou 2024, Figure 2: depth 1-4 (one head per layer) on each of the four tasks, held-out
    accuracy against steps over several seeds (the fields a command line may change are
    ``train``'s options)."""


def get_config(size: str = "default") -> Fig2DepthSettings:
    """The figure's runs (``default``) or one of them for two steps (``smoke``)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    config = Fig2DepthSettings(
        name="fig2_depth",
        title="Chen & Zou 2024, Figure 2: depth (one head per layer)",
        heads=HEADS,
        seeds=(0, 1, 2),
    )
    if size == "smoke":
        return config.replace(seeds=(0,), tasks=("reasoning",), depths=(2,), steps=2)
    return config
