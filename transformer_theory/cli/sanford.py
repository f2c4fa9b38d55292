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
query quantized to ``p`` bits (every pair), and prints where Match3's one-layer bound binds
(:mod:`transformer_theory.papers.sanford2023.disjointness`); it writes ``--out/disj.json``::

    transformer-theory sanford --task disj --q 1,2,3,4 --out results/disj

Prints a table (one row per configuration; qSA and Match in two tables). Exit 1 if a construction
misses: a qSA unit above ``eps`` for every ``m`` searched, or a Match unit below 100% in float64.
Exit 2 before any work for sizes the check cannot honestly run: a Match size whose scale ``c``
(``exact_scale``) is beyond float64's 53-bit exact range (there a miss would be the format's, not
the construction's), more qSA subsets than the enumeration limit, or memory beyond the budget.
"""

from __future__ import annotations

import argparse
import os

from transformer_theory.cli._common import comma_list, nonnegative_int, positive_int

TASKS = ("qsa", "match2", "match3bigram", "match3local", "match3local1", "disj")
DISJ_MAX_Q = 6  # 4^q pairs: q = 6 is 4,096 pairs
# the options of the qSA and Match units, which --task disj alone does not read
QSA_MATCH_OPTIONS = ("--n", "--eps", "--dim", "--modulus-power", "--window", "--samples")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--task", default="all", help=f"comma list of {', '.join(TASKS)} or 'all'")
    p.add_argument(
        "--n", type=comma_list(int, minimum=1), default=[4, 8, 16], help="lengths N (comma list)"
    )
    p.add_argument(
        "--q",
        type=comma_list(int, minimum=1),
        default=[1, 2],
        help="qSA: sparsities q (comma list)",
    )
    p.add_argument("--eps", default="0.1", help="qSA: accuracies eps in (0, 1) (comma list)")
    p.add_argument("--dim", type=positive_int, default=2, help="qSA: d', width of the z_i")
    p.add_argument(
        "--modulus-power",
        type=positive_int,
        default=2,
        help="Match: M = max(N^power, 4) (default N^2, the issue's M = N^2)",
    )
    p.add_argument("--window", type=nonnegative_int, default=2, help="Match3Local: window K")
    p.add_argument(
        "--samples",
        type=positive_int,
        default=100_000,
        help="sampled inputs where the input space is larger (default 100000)",
    )
    p.add_argument(
        "--seed", type=nonnegative_int, default=0, help="seed of the drawn matrix and the samples"
    )
    p.add_argument(
        "--out", default="results/sanford", help="output directory (JSON records + PNG plots)"
    )


def _accuracies(text: str) -> list[float]:
    """``--eps``: a comma list of numbers in ``(0, 1)`` (NaN and infinities refused)."""
    from transformer_theory.cli._common import UsageError

    try:
        values = comma_list(float)(text)
    except argparse.ArgumentTypeError as err:
        raise UsageError(f"--eps: {err}") from None
    if any(not 1e-12 <= v < 1.0 for v in values):
        raise UsageError(f"--eps: every value must be >= 1e-12 and < 1.0, got {text!r}")
    return values


def run(args: argparse.Namespace) -> int:
    from transformer_theory import budget
    from transformer_theory.cli._common import (
        EXIT_FAILED,
        EXIT_OK,
        UsageError,
        format_table,
        name_list,
        prepare_out_dir,
        refuse_ignored,
    )
    from transformer_theory.papers.sanford2023 import study

    tasks = name_list(args.task, TASKS, "--task")
    for option, values in (("--q", args.q), ("--n", args.n)):
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:  # each configuration would run twice under one name
            raise UsageError(f"{option}: {', '.join(map(str, repeated))} given more than once")
    if tasks == ["disj"]:
        refuse_ignored(args, QSA_MATCH_OPTIONS, "--task disj")
    if "disj" in tasks and max(args.q) > DISJ_MAX_Q:
        q = max(args.q)
        # the count written out only while it is short (4^q of a huge q would take forever)
        pairs = f"{4**q:,}" if q <= 40 else f"4^{q}"
        times = f"{4 ** (q - DISJ_MAX_Q):,}" if q <= 40 else f"4^{q - DISJ_MAX_Q}"
        raise UsageError(
            f"--q: disj checks all 4^q pairs exactly: q = {q} is {pairs} pairs, "
            f"{times} times the {4**DISJ_MAX_Q:,} of q = {DISJ_MAX_Q} (the "
            f"largest allowed); expected q <= {DISJ_MAX_Q}"
        )
    epss = _accuracies(args.eps)
    if "qsa" in tasks and any(q >= n for q in args.q for n in args.n):
        raise UsageError(f"--q: every q must be < every N (N = {args.n}, q = {args.q})")
    if any(t.startswith("match3") for t in tasks) and min(args.n) < 2:
        raise UsageError("--n: Match3Bigram needs N >= 2")
    units = tuple(t for t in tasks if t != "disj")
    if not units:
        return _run_disj(args, prepare_out_dir(args.out))
    settings = study.StudySettings(
        tasks=units,
        ns=tuple(args.n),
        qs=tuple(args.q),
        epss=tuple(epss),
        dim=args.dim,
        modulus_power=args.modulus_power,
        window=args.window,
        samples=args.samples,
        seed=args.seed,
    )
    try:
        study.check_sizes(settings)
    except budget.BudgetError:
        raise
    except ValueError as err:
        raise UsageError(str(err)) from None
    out = prepare_out_dir(args.out)

    import jax

    jax.config.update("jax_enable_x64", True)  # float64 is one of the formats compared
    records = study.run_study(settings, out)
    for kind in ("qsa", "match"):
        rows = [study.summary(r) for r in records if (r["task"] == "qsa") == (kind == "qsa")]
        if rows:
            print(format_table(rows), end="\n\n")
    print("* = beyond the format's exact range")
    print(f"wrote {os.path.join(out, 'sanford.json')}")
    code = EXIT_FAILED if any(study.failed(r) for r in records) else EXIT_OK
    if "disj" in tasks:
        code = max(code, _run_disj(args, out))
    return code


def _run_disj(args: argparse.Namespace, out: str) -> int:
    """``--task disj``: the reduction, the protocol and the Match3 bound table; exit 1 if the
    reduction's equivalence fails or no message of the unit decides DISJ on every pair."""
    import jax

    from transformer_theory.cli._common import EXIT_FAILED, EXIT_OK, format_table
    from transformer_theory.papers.sanford2023 import disjointness

    jax.config.update("jax_enable_x64", True)  # the unit runs in float64
    result = disjointness.run_disj(tuple(args.q), out, seed=args.seed)
    print(format_table(result["reduction"]), end="\n\n")
    print(format_table(disjointness.protocol_summary(r) for r in result["protocol"]), end="\n\n")
    cols = ["source", "N", "M", "m", "p", "H", "m_p_H", "N_over_loglogN", "c_needed"]
    print(format_table(result["match3_bound"], cols), end="\n\n")
    print("c_needed = m p H ln ln N / N: the bound forbids the row's size only if c exceeds it")
    print(f"wrote {os.path.join(out, 'disj.json')}")
    reduction_ok = all(r["equivalence_holds"] and r["decided"] for r in result["reduction"])
    decided = {r["q"] for r in result["protocol"] if r["p"] is not None and r["decides_all"]}
    return EXIT_OK if reduction_ok and decided == set(args.q) else EXIT_FAILED
