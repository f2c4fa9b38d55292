"""Plot a training output directory: ``transformer-theory plot DIR`` (written by
``transformer-theory train``).

Reads ``DIR/experiment.json`` to find which experiment wrote it and calls that experiment's
``plot``; prints the PNG paths.
"""

from __future__ import annotations

import argparse
import json
import os


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", help="an output directory of `transformer-theory train`")


def run(args) -> int:
    path = os.path.join(args.dir, "experiment.json")
    if not os.path.exists(path):
        raise SystemExit(
            f"dir: {args.dir} has no experiment.json; is it an output of "
            "`transformer-theory train`?"
        )
    with open(path) as f:
        name = json.load(f)["experiment"]
    from transformer_theory.cli.train import import_experiments

    for png in import_experiments().get(name).plot(args.dir):
        print(png)
    return 0
