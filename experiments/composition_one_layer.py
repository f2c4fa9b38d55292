"""Function composition (Peng, Narayanan & Papadimitriou 2024, Theorem 1) in the library's parameter
format: one- and two-layer softmax transformers, held-out error in float32 and bfloat16 against
the bound ``R / (3 n log n)``.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.experiments.composition_one_layer` (the same as
``transformer-theory experiment composition_one_layer``); ``--set field=value`` changes one of its
settings::

    python experiments/composition_one_layer.py --out results/composition
    python experiments/composition_one_layer.py --smoke --out /tmp/smoke
    python experiments/composition_one_layer.py --set steps=100 --set seed=1 --out /tmp/short
"""

from __future__ import annotations

import sys

from transformer_theory.cli._common import experiment_script
from transformer_theory.papers.peng2024.experiments import composition_one_layer

COLUMNS = ["layers", "d", "format", "p", "error", "bound", "chance_error", "seconds"]


def main(argv: list[str] | None = None) -> int:
    return experiment_script(
        argv, composition_one_layer, description=__doc__.split("\n\n")[0], columns=COLUMNS
    )


if __name__ == "__main__":
    sys.exit(main())
