"""Build and check every formal-language row of Strobl et al. 2024's table that the library has:
MAJORITY, PARITY (with and without the LayerNorm trick), Dyck-1, Dyck-(k, D) (hard and softmax),
SHUFFLE-DYCK-1/2/3 and the counter languages BoolExp-3, a^n b^n and a^n b^n c^n.

``--rows NAME[,NAME...]`` chooses rows (default all: about a minute on one core). Prints one
table row per language (the construction, the lengths checked, the agreement with the language's
membership test, the smallest margin, the precision it held in) and PARITY's precision sweep, and
writes one JSON record per row to ``--out/languages_<row>.json``, all of them to
``--out/languages.json``, the sweep to ``--out/parity_precision.json`` and the plots
``languages_margin.png`` (smallest margin against length) and ``parity_precision.png``
(cross-entropy and margin against ``n`` in float32 and float64). Example::

    transformer-theory languages --rows dyck1,dyck_k,anbncn --max-len 256 --out results/languages

The study is :func:`transformer_theory.papers.formal_languages._study_languages.run` (its
settings, :class:`~transformer_theory.papers.formal_languages.experiments.languages.TableSettings`,
are this command's options).
Before any work it estimates peak memory and work from the settings and refuses (exit 2, naming
the options to lower) what would not fit in memory or run past the time budget
(``TT_MEMORY_BUDGET`` / ``TT_TIME_BUDGET`` override the machine's figures). Ctrl-C: exit 130 with
the rows finished so far written. Exit 1 if a recognizer misclassifies a string in float64.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["X64", "add_arguments", "run"]

X64 = True  # float64 is the precision the rows are checked in


def add_arguments(p: argparse.ArgumentParser) -> None:
    from transformer_theory.cli._common import add_output
    from transformer_theory.cli._options import add_settings
    from transformer_theory.papers.formal_languages.experiments.languages import TableSettings

    add_output(p, "results/languages", help="output directory (JSON records + PNG plots)")
    add_settings(p, TableSettings, defaults={"rows": ("all",)})


def run(args: argparse.Namespace) -> int:
    from transformer_theory.cli._common import (
        EXIT_FAILED,
        EXIT_INTERRUPTED,
        EXIT_OK,
        prepare_out_dir,
    )
    from transformer_theory.papers.formal_languages import _study_languages as study
    from transformer_theory.papers.formal_languages.experiments.languages import TableSettings
    from transformer_theory.settings import from_args
    from transformer_theory.tables import table

    settings = from_args(TableSettings, args)
    estimate = _check_budget(settings, study.estimate(settings))
    out = prepare_out_dir(args.out)
    print(estimate, flush=True)

    def print_rows(records):
        print(table(study.row_table(records)), flush=True)

    result = study.run(settings, out, progress=True, on_rows=print_rows)
    if result.interrupted:
        print(
            f"transformer-theory languages: interrupted; {len(result.records)} of "
            f"{len(settings.rows)} row(s) and {len(result.precision)} sweep record(s) "
            f"written to {out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if result.precision:
        print()
        print(table(study.precision_table(result.precision)))
    print(f"records and plots in {out}")
    return EXIT_FAILED if result.failed else EXIT_OK


def _check_budget(settings, cost) -> str:
    """Refuse (:class:`transformer_theory.budget.BudgetError`, naming the options to lower) a
    run whose ``cost`` (:func:`.._study_languages.estimate` of ``settings``) would not fit in
    memory or would run past the time budget; return the estimate's summary line."""
    from transformer_theory import budget

    budget.check_memory(
        cost.rows_bytes,
        what=f"checking {settings.sample_count} strings of length "
        f"{max(settings.sampled_lengths, default=0)}",
        option="--max-len/--samples",
    )
    budget.check_memory(
        cost.sweep_bytes,
        what=f"the PARITY sweep ({settings.parity_sample_count} strings of length "
        f"{max(settings.parity_lengths, default=0)})",
        option="--parity-lengths/--parity-samples",
    )
    budget.check_seconds(
        cost.seconds,
        what=f"{cost.entries:.3g} attention-map entries",
        option="--max-len/--samples"
        if cost.rows_seconds >= cost.sweep_seconds
        else "--parity-lengths/--parity-samples",
    )
    return (
        f"estimate: peak {budget.format_bytes(cost.peak_bytes)}, "
        f"{cost.entries:.3g} attention-map entries "
        f"(about {budget.format_seconds(cost.seconds)} of computation, plus compilation)"
    )
