"""Svete & Cotterell 2024, Theorems 3.1-3.3 at every precision: the three ``transformer-theory
ngram`` runs whose numbers README quotes (hard attention, sparse attention, softmax attention).

Commands (this machine, 2 CPU cores shared with other jobs, 2026-11-22)::

    transformer-theory ngram --out results/ngram_hard                       # 2 min 27 s
    transformer-theory ngram --attention sparse --out results/ngram_sparse  # 11 min (shared)
    transformer-theory ngram --attention softmax --beta 1000 --alphabet 2 --max-len 6 \\
        --precision float64 --soft-lengths 1,2,3,4,5,6 --out results/ngram_soft   # 3 min

(``python experiments/ngram_exactness.py --out results`` runs all three.) Results, for a random
trigram LM over 3 symbols with 20% exact zeros (seed 0), every string up to 8 symbols (9,841
strings):

- float64 and float32, hard and sparse attention, all three constructions: weakly equivalent,
  ``max |log q(y) - log p(y)|`` = 3.6e-15 (float64) and 9.1e-7 (float32); the mass of the strings
  up to 8 is 0.947802554896283 under both (float64). bfloat16: not equivalent (errors 8-15 nats).
- the longest exactly equivalent string length (first position whose attention is not the
  proof's), measured / derived guarantee: 3.1 and 3.2 (hard) float64 92,866 / 48,283, float32
  118 / 55, bfloat16 1 / none; 3.3 float64 7,400 / 4,868, float32 46 / 29, bfloat16 2 / none.
  Sparse 3.1/3.2 stay exact up to length 10, just past the ``--max-len`` 8 their score scale was
  chosen for; sparse 3.3 as hard 3.3.
- softmax (a trigram LM over 2 symbols without zeros, KL over the first 7 outcomes): 3.1/3.2
  need beta = 993, 1,416, 2,642, 4,277, 6,581, 9,530 for KL <= 1e-3 at lengths 1..6 (KL 0.098 at
  beta = 1000 for length 6, 8.1e-4 at 1e4, 2e-17 at 1e5); 3.3 needs beta = 0.9 at every length
  (KL 4.8e-4 at beta = 1, 1e-17 from beta = 10): its integer score gap does not shrink.
"""

from __future__ import annotations

import argparse
import os

from transformer_theory.cli import main as cli_main

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
    code = 0
    for name, extra in RUNS.items():
        if args.only and name not in args.only.split(","):
            continue
        code = max(code, cli_main(["ngram", *extra, "--out", os.path.join(args.out, name)]))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
