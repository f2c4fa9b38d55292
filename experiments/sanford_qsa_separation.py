"""The qSA separation of Sanford, Hsu & Telgarsky 2023, trained: one softmax attention unit, a fully
connected ReLU network and a GRU on q-sparse averaging, held-out error against width.

The experiment, its command, cost and result:
:mod:`transformer_theory.papers.sanford2023.experiments.qsa_separation` (the same as
``transformer-theory experiment qsa_separation``); ``--set field=value`` changes one of its
settings::

    python experiments/sanford_qsa_separation.py --out results/sanford_qsa
    python experiments/sanford_qsa_separation.py --smoke --out /tmp/smoke
    python experiments/sanford_qsa_separation.py --set steps=300 --set seq_len=8 --out /tmp/short
"""

from __future__ import annotations

import sys

from transformer_theory.cli._common import experiment_script
from transformer_theory.papers.sanford2023.experiments import qsa_separation

COLUMNS = ["model", "width", "params", "threshold", "mean_max_error", "within_epsilon", "seconds"]


def main(argv: list[str] | None = None) -> int:
    return experiment_script(
        argv, qsa_separation, description=__doc__.split("\n\n")[0], columns=COLUMNS
    )


if __name__ == "__main__":
    sys.exit(main())
