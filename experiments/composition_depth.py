"""Function composition against Peng, Narayanan & Papadimitriou 2024, Theorem 1, at a controlled
precision: one- and two-layer transformers fake-quantized to ``p`` bits, held-out error against
the bound ``R / (3 n log n)``.

The experiment (its settings, command, cost and result):
:mod:`transformer_theory.papers.peng2024.experiments.composition_depth`, also run by
``transformer-theory experiment composition_depth``; ``--set field=value`` changes a setting::

    python experiments/composition_depth.py --out results/composition_depth
    python experiments/composition_depth.py --smoke --out /tmp/smoke
    python experiments/composition_depth.py --set steps=100 --set seed=1 --out /tmp/short
"""

import sys

from transformer_theory.cli.scripts import script_main
from transformer_theory.papers.peng2024.experiments import composition_depth

main = script_main(composition_depth, "layers d p params final_loss error bound seconds")

if __name__ == "__main__":
    sys.exit(main())
