"""Figure 2 of Chen & Zou 2024 (§6.1) at §9.1's sizes: the four tasks x depths 1-4 (one head per
layer) x 3 seeds, Adam, resumable, each run stopped early.

Early stopping (:class:`~transformer_theory.train.EarlyStop`, field ``early_stop`` of each
setup): a run stops when its held-out accuracy has been >= 0.99 at 3 consecutive evaluations
(every 500 steps; memorization every 100), or when its best held-out accuracy has not improved for
5,000 steps; else at the setup's step cap (20,000; contextual 40,000). The summary's
``stop_reason`` says which.

Optimizer: Adam; learning rate 1e-3, except the template tasks, 3e-4 (:data:`LEARNING_RATE`;
SGD lr 0.1 leaves the 2-layer paper-size reasoning model at 1/k, see ``fig2_depth``).

Full sweep (48 runs)::

    transformer-theory train --experiment fig2_paper --out results/fig2_paper
    python experiments/fig2_paper_table.py results/fig2_paper

The second command writes ``experiments/results/fig2_paper_summary.csv`` (one row per run) and
prints README's table (mean [min, max] per cell beside the paper's claim). Re-running the first
command resumes: finished runs (stopped early or at the cap) are read back, a killed run continues
from its last checkpoint (every 5,000 steps and at the stop).

How README's table was run (2026-11-22/23, 2 CPU cores, one process pinned per core; the
contextual runs capped at 3,000 steps at depths 1-2, where all had flattened, and continued to
8,000 at depths 3-4)::

    taskset -c 0 transformer-theory train --experiment fig2_paper --tasks reasoning \
        generalization --out results/fig2_paper_rg
    taskset -c 1 transformer-theory train --experiment fig2_paper --tasks contextual \
        --depths 1 2 --steps 3000 --out results/fig2_paper_ctx
    taskset -c 0 transformer-theory train --experiment fig2_paper --tasks contextual \
        --depths 3 --steps 8000 --out results/fig2_paper_ctx3
    taskset -c 0 transformer-theory train --experiment fig2_paper --tasks contextual \
        --depths 4 --seeds 0 1 --steps 8000 --out results/fig2_paper_ctx4
    taskset -c 1 transformer-theory train --experiment fig2_paper --tasks contextual \
        --depths 4 --seeds 2 --steps 8000 --out results/fig2_paper_ctx4b
    taskset -c 1 transformer-theory train --experiment fig2_paper --tasks memorization \
        --out results/fig2_paper_mem
    python experiments/fig2_paper_table.py results/fig2_paper_rg results/fig2_paper_mem \
        results/fig2_paper_ctx results/fig2_paper_ctx3 results/fig2_paper_ctx4 \
        results/fig2_paper_ctx4b

Seconds per run on one core (the summary's ``seconds`` also counts pauses for benchmarks):
reasoning and generalization 15 s - 9 min, contextual 1-29 min, memorization (full batch of
1,000) 1-3 min at depths 1-3 and ~10 min at depth 4.

Smoke mode (tiny tasks, 20 steps a run, seconds on 2 CPU cores; a test runs it)::

    transformer-theory train --experiment fig2_paper --size smoke --seeds 0 --out /tmp/fig2_smoke

or ``transformer-theory experiment fig2_paper --size smoke`` (its reasoning runs only).
"""

import dataclasses

from transformer_theory.papers.chen_zou2024.experiments import fig2_depth
from transformer_theory.sweeps import PAPER, QUICK, TASK_NAMES, ExperimentSettings
from transformer_theory.train import EarlyStop

#: The study that runs this experiment (:func:`transformer_theory.papers.study_of`).
STUDY = "transformer_theory.sweeps.directory"

#: ``default``: the sweep README's table comes from (§9.1's sizes, 3 seeds; hours); ``smoke``: the
#: reasoning runs of seed 0 on the tiny ``smoke`` setups (seconds).
SIZES = ("smoke", "default")

EARLY_STOP = EarlyStop(threshold=0.99, patience=3, plateau_steps=5000)


# Adam's learning rate per task: 1e-3 for memorization and reasoning; 3e-4 for the two template
# tasks, where 1e-3 stalls 3-layer models (seed 0, 1,500-2,500 steps; see README):
# - generalization, depth 3: 1e-3 sits at 0.32-0.34 on all 3 seeds (up to 15,500 steps); 3e-4
#   reaches 0.997 by step 500 (1e-4: 0.998 by 1,000; SGD 0.1 with clipping: 1.0 by 500);
# - contextual generalization, depth 3: 1e-3 stalls at 0.70-0.72; 3e-4 reaches 0.83 in 1,500 steps
#   (3e-3: 0.51, 1e-4: 0.75 and rising at 1,250; SGD 0.1 with clipping, §9.1's optimizer: 0.77).
LEARNING_RATE = {
    "memorization": 1e-3,
    "reasoning": 1e-3,
    "generalization": 3e-4,
    "contextual": 3e-4,
}

# Memorization evaluates every 100 steps (the others every 500): its full-batch steps at depth 3-4
# take ~0.7 s on 2 CPU cores, and the accuracy rule (3 consecutive evaluations >= 0.99) otherwise
# forces 1,500 steps on a model that has memorized by step 300. The interval is not part of a
# run's identity.
EVAL_EVERY = {"memorization": {"log_every": 100}}


def _adam(setup, early_stop, learning_rate=1e-3, **train):
    return setup.replace(
        train=setup.train.replace(optimizer="adam", learning_rate=learning_rate, **train),
        early_stop=early_stop,
    )


@dataclasses.dataclass(frozen=True)
class Fig2PaperSettings(ExperimentSettings):
    """Chen & Zou 2024, Figure 2 at §9.1's sizes: depth 1-4 on the four tasks, Adam, early
    stopping, resumable (the fields a command line may change are ``train``'s options)."""


def get_config(size: str = "default") -> Fig2PaperSettings:
    """:mod:`.fig2_depth`'s runs (tasks, depths, seeds) with their own setups (``default``), or
    the reasoning runs of seed 0 on the ``smoke`` setups (``smoke``)."""
    if size not in SIZES:
        raise ValueError(f"size: expected one of {SIZES}, got {size!r}")
    smoke_stop = EarlyStop(threshold=0.99, patience=2, plateau_steps=10)
    config = Fig2PaperSettings(
        name="fig2_paper",
        title="Chen & Zou 2024, Figure 2 at §9.1's sizes (Adam, early stopping)",
        heads=fig2_depth.HEADS,
        seeds=(0, 1, 2),
        size="paper",
        setups={
            "paper": {
                task: _adam(
                    PAPER[task], EARLY_STOP, LEARNING_RATE[task], **EVAL_EVERY.get(task, {})
                )
                for task in TASK_NAMES
            },
            "smoke": {
                task: _adam(QUICK[task], smoke_stop, steps=20, log_every=5, checkpoint_every=10)
                for task in TASK_NAMES
            },
        },
    )
    if size == "smoke":
        return config.replace(size="smoke", seeds=(0,), tasks=("reasoning",))
    return config
