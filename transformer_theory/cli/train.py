"""Train a Chen & Zou 2024 experiment: ``transformer-theory train --experiment NAME [--size
quick|paper] [--seeds ...] [--out DIR]``.

Thin by design: parses flags and calls ``experiments.<NAME>.run``; the experiment configs live in
the repository's ``experiments/`` folder (found next to the installed package in an editable
install, or in the current directory). Re-running the same command resumes killed runs from their
last checkpoint.
"""

from __future__ import annotations

import argparse
import os
import sys


def import_experiments():
    """Import the repository's ``experiments`` package (it is not part of the installed wheel)."""
    try:
        import experiments  # noqa: F401
    except ModuleNotFoundError:
        # An editable install finds the checkout next to the package; a plain `pip install .` run
        # from the repository root finds it in the working directory (console scripts do not put
        # the working directory on sys.path).
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        repo = next(
            (
                d
                for d in (here, os.getcwd())
                if os.path.isfile(os.path.join(d, "experiments", "__init__.py"))
            ),
            None,
        )
        if repo is None:
            raise SystemExit(
                "experiments/: not found; run `transformer-theory train` from the repository root"
            ) from None
        sys.path.insert(0, repo)
    import experiments

    return experiments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--experiment", required=True, help="fig2_depth | fig4_7_heads | fig3_attention_maps"
    )
    parser.add_argument("--size", default="quick", choices=("quick", "paper"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument(
        "--tasks",
        nargs="+",
        default=None,
        help="subset of memorization reasoning generalization contextual",
    )
    parser.add_argument(
        "--steps", type=int, default=None, help="override every run's step count (smoke tests)"
    )
    parser.add_argument(
        "--optimizer",
        default=None,
        choices=("sgd", "adam"),
        help="override the configs' optimizer (default: SGD, §9.1)",
    )
    parser.add_argument(
        "--lr", type=float, default=None, help="override the configs' learning rate"
    )
    parser.add_argument(
        "--out", default=None, help="output directory (default results/<experiment>_<size>)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")


def run(args) -> int:
    exps = import_experiments()
    mod = exps.get(args.experiment)
    out = args.out or os.path.join("results", f"{args.experiment}_{args.size}")
    rows = mod.run(
        out,
        size=args.size,
        seeds=args.seeds,
        tasks=args.tasks,
        steps=args.steps,
        progress=not args.no_progress,
        optimizer=args.optimizer,
        learning_rate=args.lr,
    )
    print(f"{len(rows)} run(s) done; outputs in {out}")
    return 0
