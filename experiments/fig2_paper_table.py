"""Write ``experiments/results/fig2_paper_summary.csv`` and print README's Figure 2 table from a
finished ``fig2_paper`` sweep.

Command (after ``transformer-theory train --experiment fig2_paper --out results/fig2_paper``)::

    python experiments/fig2_paper_table.py results/fig2_paper

or, for a sweep split over processes with ``--tasks``, every output directory::

    python experiments/fig2_paper_table.py results/fig2_paper_mrg results/fig2_paper_ctx

Seconds on 2 CPU cores: under one (it reads ``summary.json``).
"""

import os

from transformer_theory.cli._common import parse_script_args, refuse, script_parser
from transformer_theory.sweeps import tables

HERE = os.path.dirname(os.path.abspath(__file__))
RESULT = os.path.join(HERE, "results", "fig2_paper_summary.csv")


def main() -> None:
    parser = script_parser(__doc__.split("\n\n")[0])
    parser.add_argument(
        "out",
        nargs="+",
        help="the sweep's output directories (each holds summary.json; a sweep split by --tasks "
        "over several processes has one per process)",
    )
    parser.add_argument("--csv", default=RESULT, help=f"where the summary goes (default {RESULT})")
    args = parse_script_args(parser, None)
    try:
        rows = tables.read_summaries(args.out)
    except ValueError as err:
        refuse(parser, err)
    tables.write_summary_csv(rows, args.csv)
    print(tables.markdown_table(rows))
    print(f"\n{len(rows)} runs -> {args.csv}")


if __name__ == "__main__":
    main()
