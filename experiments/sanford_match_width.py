"""Training one softmax layer on Match2 and Match3 (the tasks of Sanford, Hsu & Telgarsky 2023):
held-out accuracy against the query/key width; a TRAINABILITY result, not a test of the Match3
impossibility theorem.

The experiment, its command, its cost and its result (and why it says nothing about the theorem):
:mod:`transformer_theory.papers.sanford2023.experiments.match_width` (the same as
``transformer-theory experiment match_width``); ``--set field=value`` changes one of its
settings::

    python experiments/sanford_match_width.py --out results/sanford_match_width
    python experiments/sanford_match_width.py --size large --out results/match_width_large
    python experiments/sanford_match_width.py --set tasks=match2 --set widths=1,4 --out /tmp/mw
"""

from __future__ import annotations

import sys

from transformer_theory.cli._common import experiment_script
from transformer_theory.papers.sanford2023.experiments import match_width

COLUMNS = ["task", "depth", "heads", "qk_dim", "accuracy", "majority_baseline", "seconds"]


def main(argv: list[str] | None = None) -> int:
    return experiment_script(
        argv, match_width, description=__doc__.split("\n\n")[0], columns=COLUMNS
    )


if __name__ == "__main__":
    sys.exit(main())
