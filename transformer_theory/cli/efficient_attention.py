"""Efficient attention against exact attention: ``transformer-theory efficient-attention
--max-len 16384 [--out DIR]``.

Measures (Conti 2024, §2.1; :mod:`transformer_theory.papers.conti2024.efficient`):

- the cost of every variant -- blocked Longformer / BigBird, Linformer, linear (elu + 1, Taylor,
  positive random features), the dense ``jax.nn.dot_product_attention`` reference and a window
  built as a dense mask -- at lengths ``--min-len, 2 --min-len, ..., --max-len``: seconds per call
  and XLA's memory account of the compiled program, with log-log slopes fitted over ``n >= 1024``
  (``cost.json``, ``cost.csv``, ``cost.png``);
- the output error of each approximation against exact softmax attention as a function of its
  budget, on random inputs (``iid`` and ``local``) at ``--error-len`` and on the activations of
  trained models given with ``--run`` (``errors.json``, ``errors.csv``, ``errors.png``); skipped
  when ``--variants`` names no approximation (``dense``, ``window_dense_mask`` alone).

The study is :mod:`transformer_theory.papers.conti2024.efficient_study` (callable from Python);
this command parses, calls it and prints a table at ``--max-len``. Before any work, the peak
memory of both studies is estimated from the shapes
(:func:`~transformer_theory.papers.conti2024.estimates.estimate_bytes`), and their time from a
lower bound per compilation and call
(:func:`~transformer_theory.papers.conti2024.estimates.cost_study_seconds`); a run that would not
fit is refused in one line naming the option to lower -- the one whose usual
value (its default, or the value given if smaller) alone would make it fit, or all of them when
none does alone (exit 2; ``TT_MEMORY_BUDGET`` and ``TT_TIME_BUDGET`` set the lines).
``--examples`` applies to ``--run`` only and is refused without it (it would be ignored).
Slopes are reported only through at least three lengths (``n/a`` otherwise).

``--jl`` runs, instead, :func:`transformer_theory.papers.conti2024.linformer.jl_study`: Linformer's
random projection as the thesis writes it (eq. 16, corrected), the rank it needs against ``n``
and its output error against the rank, on random inputs and on ``--run``'s trained attention::

    transformer-theory efficient-attention --jl --run results/encdec_translation --out DIR
"""

from __future__ import annotations

import argparse
import os
import sys

from transformer_theory.cli._common import (
    UsageError,
    format_table,
    name_list,
    nonnegative_int,
    positive_int,
    prepare_out_dir,
    refuse_ignored,
)

__all__ = ["DEFAULT_EXAMPLES", "add_arguments", "run"]

DEFAULT_EXAMPLES = 32


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        default="results/efficient_attention",
        help="output directory for JSON, CSV and PNG (default results/efficient_attention)",
    )
    parser.add_argument(
        "--max-len", type=positive_int, default=16384, help="longest sequence timed (default 16384)"
    )
    parser.add_argument(
        "--min-len", type=positive_int, default=256, help="shortest sequence timed (default 256)"
    )
    parser.add_argument(
        "--dim", type=positive_int, default=64, help="query/key/value width (default 64)"
    )
    parser.add_argument(
        "--repeats", type=positive_int, default=3, help="timed calls per point (default 3)"
    )
    parser.add_argument(
        "--variants",
        default="all",
        help="comma list of variants (default all): sliding_window, dilated_window, longformer, "
        "bigbird, linformer, performer, linear_elu, taylor, dense, window_dense_mask",
    )
    parser.add_argument(
        "--error-len",
        type=positive_int,
        default=512,
        help="sequence length of the random inputs of the error study (default 512)",
    )
    parser.add_argument(
        "--error-batch",
        type=positive_int,
        default=8,
        help="random input draws per kind in the error study (default 8)",
    )
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="RUN_DIR",
        help="also measure the error on a trained model's activations (a run or experiment "
        "directory of `transformer-theory train` or of the encoder-decoder experiment); repeat "
        "for several",
    )
    parser.add_argument(
        "--examples",
        type=positive_int,
        default=None,
        help=f"held-out inputs per trained model, at most the run's held-out set (default "
        f"{DEFAULT_EXAMPLES}); only with --run",
    )
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="PRNG seed (default 0)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    parser.add_argument(
        "--jl",
        action="store_true",
        help="instead: Linformer's random (Johnson-Lindenstrauss) projection as Conti 2024 writes "
        "it -- the rank needed against n (64..1024), the output error against the rank, and "
        "with --run the same on trained attention (jl.json, jl.png); reads --run, --examples, "
        "--seed, --out only",
    )


