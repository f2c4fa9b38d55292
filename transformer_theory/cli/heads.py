"""Classify every attention head of trained models: ``transformer-theory heads RUN_DIR``.

Positional (``Sigma_1``), syntactic (``Sigma_2(w)``), rare-token (``Sigma_3``), other or empty, by
the L1 projection of Conti 2024, §3.1.2 with the residual as the score
(:mod:`transformer_theory.papers.conti2024.heads`). ``RUN_DIR`` is a run or experiment directory of
``transformer-theory train`` (Chen & Zou 2024's depth models) or of the encoder-decoder
experiment (``experiments/encdec_translation.py``). Writes, under ``--out`` (default
``results/heads``), ``heads.json`` / ``heads.csv`` (one record per head: run, attention, layer,
head, kind, score, per-family scores, best support; and the same up to a permutation, Conti 2024,
eq. 19-20: ``kind_permuted``, ``score_permuted``) and ``<run>_heads.png`` (every head's map on the
first held-out input, titled with kind and score).

A run whose checkpoint cannot be read (files missing or corrupted) is refused in one line naming
the directory and what is wrong (exit 2), before any classification.
"""

from __future__ import annotations

import argparse
import csv
import os

from transformer_theory import jsonio
from transformer_theory.cli._common import (
    UsageError,
    nonnegative_int,
    positive_float,
    positive_int,
    prepare_out_dir,
)


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


def _options(args):
    from transformer_theory.papers.conti2024.heads import HeadOptions

    if args.slack > 1:
        raise UsageError(f"--slack: expected a fraction in (0, 1], got {args.slack}")
    return HeadOptions(
        max_offset=args.max_offset,
        bandwidth=args.bandwidth,
        max_columns=args.max_columns,
        slack=args.slack,
    )


def load_trained(path: str, option: str):
    """:func:`~transformer_theory.papers.conti2024.loading.load_runs`, with every failure to read a run
    -- a missing run file, or a checkpoint whose data files are missing or corrupted (Orbax and
    TensorStore raise ``ValueError``, ``FileNotFoundError``, ``KeyError``...) -- turned into one
    :class:`UsageError` line naming ``option``, the directory and what is wrong."""
    from transformer_theory.harness import ExperimentError
    from transformer_theory.papers.conti2024.loading import load_runs
    from transformer_theory.train import RunDirectoryError

    try:
        return load_runs(path)
    except (ExperimentError, RunDirectoryError) as err:
        raise UsageError(f"{option}: {err}") from None
    except Exception as err:  # noqa: BLE001 -- whatever the checkpoint reader raises
        first = (str(err).strip().splitlines() or [""])[0]
        if len(first) > 240:
            first = first[:240] + "..."
        raise UsageError(
            f"{option}: {os.path.abspath(path)}: cannot read the trained model, a checkpoint "
            f"file is missing or corrupted ({type(err).__name__}: {first})"
        ) from None


def run(args) -> int:
    from transformer_theory.papers.conti2024 import plots
    from transformer_theory.papers.conti2024 import heads

    options = _options(args)
    if not os.path.isdir(args.run_dir):
        raise UsageError(f"RUN_DIR: {args.run_dir} is not a directory")
    out = prepare_out_dir(args.out)
    runs = load_trained(args.run_dir, "RUN_DIR")
    records, figures = [], []
    for loaded in runs:
        maps = loaded.maps(args.examples)
        for _attention, _layer, m in maps:  # refused before any head is fitted
            try:
                heads.check_options_fit(options, *m.shape[-2:])
            except ValueError as err:
                name, _, why = str(err).partition(": ")
                raise UsageError(f"--{name.replace('_', '-')}: {loaded.name}: {why}") from None
        recs = heads.classify_model(maps, options)
        for r in recs:
            records.append(dict(run=loaded.name, model=loaded.kind, **r))
        figures.append(
            plots.head_grid(maps, recs, None, os.path.join(out, f"{loaded.name}_heads.png"))
        )
        kinds = ", ".join(f"{k} {sum(r['kind'] == k for r in recs)}" for k in heads.KINDS)
        permuted = ", ".join(
            f"{k} {sum(r['permuted']['kind'] == k for r in recs)}" for k in heads.KINDS
        )
        print(f"{loaded.name}: {len(recs)} heads -- {kinds}", flush=True)
        print(f"  up to a permutation (Conti 2024, eq. 19-20) -- {permuted}", flush=True)
    jsonio.write_json(os.path.join(out, "heads.json"), records)
    flat = (
        "run",
        "model",
        "attention",
        "layer",
        "head",
        "kind",
        "score",
        "agreement",
        "concentration",
    )
    with open(os.path.join(out, "heads.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            flat
            + tuple(f"score_{fam}" for fam in heads.FAMILIES)
            + ("fit", "kind_permuted", "score_permuted", "fit_permuted")
        )
        for r in records:
            p = r["permuted"]
            w.writerow(
                [r[k] for k in flat]
                + [r["scores"][fam] for fam in heads.FAMILIES]
                + [jsonio.dumps_json(r["fit"]), p["kind"], p["score"], jsonio.dumps_json(p["fit"])]
            )
    for path in [os.path.join(out, "heads.json"), os.path.join(out, "heads.csv")] + figures:
        print(path)
    return 0
