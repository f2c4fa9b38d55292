"""Efficient attention against exact attention: ``transformer-theory efficient-attention
--max-len 16384 [--out DIR]``.

Measures (Conti 2024, §2.1;
:mod:`transformer_theory.papers.conti2024.experiments.efficient_attention`):

- the cost of every variant -- blocked Longformer / BigBird, Linformer, linear (elu + 1, Taylor,
  positive random features), the dense ``jax.nn.dot_product_attention`` reference and a window
  built as a dense mask -- at lengths ``--min-len, 2 --min-len, ..., --max-len``: seconds per call
  and XLA's memory account of the compiled program, with log-log slopes fitted over ``n >= 1024``
  (``cost.json``, ``cost.csv``, ``cost.png``);
- the output error of each approximation against exact softmax attention as a function of its
  budget, on random inputs (``iid`` and ``local``) at ``--error-len`` and on the activations of
  trained models given with ``--run`` (``errors.json``, ``errors.csv``, ``errors.png``); skipped
  when ``--variants`` names no approximation (``dense``, ``window_dense_mask`` alone).

The options are the fields of the study's settings (``EfficientSettings``, callable from Python
with its ``run``); this command parses, calls it and prints a table at ``--max-len``. Before any
work, the peak memory of both studies is estimated from the shapes, and their time from a lower
bound per compilation and call; a run that would not fit is refused in one line naming the option
to lower -- the one whose usual value (its default, or the value given if smaller) alone would
make it fit, or all of them when none does alone (exit 2; ``TT_MEMORY_BUDGET`` and
``TT_TIME_BUDGET`` set the lines). ``--examples`` applies to ``--run`` only and is refused without
it (it would be ignored). Slopes are reported only through at least three lengths (``n/a``
otherwise).

``--jl`` runs, instead, Linformer's random projection as the thesis writes it (eq. 16, corrected):
the rank it needs against ``n`` and its output error against the rank, on random inputs and on
``--run``'s trained attention (its float64 references are why this command runs in 64-bit mode)::

    transformer-theory efficient-attention --jl --run results/encdec_translation --out DIR
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from transformer_theory.cli._common import add_output, prepare_out_dir
from transformer_theory.cli._options import add_settings
from transformer_theory.papers.conti2024 import _study_efficient_attention as study
from transformer_theory.papers.conti2024.experiments.efficient_attention import EfficientSettings
from transformer_theory.settings import from_args, naming_options
from transformer_theory.tables import table

__all__ = ["X64", "add_arguments", "run"]

X64 = True  # --jl's references (Linformer's projection, exact attention) are float64


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_output(
        parser, "results/efficient_attention", progress=True, help="output directory (JSON/CSV/PNG)"
    )
    add_settings(parser, EfficientSettings, defaults={"variants": ("all",)})


def _print_jl(result: study.JLResult) -> None:
    sc = result.scaling
    print(f"rank k' needed for the row bound (eps {sc.eps}, delta {sc.delta}):")
    print(table(sc.rows))
    print(
        "slope of k' against ln n: "
        + ", ".join(f"{k} {v:.1f}" for k, v in sc.slopes.items())
        + f" (union bound {sc.bound_slope:.1f})"
    )
    for kind, rows in result.errors.items():
        print(f"output error, {kind} inputs, n = {result.error_len}:")
        print(table(rows))
    print("spectrum rank (90% of ||P||_F^2):", result.spectrum_rank_90)
    for t in result.trained:
        print(
            f"trained {t.source} (n = {t.n}, {t.heads_examples} heads x examples): "
            f"spectrum rank {dataclasses.asdict(t.spectrum_rank_90)}, "
            f"k' needed {dataclasses.asdict(t.rank_needed)}"
        )
        print(table(t.errors))


def run(args: argparse.Namespace) -> int:
    settings = from_args(EfficientSettings, args)
    with naming_options(EfficientSettings):  # the study names fields; here they are options
        checked = None if settings.jl else study.check_budgets(settings)
        runs = study.read_runs(settings)
    for note in study.unfinished_notes(runs):
        print(note, file=sys.stderr)
    out = prepare_out_dir(args.out)
    show = args.progress and sys.stderr.isatty()
    with naming_options(EfficientSettings):
        result = study.run(settings, out, progress=show, runs=runs, checked=checked)
    if settings.jl:
        _print_jl(result)
        print("\n".join(result.files))
        return 0
    if not settings.approximations:
        print("errors: --variants names no approximation; the error study is skipped")
    print(f"n = {result.lengths[-1]} ({result.machine.backend}):")
    print(table(study.summary_rows(result)))
    if not result.slopes:
        print(
            f"(slopes n/a: fewer than {study.MIN_SLOPE_POINTS} lengths from --min-len to --max-len)"
        )
    print("\n".join(result.files + result.figures))
    return 0
