"""Function composition against Peng, Narayanan & Papadimitriou 2024, Theorem 1, at a controlled
precision: one- and two-layer transformers fake-quantized to ``p`` bits, held-out error against
the bound ``R / (3 n log n)``.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.experiments.composition_depth` (the same as
``transformer-theory experiment composition_depth``); ``--set field=value`` changes one of its
settings::

    python experiments/composition_depth.py --out results/composition_depth
    python experiments/composition_depth.py --smoke --out /tmp/smoke
    python experiments/composition_depth.py --set steps=100 --set seed=1 --out /tmp/short
"""

from __future__ import annotations

import sys

from transformer_theory.cli._common import experiment_script
from transformer_theory.papers.peng2024.experiments import composition_depth

COLUMNS = ["layers", "d", "p", "params", "final_loss", "error", "bound", "seconds"]


def main(argv: list[str] | None = None) -> int:
    return experiment_script(
        argv, composition_depth, description=__doc__.split("\n\n")[0], columns=COLUMNS
    )


if __name__ == "__main__":
    sys.exit(main())
