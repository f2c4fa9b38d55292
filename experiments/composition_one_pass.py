"""Function composition in one pass against Peng, Narayanan & Papadimitriou 2024, Theorem 1, with
models that learn: trained one-layer models (pair-token prompts, an auxiliary f(x) curriculum)
where the bound is void and where ``R > 0``, beside a hand-built exact one-layer model.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.configs.composition_one_pass`; the run:
:func:`transformer_theory.papers.peng2024.one_pass.run`::

    python experiments/composition_one_pass.py --out results/composition_one_pass
"""

from __future__ import annotations

import sys

from transformer_theory.cli.experiment import steps_seed_script
from transformer_theory.papers.peng2024.configs.composition_one_pass import SIZES, get_config
from transformer_theory.papers.peng2024.one_pass import run

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
    return steps_seed_script(
        argv,
        description=__doc__.splitlines()[0],
        sizes=SIZES,
        get_config=get_config,
        run=run,
        columns=COLUMNS,
    )


if __name__ == "__main__":
    sys.exit(main())
