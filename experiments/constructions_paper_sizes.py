"""The Chen & Zou 2024 constructions (Theorems 1, 3, 5, 6) checked at the paper's §9.1 sizes.

The experiment (its settings, ``get_config(size)``, the sizes, how long it takes and the table it
gave) is :mod:`transformer_theory.papers.chen_zou2024.experiments.constructions_paper_sizes`, the
same as ``transformer-theory experiment constructions_paper_sizes``; this script reads its config
(the settings' fields are its options: ``--part``, ``--samples``, ``--seed``, ``--chunk-size``;
``--size smoke`` / ``--smoke`` its tiny sizes)::

    python experiments/constructions_paper_sizes.py --out results/constructions_paper_sizes

Prints each theorem's rows as they finish and the whole table, writes ``construct_<part>.json``;
exit 1 when a row is not exact.
"""

import sys

from transformer_theory.cli.scripts import script_settings
from transformer_theory.constructions.study import TABLE_COLUMNS
from transformer_theory.papers import study_of
from transformer_theory.papers.chen_zou2024.experiments import (
    constructions_paper_sizes as experiment,
)
from transformer_theory.precision import enable_x64
from transformer_theory.tables import table


def main(argv=None) -> int:
    config, output = script_settings(
        argv,
        experiment.get_config,
        experiment.SIZES,
        description=__doc__.split("\n\n")[0],
        out="results/constructions_paper_sizes",
    )
    enable_x64()  # an entry point: the constructions are built in float64

    def rows(new):
        print("\n".join(table(new, TABLE_COLUMNS).splitlines()[2:]), flush=True)

    result = study_of(experiment).run(
        config, output.out, progress=output.progress and sys.stderr.isatty(), on_rows=rows
    )
    print()
    print(table(result.rows, TABLE_COLUMNS))
    print(f"wrote {result.path}")
    return 0 if result.exact else 1


if __name__ == "__main__":
    sys.exit(main())
