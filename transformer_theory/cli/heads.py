"""Classify every attention head of trained models: ``transformer-theory heads RUN_DIR``.

Positional (``Sigma_1``), syntactic (``Sigma_2(w)``), rare-token (``Sigma_3``), other or empty, by
the L1 projection of Conti 2024, §3.1.2 with the residual as the score. ``RUN_DIR`` is a run or
experiment directory of ``transformer-theory train`` (Chen & Zou 2024's depth models) or of the
encoder-decoder experiment (``experiments/encdec_translation.py``). Writes, under ``--out``
(default ``results/heads``), ``heads.json`` / ``heads.csv`` (one record per head: run, attention,
layer, head, kind, score, per-family scores, best support; and the same up to a permutation, Conti
2024, eq. 19-20: ``kind_permuted``, ``score_permuted``) and ``<run>_heads.png`` (every head's map
on the first held-out input, titled with kind and score), and prints, per run, how many heads are
of each kind (plainly and up to a permutation). The options are the fields of the study's
settings (:mod:`transformer_theory.papers.conti2024.experiments.heads`, callable from Python);
this command parses, calls it and prints.

A run whose checkpoint cannot be read (files missing or corrupted) is refused in one line naming
the directory and what is wrong (exit 2), before any classification.
"""

from __future__ import annotations

import argparse
import sys

from transformer_theory.cli._common import add_output, prepare_out_dir
from transformer_theory.cli._options import add_settings
from transformer_theory.papers.conti2024 import _study_heads as study
from transformer_theory.papers.conti2024.experiments.heads import HeadsSettings
from transformer_theory.settings import from_args, naming_options
from transformer_theory.tables import table

__all__ = ["add_arguments", "run"]

# The classifier's options that stay at their defaults on the command line.
_FIXED = ("epsilon", "max_errors", "unexplained_above")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_output(parser, "results/heads", help="output directory for JSON, CSV and PNG")
    add_settings(parser, HeadsSettings, skip=_FIXED)


def run(args: argparse.Namespace) -> int:
    settings = from_args(HeadsSettings, args)
    out = prepare_out_dir(args.out)
    with naming_options(HeadsSettings):  # the study names fields; here they are options
        runs = study.read_runs(settings)
        for note in study.unfinished_notes(runs):
            print(note, file=sys.stderr)
        result = study.run(settings, out, runs=runs)
    for name, read in result.short.items():
        print(
            f"note: {name} holds {read} held-out inputs, fewer than --examples "
            f"{settings.examples}: its heads were classified on those {read}",
            file=sys.stderr,
        )
    print(table(study.summary_rows(result.records)))
    print("\n".join(result.files + result.figures))
    return 0
