"""Function composition in one pass against Peng, Narayanan & Papadimitriou 2024, Theorem 1: one
recipe that learns ``g(f(x))`` where the bound is void, run where ``R > 0``; error against the
bound ``R / (3 n log n)``.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.experiments.composition_bound` (the same as
``transformer-theory experiment composition_bound``); ``--set field=value`` changes one of its
settings::

    python experiments/composition_bound.py --out results/composition_bound
    python experiments/composition_bound.py --smoke --out /tmp/smoke
    python experiments/composition_bound.py --set steps=100 --set seed=1 --out /tmp/short
"""

from __future__ import annotations

import sys

from transformer_theory.cli._common import experiment_script
from transformer_theory.papers.peng2024.experiments import composition_bound

COLUMNS = ["n", "heads", "d", "p", "R", "final_loss", "error", "bound", "seconds"]


def main(argv: list[str] | None = None) -> int:
    return experiment_script(
        argv, composition_bound, description=__doc__.split("\n\n")[0], columns=COLUMNS
    )


if __name__ == "__main__":
    sys.exit(main())
