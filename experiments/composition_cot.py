"""Iterated function composition with chain of thought against Peng, Narayanan & Papadimitriou
2024, Theorem 2: one-layer transformers fake-quantized to ``p`` bits, the CoT steps they need
against ``sqrt(n / (H d p))``.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.configs.composition_cot`; the run:
:func:`transformer_theory.papers.peng2024.cot.run_composition_cot`::

    python experiments/composition_cot.py --out results/composition_cot
"""

from __future__ import annotations

import argparse
import sys

from transformer_theory.cli._common import comma_list, positive_int
from transformer_theory.cli.experiment import configure, run_and_print
from transformer_theory.papers.peng2024.configs.composition_cot import SIZES, get_config
from transformer_theory.papers.peng2024.cot import run_composition_cot


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="default", choices=SIZES, help="the config's size")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (tests)")
    p.add_argument("--ns", type=comma_list(int, minimum=2), default=None, help="domain sizes n")
    p.add_argument("--steps", type=positive_int, default=None, help="Adam steps per model")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    size = "smoke" if args.smoke else args.size

    def configured():
        change = {"steps": args.steps, "seed": args.seed}
        if args.ns is not None:
            change["ns"] = tuple(args.ns)
        return configure(get_config, size, change, args.out)

    return run_and_print(
        run_composition_cot,
        configured,
        progress=size != "smoke",
        columns=[
            "n",
            "stride",
            "cot_steps",
            "heads",
            "d",
            "p",
            "final_loss",
            "accuracy",
            "cot_bound",
            "seconds",
        ],
    )


if __name__ == "__main__":
    sys.exit(main())
