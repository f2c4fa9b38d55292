"""The qSA separation, trained (Sanford, Hsu & Telgarsky 2023): one softmax attention unit, a
fully connected ReLU network and a GRU on q-sparse averaging, held-out error against width.

The experiment, its command, its cost and its result:
:mod:`transformer_theory.papers.sanford2023.configs.qsa_separation`; the run:
:func:`transformer_theory.papers.sanford2023.separations.run_qsa_separation`::

    python experiments/sanford_qsa_separation.py --out results/sanford_qsa
"""

from __future__ import annotations

import argparse
import sys

from transformer_theory.cli._common import (
    positive_int,
)
from transformer_theory.cli.experiment import configure, run_and_print
from transformer_theory.papers.sanford2023.configs.qsa_separation import SIZES, get_config
from transformer_theory.papers.sanford2023.separations import run_qsa_separation


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="default", choices=SIZES, help="the config's size")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (tests)")
    p.add_argument("--seq-len", type=positive_int, default=None, help="N (default 16)")
    p.add_argument("--q", type=positive_int, default=None, help="subset size q (default 1)")
    p.add_argument("--dim", type=positive_int, default=None, help="d' (default 1)")
    p.add_argument("--steps", type=positive_int, default=None, help="Adam steps (default 3000)")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    size = "smoke" if args.smoke else args.size

    def configured():
        change = {"seq_len": args.seq_len, "q": args.q, "dim": args.dim, "steps": args.steps}
        change["seed"] = args.seed
        return configure(get_config, size, change, args.out)

    return run_and_print(
        run_qsa_separation,
        configured,
        progress=size != "smoke",
        columns=[
            "model",
            "width",
            "params",
            "threshold",
            "mean_max_error",
            "within_epsilon",
            "seconds",
        ],
    )


if __name__ == "__main__":
    sys.exit(main())
