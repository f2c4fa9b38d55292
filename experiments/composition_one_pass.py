"""Function composition in one pass against Peng, Narayanan & Papadimitriou 2024, Theorem 1, with
models that learn: trained one-layer models (pair-token prompts, an auxiliary f(x) curriculum)
where the bound is void and where ``R > 0``, beside a hand-built exact one-layer model.

The experiment (its settings, command, cost and result):
:mod:`transformer_theory.papers.peng2024.experiments.composition_one_pass`, also run by
``transformer-theory experiment composition_one_pass``; ``--set field=value`` changes a setting::

    python experiments/composition_one_pass.py --out results/composition_one_pass
    python experiments/composition_one_pass.py --smoke --out /tmp/smoke
    python experiments/composition_one_pass.py --set steps=100 --set seed=1 --out /tmp/short
"""

import sys

from transformer_theory.cli.scripts import script_main
from transformer_theory.papers.peng2024.experiments import composition_one_pass

main = script_main(
    composition_one_pass, "n heads d p R final_loss converged error bound mode_error seconds"
)

if __name__ == "__main__":
    sys.exit(main())
