"""Training one softmax layer on Match2 and Match3 (the tasks of Sanford, Hsu & Telgarsky 2023):
held-out accuracy against the query/key width; a TRAINABILITY result, not a test of the Match3
impossibility theorem.

The experiment, its command, its cost and its result (and why it says nothing about the theorem):
:mod:`transformer_theory.papers.sanford2023.configs.match_width`; the run:
:func:`transformer_theory.papers.sanford2023.match_training.run_match_width`::

    python experiments/sanford_match_width.py --out results/sanford_match_width
    python experiments/sanford_match_width.py --size large --out results/match_width_large
"""

from __future__ import annotations

import argparse
import sys

from transformer_theory.cli._common import (
    comma_list,
    name_list,
    positive_int,
)
from transformer_theory.cli.experiment import configure, run_and_print
from transformer_theory.papers.sanford2023.configs.match_width import SIZES, get_config
from transformer_theory.papers.sanford2023.match_training import DEPTHS, run_match_width


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="default", choices=SIZES, help="the config's size")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (tests)")
    p.add_argument("--widths", type=comma_list(int, minimum=1), default=None, help="widths m")
    p.add_argument("--heads", type=comma_list(int, minimum=1), default=None, help="heads")
    p.add_argument("--tasks", default=None, help="comma list of match2, match3, match3bigram")
    p.add_argument("--steps", type=positive_int, default=None, help="Adam steps (default 1500)")
    args = p.parse_args(argv)
    size = "smoke" if args.smoke else args.size

    def configured():
        change = {"steps": args.steps}
        if args.tasks is not None:
            change["tasks"] = tuple(name_list(args.tasks, DEPTHS, "--tasks"))
        if args.widths is not None:
            change["widths"] = tuple(args.widths)
        if args.heads is not None:
            change["heads"] = tuple(args.heads)
        return configure(get_config, size, change, args.out)

    return run_and_print(
        run_match_width,
        configured,
        progress=size != "smoke",
        columns=[
            "task",
            "depth",
            "heads",
            "qk_dim",
            "accuracy",
            "majority_baseline",
            "seconds",
        ],
    )


if __name__ == "__main__":
    sys.exit(main())
