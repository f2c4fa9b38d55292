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
import dataclasses
import sys

from transformer_theory.cli._common import (
    UsageError,
    comma_list,
    format_table,
    positive_int,
    prepare_out_dir,
)
from transformer_theory.papers.peng2024.configs.composition_depth import SIZES, get_config
from transformer_theory.papers.peng2024.training import run_composition_depth


def _option_error(err: ValueError) -> str:
    """A config's ``ValueError`` (``name: ...``) as the option it came from (``--name: ...``)."""
    name, _, rest = str(err).partition(":")
    return f"--{name.replace('_', '-')}:{rest}"


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
    try:
        change = {"n": args.n, "heads": args.heads, "steps": args.steps, "seed": args.seed}
        for name in ("widths", "bits", "layers"):
            if getattr(args, name) is not None:
                change[name] = tuple(getattr(args, name))
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
    records = run_composition_depth(config, out, progress=size != "smoke")
    print(
        format_table(
            records,
            columns=["layers", "d", "p", "params", "final_loss", "error", "bound", "seconds"],
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
