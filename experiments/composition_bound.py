"""Function composition in one pass against Peng, Narayanan & Papadimitriou 2024, Theorem 1: one
recipe that learns ``g(f(x))`` where the bound is void, run where ``R > 0``; error against the
bound ``R / (3 n log n)``.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.configs.composition_bound`; the run:
:func:`transformer_theory.papers.peng2024.cot.run_composition_bound`::

    python experiments/composition_bound.py --out results/composition_bound
"""

from __future__ import annotations

import argparse
import sys

from transformer_theory.cli._common import positive_int
from transformer_theory.cli.experiment import configure, run_and_print
from transformer_theory.papers.peng2024.configs.composition_bound import SIZES, get_config
from transformer_theory.papers.peng2024.cot import run_composition_bound


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
        run_composition_bound,
        configured,
        progress=size != "smoke",
        columns=["n", "heads", "d", "p", "R", "final_loss", "error", "bound", "seconds"],
    )


if __name__ == "__main__":
    sys.exit(main())
