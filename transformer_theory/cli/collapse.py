"""Representational collapse (Barbero et al. 2024, §4): ``transformer-theory collapse``.

For every model of the grid (``--depth`` x ``--heads`` x ``--positional`` x ``--seeds``, random
causal Pre-LN transformers) and every precision, measures ``||y_n - y'_{n+1}||`` between the final
last-token representations of ``v`` (``--pattern``, e.g. ``1 ... 1 0``) and ``v`` with its last
token repeated, at lengths up to ``--max-len``; writes ``collapse.json`` (per model and precision:
the distances by length, the first bit-identical length, the fitted rate, the derived ``1/n``
limit for one-layer models, and the verdict read from the curve's tail: ``collapses ~ n^S`` or
``plateau at X: no collapse``) and ``collapse.png``; prints a line per finished model and a table
of them at the end.

The peak memory of the longest measurement is estimated from XLA's compiled program before any
work; a run that would not fit is refused (exit 2, naming the option to lower). Each finished
model is written to ``collapse.json`` at once (valid JSON at every moment); Ctrl-C stops after
the current measurement (exit 130, saying how many models were saved), and the same command
resumes from the finished models, measuring only the rest. A ``collapse.json`` in ``--out`` that
records other settings is refused (exit 2, naming the option that differs) unless ``--fresh``
asks to start over.

The options are the fields of
:class:`transformer_theory.papers.barbero2024.experiments.collapse.CollapseSettings` (checked
there, once); the study is ``papers/barbero2024/_study_collapse.py``'s ``run``; this command
parses and prints from the typed records.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from transformer_theory.cli._common import add_output, run_grid_study
from transformer_theory.cli._options import add_settings
from transformer_theory.papers import study_of
from transformer_theory.papers.barbero2024 import _records
from transformer_theory.papers.barbero2024.experiments import collapse

X64 = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_settings(parser, collapse.CollapseSettings)
    add_output(parser, "results/collapse", fresh=True, progress=True)


def run(args: argparse.Namespace) -> int:
    result = run_grid_study(
        args,
        study_of(collapse),
        collapse.CollapseSettings,
        "collapse",
        lambda model: summary_line(model, list(model.precisions)),
        lambda model: summary(model),
        progress=args.progress,
    )
    return result if isinstance(result, int) else 0


def summary_line(model: _records.CollapseModel, precisions: Sequence[str]) -> str:
    """One line per model: the verdict read from the tail, the derived limit where there is one,
    and per precision the first identical length."""
    asym = model.asymptotic
    parts = [f"{model.name}: {model.verdict}"]
    if asym.slope is not None:
        parts[0] += f" (tail {asym.tail_from}..{asym.tail_to})"
    if model.predicted_limit is not None:
        constant = model.rate.constant
        fitted = "n/a" if constant is None else f"{constant:.3g}"
        parts.append(f"n*distance -> K derived {model.predicted_limit:.3g}, measured {fitted}")
    for prec in precisions:
        first = model.precisions[prec].first_identical
        parts.append(f"{prec} first identical at n={first}" if first else f"{prec} never identical")
    return "; ".join(parts)


def summary(model: _records.CollapseModel) -> dict:
    """One table row per model: ``name``, ``verdict``, the tail it is read from, the derived and
    the measured ``K = lim n ||y_n - y'_{n+1}||`` (None where there is none), and per precision
    the first bit-identical length (``<precision> identical``)."""
    asym = model.asymptotic
    row = dict(
        name=model.name,
        verdict=model.verdict,
        tail=None if asym.slope is None else f"{asym.tail_from}..{asym.tail_to}",
        K_derived=model.predicted_limit,
        K_measured=model.rate.constant if model.predicted_limit is not None else None,
    )
    for prec, rec in model.precisions.items():
        row[f"{prec} identical"] = rec.first_identical
    return row
