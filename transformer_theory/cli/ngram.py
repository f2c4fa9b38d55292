"""Build Svete & Cotterell's (2024) transformer LMs for a random n-gram LM and check them exactly.

For each construction (the paper's Theorem 3.1: ``n - 1`` heads, one layer; the paper's 3.2: one
offset-1 head per layer composing the history; this library's variants 3.2-direct and 3.3-slots)
and each float format it builds the model, compares ``log q(y)`` with the n-gram's ``log p(y)`` on
every string up to ``--max-len`` (EOS included; sampled where there are more than 50,000 strings
of a length), and -- for hard and sparse attention -- runs the model at every string length up to
``--scan-limit`` to find the longest length up to which every query's attention is the proof's,
beside the limit derived from the score's gap. Before any work it estimates the memory and time
its settings need, prints the estimate, and refuses (exit 2) settings that do not fit.

Writes ``--out/ngram.json`` (``complete``: false until the run has finished -- an interrupted run
leaves ``false`` with the records done so far, never an earlier run's file; ``records``: one per
construction and precision, with ``max_abs_logprob_diff``, ``strings``, ``equivalent``, ``scan``;
``soft`` with softmax attention) and ``ngram_precision.png`` (and ``ngram_soft.png`` with
softmax), and prints one table row per model (equivalent or not, on how many strings, the
largest ``|log q - log p|``, the longest exact length and the derived one, softmax's KL) and,
with softmax, the ``beta`` each length needs. The options are the fields of
:class:`transformer_theory.papers.svete_cotterell2024.experiments.ngram.NGramSettings`;
the study is :func:`transformer_theory.papers.svete_cotterell2024._study_ngram.run`.
Examples::

    transformer-theory ngram --order 3 --alphabet 3 --max-len 8 --out results/ngram
    transformer-theory ngram --construction 3.1,3.3-slots --attention softmax --beta 1000 \\
        --out r/soft

``--space`` runs, instead, the size table of
:func:`transformer_theory.papers.svete_cotterell2024._study_ngram_space.run` (every construction
built at each ``--orders`` x ``--alphabets``, counted against the closed forms; its settings
:class:`transformer_theory.papers.svete_cotterell2024.experiments.ngram_space.SpaceSettings`;
exit 1 on a difference)::

    transformer-theory ngram --space --orders 2,3,4,5 --alphabets 1,2,3,4 --out results/ngram_space

Exit 1 if a hard or sparse construction is not equivalent in float64 (where the theorems claim
it); a lower precision that breaks is a measurement, not a failure.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from transformer_theory import budget
from transformer_theory.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
    add_output,
    prepare_out_dir,
    refuse_ignored,
)
from transformer_theory.cli._options import add_settings
from transformer_theory.papers.svete_cotterell2024 import _study_ngram, _study_ngram_space
from transformer_theory.papers.svete_cotterell2024.experiments.ngram import NGramSettings
from transformer_theory.papers.svete_cotterell2024.experiments.ngram_space import SpaceSettings
from transformer_theory.settings import flag_of, from_args, setting
from transformer_theory.tables import table

#: The study computes in float64 (the reference and one of the formats compared).
X64 = True


@dataclasses.dataclass(frozen=True)
class SpaceChoice:
    """Which study runs.

    Attributes:
      space: instead of the study: build every construction at each order of --orders and
        alphabet size of --alphabets and print its sizes (width, heads, parameters, non-zeros,
        bits per weight) beside the closed forms (ngram_space.json, ngram_space.png).
    """

    space: bool = setting(False)


def _flags(cls: type, skip: tuple[str, ...] = ("seed",)) -> list[str]:
    return [flag_of(cls, f.name) for f in dataclasses.fields(cls) if f.name not in skip]


def _as_options(err: budget.BudgetError) -> budget.BudgetError:
    """``err`` (naming the study's fields, ``/``-joined) with those fields written as this
    command's options."""
    flags = "/".join(flag_of(NGramSettings, f) for f in err.option.split("/"))
    return budget.BudgetError(
        str(err).replace(err.option, flags),
        option=flags,
        estimate=err.estimate,
        available=err.available,
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_settings(p, NGramSettings)
    add_settings(p, SpaceChoice)
    add_settings(p, SpaceSettings, skip=("seed",))
    add_output(p, "results/ngram", help="output directory (ngram.json + PNG plots)")


def _run_space(args: argparse.Namespace) -> int:
    """``--space``: the size table; exit 1 if a count differs from its closed form."""
    refuse_ignored(args, _flags(NGramSettings), "--space")
    settings = from_args(SpaceSettings, args)
    out = prepare_out_dir(args.out)
    result = _study_ngram_space.run(settings, out)
    print(table(_study_ngram_space.table_rows(result)))
    print(f"wrote {out}/ngram_space.json, {out}/ngram_space.png")
    return EXIT_OK if result.all_match and result.within_printed else EXIT_FAILED


def run(args: argparse.Namespace) -> int:
    if from_args(SpaceChoice, args).space:
        return _run_space(args)
    for option in _flags(SpaceSettings):
        if option in getattr(args, "changed", set()):
            raise UsageError(f"{option}: applies to --space only (it would be ignored)")
    settings = from_args(NGramSettings, args)
    try:
        memory, seconds = _study_ngram.check_budget(settings)
    except budget.BudgetError as err:
        raise _as_options(err) from None
    out = prepare_out_dir(args.out)
    print(
        f"ngram: estimated {budget.format_bytes(memory)} of memory, "
        f"{budget.format_seconds(seconds)}"
    )
    try:
        result = _study_ngram.run(settings, out, progress=True)
    except KeyboardInterrupt:  # one line, exit 130 (cli.main leaves without a shutdown)
        print(
            f"transformer-theory ngram: interrupted; {out}/ngram.json holds the records done, "
            "marked complete: false",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    print(table(_study_ngram.table_rows(result)))
    if result.soft:
        print(table(_study_ngram.soft_table_rows(result)))
    print(f"wrote {out}/ngram.json")
    return EXIT_FAILED if result.float64_failures else EXIT_OK
