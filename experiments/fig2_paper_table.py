"""Write ``experiments/results/fig2_paper_summary.csv`` and print README's Figure 2 table from a
finished ``fig2_paper`` sweep.

Command (after ``transformer-theory train --experiment fig2_paper --out results/fig2_paper``)::

    python experiments/fig2_paper_table.py results/fig2_paper

or, for a sweep split over processes with ``--tasks``, every output directory::

    python experiments/fig2_paper_table.py results/fig2_paper_mrg results/fig2_paper_ctx

Seconds on 2 CPU cores: under one (it reads ``summary.json``).
"""

import dataclasses
import os
import sys

from transformer_theory.cli.scripts import EXIT_USAGE, script_options
from transformer_theory.settings import setting
from transformer_theory.sweeps import tables

HERE = os.path.dirname(os.path.abspath(__file__))
RESULT = os.path.join(HERE, "results", "fig2_paper_summary.csv")


@dataclasses.dataclass(frozen=True)
class Fig2TableSettings:
    """Which sweep is read and where its summary goes.

    Attributes:
      out: the sweep's output directories (each holds summary.json; a sweep split by --tasks
        over several processes has one per process).
      csv: where the summary goes (default experiments/results/fig2_paper_summary.csv).
    """

    out: tuple[str, ...] = setting(flag="OUT", words=True)
    csv: str = RESULT


def main(argv: list[str] | None = None) -> int:
    (args,) = script_options(argv, Fig2TableSettings, description=__doc__.split("\n\n")[0])
    try:
        rows = tables.read_summaries(list(args.out))
    except ValueError as err:
        print(f"fig2_paper_table: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    tables.write_summary_csv(rows, args.csv)
    print(tables.markdown_table(rows))
    print(f"\n{len(rows)} runs -> {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
