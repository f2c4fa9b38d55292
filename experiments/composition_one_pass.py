"""Function composition in one pass against Peng, Narayanan & Papadimitriou 2024, Theorem 1, with
models that learn: trained one-layer models (pair-token prompts, an auxiliary f(x) curriculum)
where the bound is void and where ``R > 0``, beside a hand-built exact one-layer model.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.experiments.composition_one_pass` (the same as
``transformer-theory experiment composition_one_pass``); ``--set field=value`` changes one of its
settings::

    python experiments/composition_one_pass.py --out results/composition_one_pass
    python experiments/composition_one_pass.py --smoke --out /tmp/smoke
    python experiments/composition_one_pass.py --set steps=100 --set seed=1 --out /tmp/short
"""

from __future__ import annotations

import sys

from transformer_theory.cli._common import experiment_script
from transformer_theory.papers.peng2024.experiments import composition_one_pass

COLUMNS = [
    "n",
    "heads",
    "d",
    "p",
    "R",
    "final_loss",
    "converged",
    "error",
    "bound",
    "mode_error",
    "seconds",
]


def main(argv: list[str] | None = None) -> int:
    return experiment_script(
        argv, composition_one_pass, description=__doc__.split("\n\n")[0], columns=COLUMNS
    )


if __name__ == "__main__":
    sys.exit(main())
