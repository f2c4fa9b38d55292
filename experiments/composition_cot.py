"""Iterated function composition with chain of thought against Peng, Narayanan & Papadimitriou
2024, Theorem 2: one-layer transformers fake-quantized to ``p`` bits, the CoT steps they need
against ``sqrt(n / (H d p))``.

The experiment (its settings, command, cost and result):
:mod:`transformer_theory.papers.peng2024.experiments.composition_cot`, also run by
``transformer-theory experiment composition_cot``; ``--set field=value`` changes a setting::

    python experiments/composition_cot.py --out results/composition_cot
    python experiments/composition_cot.py --smoke --out /tmp/smoke
    python experiments/composition_cot.py --set steps=100 --set seed=1 --out /tmp/short
"""

import sys

from transformer_theory.cli.scripts import script_main
from transformer_theory.papers.peng2024.experiments import composition_cot

main = script_main(
    composition_cot, "n stride cot_steps heads d p final_loss accuracy cot_bound seconds"
)

if __name__ == "__main__":
    sys.exit(main())
