"""The ``transformer-theory ngram`` runs whose numbers README quotes (Svete & Cotterell 2024).

The experiment is defined by
``transformer_theory/papers/svete_cotterell2024/experiments/ngram_exactness.py`` (its docstring gives
the commands, their times and the results); this script is its entry point::

    python experiments/ngram_exactness.py --out results [--only ngram_hard,ngram_soft]
    python experiments/ngram_exactness.py --size smoke --out /tmp/smoke

Exit 1 if a hard or sparse construction is not equivalent in float64 (where the theorems claim
it), as ``transformer-theory ngram`` does.
"""

from __future__ import annotations

import argparse

from transformer_theory.cli._common import UsageError, format_table, name_list
from transformer_theory.papers.svete_cotterell2024.experiments import ngram_exactness


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="parent directory of the runs")
    ap.add_argument("--size", default="default", choices=ngram_exactness.SIZES)
    ap.add_argument("--only", default=None, help="comma list of run names (default: all)")
    args = ap.parse_args(argv)
    config = ngram_exactness.get_config(args.size)
    names = [name for name, _ in config.runs]
    try:
        only = name_list(args.only or "all", names, "--only")
    except UsageError as err:
        ap.error(str(err))
    result = ngram_exactness.run(config, args.out, only=only)
    print(format_table(result["rows"]))
    return 1 if any(r["float64_failures"] for r in result["rows"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
