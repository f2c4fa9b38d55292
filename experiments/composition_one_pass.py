"""Function composition in one pass against Peng, Narayanan & Papadimitriou 2024, Theorem 1, with
models that learn: trained one-layer models (pair-token prompts, an auxiliary f(x) curriculum)
where the bound is void and where ``R > 0``, beside a hand-built exact one-layer model.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.configs.composition_one_pass`; the run:
:func:`transformer_theory.papers.peng2024.one_pass.run`::

    python experiments/composition_one_pass.py --out results/composition_one_pass
"""

from __future__ import annotations

import argparse
import sys

from transformer_theory.cli._common import positive_int
from transformer_theory.cli.experiment import configure, run_and_print
from transformer_theory.papers.peng2024.configs.composition_one_pass import SIZES, get_config
from transformer_theory.papers.peng2024.one_pass import run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="default", choices=SIZES, help="the config's size")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (tests)")
    p.add_argument("--steps", type=positive_int, default=None, help="Adam steps per model")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    size = "smoke" if args.smoke else args.size

    def configured():
        return configure(get_config, size, {"steps": args.steps, "seed": args.seed}, args.out)

    return run_and_print(
        run,
        configured,
        progress=size != "smoke",
        columns=[
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
        ],
    )


if __name__ == "__main__":
    sys.exit(main())
