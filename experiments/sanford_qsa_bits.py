"""The qSA lower bounds of Sanford, Hsu & Telgarsky 2023 in BITS: the attention unit with its query
rounded to ``p`` bits, the two-pass GRU with its state rounded to ``p`` bits, swept over width x
precision across the thresholds.

The experiments, their commands, costs and results:
:mod:`transformer_theory.papers.sanford2023.configs.qsa_bits_attention` and
:mod:`~transformer_theory.papers.sanford2023.configs.qsa_bits_rnn` (``--model``); the run:
:func:`transformer_theory.papers.sanford2023.separations.run_qsa_bits`::

    python experiments/sanford_qsa_bits.py --model attention --out results/qsa_bits_attention
    python experiments/sanford_qsa_bits.py --model rnn --out results/qsa_bits_rnn
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
from transformer_theory.papers.sanford2023.configs import qsa_bits_attention, qsa_bits_rnn
from transformer_theory.papers.sanford2023.separations import run_qsa_bits

CONFIGS = {"attention": qsa_bits_attention, "rnn": qsa_bits_rnn}
SIZES = qsa_bits_attention.SIZES


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="default", choices=SIZES, help="the config's size")
    p.add_argument("--smoke", action="store_true", help="the same as --size smoke (tests)")
    p.add_argument("--model", default="attention", help="attention or rnn")
    p.add_argument("--widths", type=comma_list(int, minimum=1), default=None, help="m (comma list)")
    p.add_argument("--bits", type=comma_list(int, minimum=1), default=None, help="p >= 2 (list)")
    p.add_argument("--steps", type=positive_int, default=None, help="Adam steps (default 1000)")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args(argv)
    size = "smoke" if args.smoke else args.size

    def configured():
        (model,) = name_list(args.model, CONFIGS, "--model")
        widths = None if args.widths is None else tuple(args.widths)
        bits = None if args.bits is None else tuple(args.bits)
        change = {"widths": widths, "bits": bits, "steps": args.steps, "seed": args.seed}
        return configure(CONFIGS[model].get_config, size, change, args.out)

    return run_and_print(
        run_qsa_bits,
        configured,
        progress=size != "smoke",
        columns=[
            "model",
            "width",
            "bits",
            "message_bits",
            "bits_needed",
            "mean_max_error",
            "within_epsilon",
        ],
    )


if __name__ == "__main__":
    sys.exit(main())
