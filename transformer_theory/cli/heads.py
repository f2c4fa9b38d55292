"""Classify every attention head of trained models: ``transformer-theory heads RUN_DIR``.

Positional (``Sigma_1``), syntactic (``Sigma_2(w)``), rare-token (``Sigma_3``), other or empty, by
the L1 projection of Conti 2024, §3.1.2 with the residual as the score
(:mod:`transformer_theory.papers.conti2024.heads`). ``RUN_DIR`` is a run or experiment directory of
``transformer-theory train`` (Chen & Zou 2024's depth models) or of the encoder-decoder
experiment (``experiments/encdec_translation.py``). Writes, under ``--out`` (default
``results/heads``), ``heads.json`` / ``heads.csv`` (one record per head: run, attention, layer,
head, kind, score, per-family scores, best support; and the same up to a permutation, Conti 2024,
eq. 19-20: ``kind_permuted``, ``score_permuted``) and ``<run>_heads.png`` (every head's map on the
first held-out input, titled with kind and score), and prints, per run, how many heads are of
each kind (plainly and up to a permutation). The study is
:mod:`transformer_theory.papers.conti2024.head_study` (callable from Python); this command parses,
calls it and prints.

A run whose checkpoint cannot be read (files missing or corrupted) is refused in one line naming
the directory and what is wrong (exit 2), before any classification.
"""

from __future__ import annotations

import argparse
import os

from transformer_theory.cli._common import (
    UsageError,
    format_table,
    nonnegative_int,
    positive_float,
    positive_int,
    prepare_out_dir,
)

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_dir",
        metavar="RUN_DIR",
        help="a run or experiment directory (transformer-theory train, or the encoder-decoder "
        "experiment)",
    )
    parser.add_argument(
        "--out",
        default="results/heads",
        help="output directory for JSON, CSV and PNG (default results/heads)",
    )
    parser.add_argument(
        "--examples", type=positive_int, default=64, help="held-out inputs per model (default 64)"
    )
    parser.add_argument(
        "--bandwidth", type=nonnegative_int, default=2, help="w of the syntactic band (default 2)"
    )
    parser.add_argument(
        "--max-offset",
        type=nonnegative_int,
        default=1,
        help="positional heads may sit on diagonals j = i + o, |o| <= this (default 1)",
    )
    parser.add_argument(
        "--max-columns",
        type=positive_int,
        default=2,
        help="rare-token heads: at most this many attended columns (default 2)",
    )
    parser.add_argument(
        "--slack",
        type=positive_float,
        default=0.1,
        help="a simpler family wins within this score of the best (default 0.1)",
    )


def _options(args: argparse.Namespace):
    from transformer_theory.papers.conti2024.heads import HeadOptions

    if args.slack > 1:
        raise UsageError(f"--slack: expected a fraction in (0, 1], got {args.slack}")
    return HeadOptions(
        max_offset=args.max_offset,
        bandwidth=args.bandwidth,
        max_columns=args.max_columns,
        slack=args.slack,
    )


def _read_runs(path: str) -> list:
    from transformer_theory.harness import ExperimentError
    from transformer_theory.papers.conti2024.loading import read_runs
    from transformer_theory.train import RunDirectoryError

    try:
        return read_runs(path)
    except (ExperimentError, RunDirectoryError) as err:
        raise UsageError(f"RUN_DIR: {err}") from None


def run(args: argparse.Namespace) -> int:
    from transformer_theory.papers.conti2024 import head_study

    options = _options(args)
    if not os.path.isdir(args.run_dir):
        raise UsageError(f"RUN_DIR: {args.run_dir} is not a directory")
    out = prepare_out_dir(args.out)
    runs = _read_runs(args.run_dir)
    try:
        study = head_study.run_study(runs, options, args.examples, out)
    except head_study.OptionError as err:
        option = "--" + err.field.replace("_", "-")
        raise UsageError(f"{option}: {str(err).partition(': ')[2]}") from None
    print(format_table(head_study.summary_rows(study.records)))
    for path in study.files + study.figures:
        print(path)
    return 0