def _settings(args: argparse.Namespace):
    """The study's settings from the options, each refused naming its option."""
    from transformer_theory.papers.conti2024 import efficient
    from transformer_theory.papers.conti2024.efficient_study import EfficientSettings

    variants = name_list(args.variants, efficient.VARIANTS, "--variants")
    if args.max_len < args.min_len:
        raise UsageError(
            f"--max-len: must be at least --min-len = {args.min_len}, got {args.max_len}"
        )
    if args.dim % 2:
        raise UsageError(
            f"--dim: the 'local' inputs use a sinusoidal code; expected even, got {args.dim}"
        )
    if args.examples is not None and not args.run:
        raise UsageError(
            "--examples: applies to trained models given with --run only, and no --run was "
            "given (it would be ignored)"
        )
    return EfficientSettings(
        variants=tuple(variants),
        min_len=args.min_len,
        max_len=args.max_len,
        dim=args.dim,
        repeats=args.repeats,
        error_len=args.error_len,
        error_batch=args.error_batch,
        examples=DEFAULT_EXAMPLES if args.examples is None else args.examples,
        seed=args.seed,
    )


def _read_runs(paths: list[str]) -> list:
    from transformer_theory.harness import ExperimentError
    from transformer_theory.papers.conti2024.loading import read_runs
    from transformer_theory.train import RunDirectoryError

    runs = []
    for path in paths:
        if not os.path.isdir(path):
            raise UsageError(f"--run: {path} is not a directory")
        try:
            runs += read_runs(path)
        except (ExperimentError, RunDirectoryError) as err:
            raise UsageError(f"--run: {err}") from None
    return runs


def _run_jl(args: argparse.Namespace) -> int:
    """``--jl``: :func:`~transformer_theory.papers.conti2024.linformer.jl_study`, printed."""
    from transformer_theory.jsonio import write_json
    from transformer_theory.papers.conti2024 import linformer, plots
    from transformer_theory.papers.conti2024.efficient_study import trained_inputs

    runs = _read_runs(args.run)
    if args.examples is not None and not args.run:
        raise UsageError("--examples: applies to --run only (it would be ignored)")
    qkv = trained_inputs(runs, args.examples or 16) if runs else []
    out = prepare_out_dir(args.out)
    result = linformer.jl_study(qkv=qkv, seed=args.seed)
    sc = result["scaling"]
    print(f"rank k' needed for the row bound (eps {sc['eps']}, delta {sc['delta']}):")
    print(format_table(sc["rows"]))
    print(
        "slope of k' against ln n: "
        + ", ".join(f"{k} {v:.1f}" for k, v in sc["slopes"].items())
        + f" (union bound {sc['bound_slope']:.1f})"
    )
    for kind, rows in result["errors"].items():
        print(f"output error, {kind} inputs, n = {result['error_len']}:")
        print(format_table(rows))
    print("spectrum rank (90% of ||P||_F^2):", result["spectrum_rank_90"])
    for t in result["trained"]:
        print(
            f"trained {t['source']} (n = {t['n']}, {t['heads_examples']} heads x examples): "
            f"spectrum rank {t['spectrum_rank_90']}, k' needed {t['rank_needed']}"
        )
        print(format_table(t["errors"]))
    write_json(os.path.join(out, "jl.json"), result)
    plots.jl_figure(result, os.path.join(out, "jl.png"))
    print(os.path.join(out, "jl.json"))
    print(os.path.join(out, "jl.png"))
    return 0


# the cost and error study's options, which --jl does not read
STUDY_OPTIONS = (
    "--max-len", "--min-len", "--dim", "--repeats", "--variants", "--error-len", "--error-batch",
)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    if args.jl:
        refuse_ignored(args, STUDY_OPTIONS, "--jl")
        return _run_jl(args)
    from transformer_theory.papers.conti2024 import efficient_study as study

    settings = _settings(args)
    checked = study.check_budgets(settings)
    runs = _read_runs(args.run)
    out = prepare_out_dir(args.out)
    show = not args.no_progress and sys.stderr.isatty()
    result = study.run_study(settings, out, runs, checked=checked, progress=show)
    if not settings.approximations:
        print("errors: --variants names no approximation; the error study is skipped")
    print(f"n = {result.lengths[-1]} ({result.machine['backend']}):")
    print(format_table(study.summary_rows(result)))
    if not result.slopes:
        print(
            f"(slopes n/a: fewer than {study.MIN_SLOPE_POINTS} lengths from --min-len to --max-len)"
        )
    for path in result.files + result.figures:
        print(path)
    return 0
