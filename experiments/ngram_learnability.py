"""Can a small transformer LEARN an n-gram LM? (Svete & Cotterell 2024's follow-up question.)

The experiment, its settings and its results are
``transformer_theory/papers/svete_cotterell2024/experiments/ngram_learnability.py``; this script
is its entry point (``--set field=value`` changes a field of its ``LearnabilitySettings``)::

    python experiments/ngram_learnability.py --out results/ngram_learnability
    python experiments/ngram_learnability.py --size smoke --out /tmp/smoke   # (or --smoke)
    python experiments/ngram_learnability.py --set steps=100 --set seed=1 --out /tmp/short
"""

from __future__ import annotations

import sys

from transformer_theory.cli._common import experiment_script
from transformer_theory.papers.svete_cotterell2024.experiments import ngram_learnability as exp


def main(argv: list[str] | None = None) -> int:
    return experiment_script(
        argv,
        exp,
        description=__doc__.split("\n\n")[0],
        report=lambda result: print(f"{result.seconds:.0f} s"),
    )


if __name__ == "__main__":
    sys.exit(main())
