"""Function composition (Peng, Narayanan & Papadimitriou 2024, Theorem 1) in the library's parameter
format: one- and two-layer softmax transformers, held-out error in float32 and bfloat16 against
the bound ``R / (3 n log n)``.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.configs.composition_one_layer`; the run:
:func:`transformer_theory.papers.peng2024.training.run_one_layer`::

    python experiments/composition_one_layer.py --out results/composition
"""

from __future__ import annotations

import argparse
import sys

from transformer_theory.cli._common import (
    positive_int,
)
from transformer_theory.cli.experiment import configure, run_and_print
from transformer_theory.papers.peng2024.configs.composition_one_layer import SIZES, get_config
from transformer_theory.papers.peng2024.training import run_one_layer


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="default", choices=SIZES, help="the config's size")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (tests)")
    p.add_argument("--steps", type=positive_int, default=None, help="Adam steps (default 800)")
    args = p.parse_args(argv)
    size = "smoke" if args.smoke else args.size

    def configured():
        change = {"steps": args.steps}
        return configure(get_config, size, change, args.out)

    return run_and_print(
        run_one_layer,
        configured,
        progress=size != "smoke",
        columns=["layers", "d", "format", "p", "error", "bound", "chance_error", "seconds"],
    )


if __name__ == "__main__":
    sys.exit(main())
