"""Build and check the Sanford, Hsu & Telgarsky 2023 constructions: qSA, Match2, Match3Bigram,
Match3Local.

Writes one JSON record per configuration to ``--out/<task>_N<N>_....json``, all records to
``--out/sanford.json`` and plots (``qsa_m_min.png``: smallest ``m`` against ``q log N``;
``<task>_precision.png``: accuracy per float format against ``M``). Examples::

    transformer-theory sanford --task qsa --n 8,16 --q 1,2 --eps 0.1 --out results/sanford
    transformer-theory sanford --task match2,match3bigram,match3local --n 4,16,64 \\
        --out results/sanford

``match3local`` is Match3Local by the ``2K + 1``-head unit, ``match3local1`` by the single-head
unit (query/key width ``4K + 4``); both are our constructions of Sanford et al.'s statement.

``disj`` checks the qSA lower bound's reduction from set disjointness at every ``q`` of ``--q``
(exact rationals on every pair ``a, b``), runs the one-way protocol whose message is the qSA unit's
query quantized to ``p`` bits (every pair), and prints where Match3's one-layer bound binds; it
writes ``--out/disj.json``::

    transformer-theory sanford --task disj --q 1,2,3,4 --out results/disj

Prints a table (one row per configuration; qSA and Match in two tables). Exit 1 if a construction
misses: a qSA unit above ``eps`` for every ``m`` searched, or a Match unit below 100% in float64.
Exit 2 before any work for sizes the check cannot honestly run: a Match size whose scale ``c``
is beyond float64's 53-bit exact range (there a miss would be the format's, not the
construction's), more qSA subsets than the enumeration limit, or memory beyond the budget.
The options are the fields of
:class:`transformer_theory.papers.sanford2023.experiments.sanford.SanfordSettings`; the study is
``papers/sanford2023/_study_sanford.py``'s ``run`` (also ``transformer-theory experiment
sanford``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os

from transformer_theory import settings as options
from transformer_theory.cli._common import add_output
from transformer_theory.cli._options import add_settings
from transformer_theory.papers import study_of
from transformer_theory.papers.sanford2023 import _records
from transformer_theory.papers.sanford2023.experiments import sanford as study

X64 = True  # float64 is one of the formats compared; the disj unit runs in float64


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_settings(p, study.SanfordSettings)
    add_output(p, "results/sanford", help="output directory (JSON records + PNG plots)")


def run(args: argparse.Namespace) -> int:
    from transformer_theory.cli._common import (
        EXIT_FAILED,
        EXIT_OK,
        prepare_out_dir,
        refuse_ignored,
    )
    from transformer_theory.tables import table

    settings = options.from_args(study.SanfordSettings, args)
    if settings.tasks == ("disj",):  # an option is used or refused, never silently dropped
        cls = type(settings)
        ignored = [f.name for f in dataclasses.fields(cls) if f.name not in cls.DISJ_READS]
        refuse_ignored(args, [options.flag_of(cls, n) for n in ignored], "--task disj")
    with options.naming_options(study.SanfordSettings):  # the sizes refused before any work
        study_of(study).check_sizes(settings)
    out = prepare_out_dir(args.out)
    result = study_of(study).run(settings, out)
    for rows in study_of(study).summary_tables(result):
        print(table(rows), end="\n\n")
    if result.rows:
        print("* = beyond the format's exact range")
        print(f"wrote {os.path.join(out, 'sanford.json')}")
    if result.disj is not None:
        _print_disj(result.disj, out, table)
    return EXIT_FAILED if study_of(study).failed(result) else EXIT_OK


def _print_disj(disj: _records.DisjRecord, out: str, table) -> None:
    """``--task disj``: the reduction, the protocol and the Match3 bound table."""
    print(table(disj.reduction), end="\n\n")
    print(table(study_of(study).protocol_summary(r) for r in disj.protocol), end="\n\n")
    cols = ["source", "N", "M", "m", "p", "H", "m_p_H", "N_over_loglogN", "c_needed"]
    print(table(disj.match3_bound, cols), end="\n\n")
    print("c_needed = m p H ln ln N / N: the bound forbids the row's size only if c exceeds it")
    print(f"wrote {os.path.join(out, 'disj.json')}")
