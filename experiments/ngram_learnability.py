"""Can a small transformer LEARN an n-gram LM? (Svete & Cotterell 2024's follow-up question.)

The experiment, its settings and its results are
``transformer_theory/papers/svete_cotterell2024/experiments/ngram_learnability.py``; this script
is its entry point (``--set field=value`` changes a field of its ``LearnabilitySettings``)::

    python experiments/ngram_learnability.py --out results/ngram_learnability
    python experiments/ngram_learnability.py --size smoke --out /tmp/smoke   # (or --smoke)
    python experiments/ngram_learnability.py --set steps=100 --set seed=1 --out /tmp/short
"""

from __future__ import annotations

import argparse
import os

from transformer_theory.cli._options import override
from transformer_theory.papers.svete_cotterell2024.experiments import ngram_learnability as exp
from transformer_theory.precision import enable_x64
from transformer_theory.settings import OptionError
from transformer_theory.tables import table


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--size", default="default", choices=exp.SIZES)
    ap.add_argument("--smoke", action="store_true", help="the same as --size smoke")
    ap.add_argument("--set", action="append", default=[], help="field=value (repeatable)")
    args = ap.parse_args(argv)
    enable_x64()
    try:
        config = override(exp.get_config("smoke" if args.smoke else args.size), args.set)
    except OptionError as err:
        ap.error(str(err))
    os.makedirs(args.out, exist_ok=True)
    result = exp.run(config, args.out)
    print(table(result["rows"]))
    print(f"{result['seconds']:.0f} s")
    return result


if __name__ == "__main__":
    main()
