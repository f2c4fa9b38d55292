"""The ``transformer-theory ngram`` runs whose numbers README quotes (Svete & Cotterell 2024).

The experiment, its settings and its results are
``transformer_theory/papers/svete_cotterell2024/experiments/ngram_exactness.py``; this script is
its entry point (``--set field=value`` changes a field of every run's ``NGramSettings``,
:mod:`transformer_theory.papers.svete_cotterell2024.experiments.ngram`)::

    python experiments/ngram_exactness.py --out results [--only ngram_hard,ngram_soft]
    python experiments/ngram_exactness.py --size smoke --out /tmp/smoke

Exit 1 if a hard or sparse construction is not equivalent in float64 (where the theorems claim
it), as ``transformer-theory ngram`` does.
"""

import dataclasses
import sys

from transformer_theory.cli.scripts import EXIT_USAGE, override, script_run
from transformer_theory.papers import study_of
from transformer_theory.papers.svete_cotterell2024.experiments import ngram_exactness as exp
from transformer_theory.precision import enable_x64
from transformer_theory.settings import OptionError, setting
from transformer_theory.tables import rows_of, table


@dataclasses.dataclass(frozen=True)
class ExactnessRuns:
    """Which of the experiment's runs are made.

    Attributes:
      only: comma list of run names (default: all).
    """

    only: tuple[str, ...] = setting(("all",))


def main(argv: list[str] | None = None) -> int:
    given = script_run(argv, exp, ExactnessRuns, description=__doc__.split("\n\n")[0])
    config = exp.get_config(given.size)
    try:
        names = [name for name, _ in config.runs]
        only = names if given.options.only == ("all",) else list(given.options.only)
        unknown = [n for n in only if n not in names]
        if unknown:
            raise OptionError("--only", f"unknown {unknown}; choose from {', '.join(names)}")
        settings = tuple((name, override(s, given.sets)) for name, s in config.runs)
    except OptionError as err:
        print(f"ngram_exactness: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    enable_x64()
    result = study_of(exp).run(exp.ExactnessSettings(config.size, settings), given.out, only=only)
    print(table(rows_of(result)))
    return 1 if any(r.float64_failures for r in result.rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
