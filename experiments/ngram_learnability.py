"""Can a small transformer LEARN an n-gram LM? (Svete & Cotterell 2024's follow-up question.)

The experiment, its settings and its results are
``transformer_theory/papers/svete_cotterell2024/experiments/ngram_learnability.py``; this script
is its entry point (``--set field=value`` changes a field of its ``LearnabilitySettings``)::

    python experiments/ngram_learnability.py --out results/ngram_learnability
    python experiments/ngram_learnability.py --size smoke --out /tmp/smoke   # (or --smoke)
    python experiments/ngram_learnability.py --set steps=100 --set seed=1 --out /tmp/short
"""

import sys

from transformer_theory.cli.scripts import script_main
from transformer_theory.papers.svete_cotterell2024.experiments import ngram_learnability as exp

main = script_main(exp, report=lambda result: print(f"{result.seconds:.0f} s"))

if __name__ == "__main__":
    sys.exit(main())
