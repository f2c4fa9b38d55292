"""The qSA separation of Sanford, Hsu & Telgarsky 2023, trained: one softmax attention unit, a fully
connected ReLU network and a GRU on q-sparse averaging, held-out error against width.

The experiment (its settings, command, cost and result):
:mod:`transformer_theory.papers.sanford2023.experiments.qsa_separation`, also run by
``transformer-theory experiment qsa_separation``; ``--set field=value`` changes a setting::

    python experiments/sanford_qsa_separation.py --out results/sanford_qsa
    python experiments/sanford_qsa_separation.py --smoke --out /tmp/smoke
    python experiments/sanford_qsa_separation.py --set steps=300 --set seq_len=8 --out /tmp/short
"""

import sys

from transformer_theory.cli.scripts import script_main
from transformer_theory.papers.sanford2023.experiments import qsa_separation

main = script_main(
    qsa_separation, "model width params threshold mean_max_error within_epsilon seconds"
)

if __name__ == "__main__":
    sys.exit(main())
