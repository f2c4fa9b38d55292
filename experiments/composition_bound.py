"""Function composition in one pass against Peng, Narayanan & Papadimitriou 2024, Theorem 1: one
recipe that learns ``g(f(x))`` where the bound is void, run where ``R > 0``; error against the
bound ``R / (3 n log n)``.

The experiment (its settings, command, cost and result):
:mod:`transformer_theory.papers.peng2024.experiments.composition_bound`, also run by
``transformer-theory experiment composition_bound``; ``--set field=value`` changes a setting::

    python experiments/composition_bound.py --out results/composition_bound
    python experiments/composition_bound.py --smoke --out /tmp/smoke
    python experiments/composition_bound.py --set steps=100 --set seed=1 --out /tmp/short
"""

import sys

from transformer_theory.cli.scripts import script_main
from transformer_theory.papers.peng2024.experiments import composition_bound

main = script_main(composition_bound, "n heads d p R final_loss error bound seconds")

if __name__ == "__main__":
    sys.exit(main())
