"""The n-gram constructions' weak equivalence and exact length in float64/float32/bfloat16.

Svete & Cotterell 2024, Theorems 3.1-3.3 and this library's variants at every precision: the
``transformer-theory ngram`` runs whose numbers README quotes, as one experiment
(each run an :class:`.ngram.NGramSettings`, the command's options, run by
:func:`.._study_ngram.run`; the experiment's study is :mod:`.._study_ngram_exactness`).

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

``python experiments/ngram_exactness.py --out results [--only NAME,...]`` (or ``transformer-theory
experiment ngram_exactness --out results``) runs all four, each into ``results/<name>/``
(``ngram.json``, ``ngram_precision.png``, ``ngram_soft.png``: see ``transformer-theory ngram``);
``--size smoke`` runs one small hard-attention run (the paper's 3.1 and 3.3, a bigram LM, float64)
in under a minute. Results:

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

import dataclasses

from transformer_theory.papers.svete_cotterell2024.experiments import ngram
from transformer_theory.papers.svete_cotterell2024.experiments.ngram import (
    ALL_CONSTRUCTIONS,
    NGramSettings,
)

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = ["SIZES", "ExactnessSettings", "get_config"]

SIZES = ("smoke", "default")


@dataclasses.dataclass(frozen=True)
class ExactnessSettings:
    """Named study runs (``name -> NGramSettings``), each written to ``out_dir/name``."""

    size: str = "default"
    runs: tuple[tuple[str, NGramSettings], ...] = ()


def get_config(size: str = "default") -> ExactnessSettings:
    """The runs quoted above (``"default"``: the trigram LM over 3 symbols with 20% zeros, seed 0)
    or one small hard-attention run (``"smoke"``)."""
    if size == "smoke":
        smoke = ngram.get_config("smoke")  # the ngram experiment's own smoke run
        return ExactnessSettings(size="smoke", runs=(("ngram_hard", smoke),))
    if size != "default":
        raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")
    hard = NGramSettings(max_len=6, constructions=ALL_CONSTRUCTIONS, zero_fraction=0.2)
    sparse = NGramSettings(
        attention="sparse",
        max_len=4,
        precisions=("float64",),
        constructions=("3.1", "3.2", "3.3-slots"),
        scan_limit=10,
    )
    soft = NGramSettings(
        attention="softmax",
        beta=1000.0,
        alphabet=2,
        max_len=6,
        precisions=("float64",),
        constructions=("3.1", "3.2", "3.2-direct", "3.3-slots"),
        zero_fraction=0.0,
        soft_lengths=(1, 2, 3, 4, 5, 6),
    )
    return ExactnessSettings(
        runs=(
            (
                "ngram_hard",
                dataclasses.replace(hard, precisions=("float64", "bfloat16"), scan_limit=12),
            ),
            (
                "ngram_hard_float32",
                dataclasses.replace(hard, precisions=("float32",), scan_limit=40),
            ),
            ("ngram_sparse", sparse),
            ("ngram_soft", soft),
        )
    )
