"""Svete & Cotterell 2024, Theorems 3.1-3.3 and this library's variants at every precision: the
``transformer-theory ngram`` runs whose numbers README quotes.

Commands and times (2-core x86 CPU shared with 7 other jobs, 2026-11-24), for a random trigram
LM over 3 symbols with 20% exact zeros (seed 0), every string up to 6 symbols (1,093)::

    transformer-theory ngram --max-len 6 --precision float64,bfloat16 --scan-limit 12 \\
        --out results/ngram_hard                                            # about 10 min 30 s
    transformer-theory ngram --max-len 6 --precision float32 --scan-limit 40 \\
        --out results/ngram_hard_float32                                    # 14 min 15 s
    transformer-theory ngram --attention sparse --max-len 4 --precision float64 \\
        --construction 3.1,3.2,3.3-slots --scan-limit 10 --out results/ngram_sparse   # 4 min
    transformer-theory ngram --attention softmax --beta 1000 --alphabet 2 --max-len 6 \\
        --precision float64 --soft-lengths 1,2,3,4,5,6 --out results/ngram_soft      # 8 min 45 s

(``python experiments/ngram_exactness.py --out results [--only NAME,...]`` runs them.) Results:

- float64 and float32, hard attention, all five constructions: weakly equivalent, ``max |log q(y)
  - log p(y)|`` = 3.6e-15 (float64; 0 for the paper's 3.3, whose readout is a table row) and
  6.7e-7 (float32; 5.5e-7 for the paper's 3.3); the mass of the strings up to 6 is
  0.8956206794791504 under every float64 model and the n-gram's forward recursion. bfloat16: not
  equivalent (4.2-16 nats).
- longest exact length (the model run at every length up to the scan limit, every query's
  attention the proof's; the paper's 3.3: every position's decoded history, on 33 strings per
  length): float64 no failure up to 12 for all five (derived guarantees 48,283 for 3.1/3.2/
  3.2-direct, 4,868 for 3.3-slots); float32 no failure up to 40 for 3.1/3.2/3.2-direct (derived
  55), 3.3-slots exact to 39 (derived 29), the paper's 3.3 exact to 35 (its ``10^-t`` values
  leave float32's normal range at ``t = 38``); bfloat16 1 (3.1/3.2/3.2-direct), 2 (3.3-slots), 0
  (the paper's 3.3).
- sparse, built for max_len 4: equivalent up to 4; 3.1 and 3.2 exact to length 5 and wrong at 6
  (the scale is chosen for max_len, the gap shrinks); 3.3-slots no failure up to 10.
- softmax (a trigram LM over 2 symbols without zeros, KL over the first 7 outcomes): 3.1 and
  3.2-direct need beta = 993, 1,416, 2,642, 4,277, 6,581, 9,530 for KL <= 1e-3 at lengths 1..6,
  the paper's 3.2 993, 1,423, 2,751, 4,568, 7,210, 10,600; 3.3-slots needs beta = 0.9 at every
  length (KL 4.8e-4 at beta = 1, 1.1e-17 from beta = 10): its integer score gap does not shrink.
"""

from __future__ import annotations

import argparse
import os

from transformer_theory.cli import main as cli_main
from transformer_theory.cli._common import UsageError, name_list

RUNS = {
    "ngram_hard": ["--max-len", "6", "--precision", "float64,bfloat16", "--scan-limit", "12"],
    "ngram_hard_float32": ["--max-len", "6", "--precision", "float32", "--scan-limit", "40"],
    "ngram_sparse": ["--attention", "sparse", "--max-len", "4", "--precision", "float64"]
    + ["--construction", "3.1,3.2,3.3-slots", "--scan-limit", "10"],
    "ngram_soft": ["--attention", "softmax", "--beta", "1000", "--alphabet", "2", "--max-len", "6"]
    + ["--precision", "float64", "--soft-lengths", "1,2,3,4,5,6"],
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="parent directory of the runs")
    ap.add_argument("--only", default=None, help="comma list of run names (default: all)")
    args = ap.parse_args(argv)
    try:
        only = name_list(args.only or "all", RUNS, "--only")
    except UsageError as err:
        ap.error(str(err))
    code = 0
    for name, extra in RUNS.items():
        if name not in only:
            continue
        code = max(code, cli_main(["ngram", *extra, "--out", os.path.join(args.out, name)]))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
