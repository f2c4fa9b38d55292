"""Function composition (Peng, Narayanan & Papadimitriou 2024, Theorem 1) in the library's parameter
format: one- and two-layer softmax transformers, held-out error in float32 and bfloat16 against
the bound ``R / (3 n log n)``.

The experiment (its settings, command, cost and result):
:mod:`transformer_theory.papers.peng2024.experiments.composition_one_layer`, also run by
``transformer-theory experiment composition_one_layer``; ``--set field=value`` changes a setting::

    python experiments/composition_one_layer.py --out results/composition
    python experiments/composition_one_layer.py --smoke --out /tmp/smoke
    python experiments/composition_one_layer.py --set steps=100 --set seed=1 --out /tmp/short
"""

import sys

from transformer_theory.cli.scripts import script_main
from transformer_theory.papers.peng2024.experiments import composition_one_layer

main = script_main(composition_one_layer, "layers d format p error bound chance_error seconds")

if __name__ == "__main__":
    sys.exit(main())
