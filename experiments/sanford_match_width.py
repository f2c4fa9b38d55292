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
import dataclasses
import sys

from transformer_theory.cli._common import (
    UsageError,
    comma_list,
    format_table,
    name_list,
    positive_int,
    prepare_out_dir,
)
from transformer_theory.papers.sanford2023.configs.match_width import SIZES, get_config
from transformer_theory.papers.sanford2023.match_training import DEPTHS, run_match_width


def _option_error(err: ValueError) -> str:
    """A config's ``ValueError`` (``name: ...``) as the option it came from (``--name: ...``)."""
    name, _, rest = str(err).partition(":")
    return f"--{name.replace('_', '-')}:{rest}"


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
    try:
        change = {"steps": args.steps}
        if args.tasks is not None:
            change["tasks"] = tuple(name_list(args.tasks, DEPTHS, "--tasks"))
        if args.widths is not None:
            change["widths"] = tuple(args.widths)
        if args.heads is not None:
            change["heads"] = tuple(args.heads)
        config = dataclasses.replace(
            get_config(size), **{k: v for k, v in change.items() if v is not None}
        )
        out = prepare_out_dir(args.out)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ValueError as err:
        print(f"error: {_option_error(err)}", file=sys.stderr)
        return 2
    records = run_match_width(config, out, progress=size != "smoke")
    print(
        format_table(
            records,
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
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
