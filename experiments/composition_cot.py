"""Iterated function composition with chain of thought against Peng, Narayanan & Papadimitriou
2024, Theorem 2: one-layer transformers fake-quantized to ``p`` bits, the CoT steps they need
against ``sqrt(n / (H d p))``.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.experiments.composition_cot` (the same as
``transformer-theory experiment composition_cot``); ``--set field=value`` changes one of its
settings::

    python experiments/composition_cot.py --out results/composition_cot
    python experiments/composition_cot.py --smoke --out /tmp/smoke
    python experiments/composition_cot.py --set steps=100 --set seed=1 --out /tmp/short
"""

from __future__ import annotations

import sys

from transformer_theory.cli._common import experiment_script
from transformer_theory.papers.peng2024.experiments import composition_cot

COLUMNS = [
    "n",
    "stride",
    "cot_steps",
    "heads",
    "d",
    "p",
    "final_loss",
    "accuracy",
    "cot_bound",
    "seconds",
]


def main(argv: list[str] | None = None) -> int:
    return experiment_script(
        argv, composition_cot, description=__doc__.split("\n\n")[0], columns=COLUMNS
    )


if __name__ == "__main__":
    sys.exit(main())
