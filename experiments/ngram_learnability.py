"""Can a small transformer LEARN an n-gram LM? (Svete & Cotterell 2024's follow-up question.)

The experiment is defined by
``transformer_theory/papers/svete_cotterell2024/experiments/ngram_learnability.py`` (its docstring gives
the command, what it writes, how long it took and the result) and run by
:func:`transformer_theory.papers.svete_cotterell2024._models.run`; this script is its
entry point::

    python experiments/ngram_learnability.py --out results/ngram_learnability
    python experiments/ngram_learnability.py --size smoke --out /tmp/smoke   # (or --smoke)
"""

from __future__ import annotations

import argparse
import dataclasses
import os

from transformer_theory.cli._common import format_table, positive_int
from transformer_theory.papers.svete_cotterell2024.experiments import (
    ngram_learnability as learnability,
)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--size", default="default", choices=learnability.SIZES)
    ap.add_argument("--smoke", action="store_true", help="the same as --size smoke")
    ap.add_argument("--steps", type=positive_int, default=None, help="override: Adam steps")
    ap.add_argument("--seed", type=int, default=None, help="override: the seed")
    args = ap.parse_args(argv)
    config = learnability.get_config("smoke" if args.smoke else args.size)
    overrides = {k: getattr(args, k) for k in ("steps", "seed") if getattr(args, k) is not None}
    config = dataclasses.replace(config, **overrides)
    os.makedirs(args.out, exist_ok=True)
    result = learnability.run(config, args.out)
    print(format_table(result["rows"]))
    print(f"{result['seconds']:.0f} s")
    return result


if __name__ == "__main__":
    main()
