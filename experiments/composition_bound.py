"""Function composition in one pass against Peng, Narayanan & Papadimitriou 2024, Theorem 1: one
recipe that learns ``g(f(x))`` where the bound is void, run where ``R > 0``; error against the
bound ``R / (3 n log n)``.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.configs.composition_bound`; the run:
:func:`transformer_theory.papers.peng2024.cot.run_composition_bound`::

    python experiments/composition_bound.py --out results/composition_bound
"""

from __future__ import annotations

import sys

from transformer_theory.cli.experiment import steps_seed_script
from transformer_theory.papers.peng2024.configs.composition_bound import SIZES, get_config
from transformer_theory.papers.peng2024.cot import run_composition_bound

COLUMNS = ["n", "heads", "d", "p", "R", "final_loss", "error", "bound", "seconds"]


def main(argv: list[str] | None = None) -> int:
    return steps_seed_script(
        argv,
        description=__doc__.splitlines()[0],
        sizes=SIZES,
        get_config=get_config,
        run=run_composition_bound,
        columns=COLUMNS,
    )


if __name__ == "__main__":
    sys.exit(main())
