"""Function composition against Peng, Narayanan & Papadimitriou 2024, Theorem 1, at a controlled
precision: one- and two-layer transformers fake-quantized to ``p`` bits, held-out error against
the bound ``R / (3 n log n)``.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.peng2024.configs.composition_depth`; the run:
:func:`transformer_theory.papers.peng2024.training.run_composition_depth`::

    python experiments/composition_depth.py --out results/composition_depth
"""

from __future__ import annotations

import argparse
import sys

from transformer_theory.cli._common import (
    comma_list,
    positive_int,
)
from transformer_theory.cli.experiment import configure, run_and_print
from transformer_theory.papers.peng2024.configs.composition_depth import SIZES, get_config
from transformer_theory.papers.peng2024.training import run_composition_depth


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="default", choices=SIZES, help="the config's size")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (tests)")
    p.add_argument("--n", type=positive_int, default=None, help="domain size n (default 16)")
    p.add_argument("--heads", type=positive_int, default=None, help="H (default 1)")
    p.add_argument("--widths", type=comma_list(int, minimum=1), default=None, help="embeddings d")
    p.add_argument("--bits", type=comma_list(int, minimum=1), default=None, help="p (32 = float32)")
    p.add_argument("--layers", type=comma_list(int, minimum=1), default=None, help="depths")
    p.add_argument("--steps", type=positive_int, default=None, help="Adam steps (default 2000)")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    size = "smoke" if args.smoke else args.size

    def configured():
        change = {"n": args.n, "heads": args.heads, "steps": args.steps, "seed": args.seed}
        for name in ("widths", "bits", "layers"):
            if getattr(args, name) is not None:
                change[name] = tuple(getattr(args, name))
        return configure(get_config, size, change, args.out)

    return run_and_print(
        run_composition_depth,
        configured,
        progress=size != "smoke",
        columns=["layers", "d", "p", "params", "final_loss", "error", "bound", "seconds"],
    )


if __name__ == "__main__":
    sys.exit(main())
