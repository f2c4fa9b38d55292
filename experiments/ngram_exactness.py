"""The ``transformer-theory ngram`` runs whose numbers README quotes (Svete & Cotterell 2024).

The experiment, its settings and its results are
``transformer_theory/papers/svete_cotterell2024/experiments/ngram_exactness.py``; this script is
its entry point (``--set field=value`` changes a field of every run's ``NGramSettings``)::

    python experiments/ngram_exactness.py --out results [--only ngram_hard,ngram_soft]
    python experiments/ngram_exactness.py --size smoke --out /tmp/smoke

Exit 1 if a hard or sparse construction is not equivalent in float64 (where the theorems claim
it), as ``transformer-theory ngram`` does.
"""

from __future__ import annotations

import argparse

from transformer_theory.cli._common import add_output, parse_script_args, refuse, script_parser
from transformer_theory.cli._options import override
from transformer_theory.papers.svete_cotterell2024.experiments import ngram_exactness as exp
from transformer_theory.precision import enable_x64
from transformer_theory.settings import OptionError, split_list
from transformer_theory.tables import table


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(__doc__.split("\n\n")[0])
    add_output(ap, None, help="parent directory of the runs")
    ap.add_argument("--size", default="default", choices=exp.SIZES)
    ap.add_argument("--only", default="all", help="comma list of run names (default: all)")
    ap.add_argument("--set", action="append", default=[], help="field=value (repeatable)")
    args = parse_script_args(ap, argv)
    if args.out is None:
        refuse(ap, "--out: required; see --help")
    enable_x64()
    config = exp.get_config(args.size)
    try:
        names = [name for name, _ in config.runs]
        only = names if args.only.strip() == "all" else split_list(args.only)
        unknown = [n for n in only if n not in names]
        if unknown:
            raise OptionError("--only", f"unknown {unknown}; choose from {', '.join(names)}")
        runs = tuple((name, override(s, args.set)) for name, s in config.runs)
    except (OptionError, argparse.ArgumentTypeError) as err:
        refuse(ap, f"--only: {err}" if isinstance(err, argparse.ArgumentTypeError) else err)
    result = exp.run(exp.ExactnessSettings(config.size, runs), args.out, only=only)
    print(table(result["rows"]))
    return 1 if any(r["float64_failures"] for r in result["rows"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
