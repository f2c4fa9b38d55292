"""Training one softmax layer on Match2 and Match3 (the tasks of Sanford, Hsu & Telgarsky 2023):
held-out accuracy against the query/key width; a TRAINABILITY result, not a test of the Match3
impossibility theorem.

The experiment (its settings, command, cost and result):
:mod:`transformer_theory.papers.sanford2023.experiments.match_width`, also run by
``transformer-theory experiment match_width``; ``--set field=value`` changes a setting::

    python experiments/sanford_match_width.py --out results/sanford_match_width
    python experiments/sanford_match_width.py --size large --out results/match_width_large
    python experiments/sanford_match_width.py --set tasks=match2 --set widths=1,4 --out /tmp/mw
"""

import sys

from transformer_theory.cli.scripts import script_main
from transformer_theory.papers.sanford2023.experiments import match_width

main = script_main(match_width, "task depth heads qk_dim accuracy majority_baseline seconds")

if __name__ == "__main__":
    sys.exit(main())
