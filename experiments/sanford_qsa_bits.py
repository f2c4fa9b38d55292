"""The qSA lower bounds of Sanford, Hsu & Telgarsky 2023 in BITS: the attention unit with its query
rounded to ``p`` bits, the two-pass GRU with its state rounded to ``p`` bits, swept over width x
precision across the thresholds.

The experiments, their commands, costs and results:
:mod:`transformer_theory.papers.sanford2023.experiments.qsa_bits_attention` and
:mod:`~transformer_theory.papers.sanford2023.experiments.qsa_bits_rnn` (``--model``; the same as
``transformer-theory experiment qsa_bits_attention`` / ``qsa_bits_rnn``); ``--set field=value``
changes one of their settings::

    python experiments/sanford_qsa_bits.py --model attention --out results/qsa_bits_attention
    python experiments/sanford_qsa_bits.py --model rnn --out results/qsa_bits_rnn
    python experiments/sanford_qsa_bits.py --model rnn --set widths=8,32 --set bits=3,8 \\
        --set steps=3000 --out results/qsa_bits_rnn_wide
"""

import sys

from transformer_theory.cli.scripts import script_main
from transformer_theory.papers.sanford2023.experiments import qsa_bits_attention, qsa_bits_rnn

EXPERIMENTS = {"attention": qsa_bits_attention, "rnn": qsa_bits_rnn}
COLUMNS = "model width bits message_bits bits_needed mean_max_error within_epsilon"

main = script_main(
    None,
    COLUMNS,
    description=__doc__.split("\n\n")[0],
    choose=("--model", EXPERIMENTS, "attention", "which unit is swept"),
)

if __name__ == "__main__":
    sys.exit(main())
