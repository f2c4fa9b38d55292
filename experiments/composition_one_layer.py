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
import dataclasses
import sys

from transformer_theory.cli._common import (
    UsageError,
    format_table,
    positive_int,
    prepare_out_dir,
)
from transformer_theory.papers.peng2024.configs.composition_one_layer import SIZES, get_config
from transformer_theory.papers.peng2024.training import run_one_layer


def _option_error(err: ValueError) -> str:
    """A config's ``ValueError`` (``name: ...``) as the option it came from (``--name: ...``)."""
    name, _, rest = str(err).partition(":")
    return f"--{name.replace('_', '-')}:{rest}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="default", choices=SIZES, help="the config's size")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (tests)")
    p.add_argument("--steps", type=positive_int, default=None, help="Adam steps (default 800)")
    args = p.parse_args(argv)
    size = "smoke" if args.smoke else args.size
    try:
        change = {"steps": args.steps}
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
    records = run_one_layer(config, out, progress=size != "smoke")
    print(
        format_table(
            records,
            columns=["layers", "d", "format", "p", "error", "bound", "chance_error", "seconds"],
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
