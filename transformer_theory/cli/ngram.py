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
with softmax, the ``beta`` each length needs. The study is
:func:`transformer_theory.papers.svete_cotterell2024.study.run`; this command parses, checks the
budget and prints. Examples::

    transformer-theory ngram --order 3 --alphabet 3 --max-len 8 --out results/ngram
    transformer-theory ngram --construction 3.1,3.3-slots --attention softmax --beta 1000 \\
        --out r/soft

``--space`` runs, instead, the size table of
:func:`transformer_theory.papers.svete_cotterell2024.study.space_study` (every construction built
at each ``--orders`` x ``--alphabets``, counted against the closed forms; exit 1 on a difference)::

    transformer-theory ngram --space --orders 2,3,4,5 --alphabets 1,2,3,4 --out results/ngram_space

Exit 1 if a hard or sparse construction is not equivalent in float64 (where the theorems claim
it); a lower precision that breaks is a measurement, not a failure.
"""

from __future__ import annotations

import argparse
import math

from transformer_theory.cli._common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    comma_list,
    format_table,
    name_list,
    nonnegative_int,
    positive_float,
    positive_int,
    prepare_out_dir,
    refuse_ignored,
)
from transformer_theory.papers.svete_cotterell2024 import study
from transformer_theory.precision import PRECISIONS

#: The defaults of the size options: the ordinary range an over-budget option is measured against.
DEFAULTS = {"order": 3, "alphabet": 3, "max_len": 8, "scan_limit": 40}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--order", type=positive_int, default=DEFAULTS["order"], help="n of the n-gram LM (>= 2)"
    )
    p.add_argument("--alphabet", type=positive_int, default=DEFAULTS["alphabet"], help="|Sigma|")
    p.add_argument(
        "--max-len",
        type=nonnegative_int,
        default=DEFAULTS["max_len"],
        help="check every string up to this length",
    )
    p.add_argument(
        "--construction",
        default="all",
        help="comma list of 3.1, 3.2, 3.3 (the paper's), 3.2-direct, 3.3-slots (this library's "
        "variants) or 'all'",
    )
    p.add_argument(
        "--attention",
        default="hard",
        choices=("hard", "sparse", "softmax"),
        help="the attention the constructions run with",
    )
    p.add_argument("--beta", type=positive_float, default=None, help="softmax: score scale")
    p.add_argument(
        "--precision", default="all", help="comma list of float64, float32, bfloat16 or 'all'"
    )
    p.add_argument(
        "--zero-fraction",
        type=float,
        default=None,
        help="fraction of exact zeros in the LM's table (default 0.2; 0 with softmax)",
    )
    p.add_argument(
        "--scan-limit",
        type=nonnegative_int,
        default=DEFAULTS["scan_limit"],
        help="hard/sparse: run the model at every string length up to this (one compilation "
        "each) to find the longest exact length (default 40)",
    )
    p.add_argument(
        "--soft-lengths",
        default=None,
        help="softmax only: string lengths at which the beta for --target-kl is searched "
        "(default 2,4,6,8)",
    )
    p.add_argument(
        "--target-kl", type=positive_float, default=None, help="softmax only: target KL (1e-3)"
    )
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the random LM")
    p.add_argument(
        "--space",
        action="store_true",
        help="instead of the study: build every construction at each n of --orders and |Sigma| "
        "of --alphabets and print its sizes (width, heads, parameters, non-zeros, bits per "
        "weight) beside the closed forms (ngram_space.json, ngram_space.png)",
    )
    p.add_argument(
        "--orders", type=comma_list(int, minimum=2), default=None, help="--space: n (2,3,4,5)"
    )
    p.add_argument(
        "--alphabets",
        type=comma_list(int, minimum=1),
        default=None,
        help="--space: |Sigma| (1,2,3,4)",
    )
    p.add_argument(
        "--out", default="results/ngram", help="output directory (ngram.json + PNG plots)"
    )


def _check(args: argparse.Namespace) -> dict:
    """The options as the study's settings (a dict of
    :class:`~transformer_theory.papers.svete_cotterell2024.study.Settings` fields), or a
    :class:`UsageError` naming the option."""
    constructions = name_list(args.construction, study.ALL_CONSTRUCTIONS, "--construction")
    precisions = name_list(args.precision, PRECISIONS, "--precision")
    if args.order < 2:
        raise UsageError(f"--order: the constructions need n >= 2, got {args.order}")
    if "3.3" in constructions and args.attention != "hard":
        if args.construction.strip() != "all":
            raise UsageError(
                f"--construction: the paper's 3.3 is built with average-hard attention only "
                f"(the authors' single.py), not --attention {args.attention}"
            )
        constructions.remove("3.3")
    zero = args.zero_fraction
    if zero is None:
        zero = 0.0 if args.attention == "softmax" else 0.2
    if not (math.isfinite(zero) and 0.0 <= zero < 1.0):
        raise UsageError(f"--zero-fraction: expected a number in [0, 1), got {zero}")
    if args.attention == "softmax":
        if args.beta is None:
            raise UsageError("--beta: softmax attention needs a score scale, e.g. --beta 1000")
        if zero > 0:
            raise UsageError(
                "--zero-fraction: softmax attention needs a table without exact zeros (a spread "
                "attention reads log 0 from a partly active unit); use --zero-fraction 0"
            )
    else:
        for option, value in (
            ("--beta", args.beta),
            ("--soft-lengths", args.soft_lengths),
            ("--target-kl", args.target_kl),
        ):
            if value is not None:
                raise UsageError(
                    f"{option}: applies to softmax attention only, not --attention "
                    f"{args.attention} (it would be ignored)"
                )
    soft_lengths = []
    if args.attention == "softmax":
        text = "2,4,6,8" if args.soft_lengths is None else args.soft_lengths
        try:
            soft_lengths = comma_list(int, minimum=0)(text)
        except argparse.ArgumentTypeError as err:
            raise UsageError(f"--soft-lengths: {err}") from None
        if args.alphabet ** (max(soft_lengths + [args.max_len]) + 1) > 2**22:
            raise UsageError(
                "--soft-lengths: the KL sums over every string and prefix up to L + 1 symbols; "
                "|Sigma|^(L+1) must stay <= 2^22 (L: the largest of --soft-lengths, --max-len)"
            )
    return {
        "order": args.order,
        "alphabet": args.alphabet,
        "max_len": args.max_len,
        "constructions": tuple(constructions),
        "attention": args.attention,
        "beta": args.beta,
        "precisions": tuple(precisions),
        "zero_fraction": zero,
        "scan_limit": args.scan_limit,
        "soft_lengths": tuple(soft_lengths),
        "target_kl": 1e-3 if args.target_kl is None else args.target_kl,
        "seed": args.seed,
    }


def _blame(settings, options: list[str], fits) -> str:
    """The options to name for a run over budget, ``/``-joined: those of ``options`` above their
    default (out of their ordinary range) whose default alone makes ``fits(settings)`` true; else
    all those above their default; else all of ``options`` (the defaults themselves do not fit)."""
    import dataclasses

    def dest(option):
        return option[2:].replace("-", "_")

    above = [o for o in options if getattr(settings, dest(o)) > DEFAULTS[dest(o)]]
    alone = [
        o for o in above if fits(dataclasses.replace(settings, **{dest(o): DEFAULTS[dest(o)]}))
    ]
    return "/".join(alone or above or options)


def check_budget(settings: study.Settings) -> tuple[float, float]:
    """Refuse (``BudgetError``, exit 2) settings whose
    :func:`~transformer_theory.papers.svete_cotterell2024.study.estimate` exceeds the memory or
    time budget, naming the option out of its ordinary range (:func:`_blame`); returns the
    estimate ``(bytes, seconds)``."""
    from transformer_theory import budget

    memory, seconds = study.estimate(settings)

    def fits(s, which):
        est = study.estimate(s)[which]
        limit = 0.8 * budget.available_memory() if which == 0 else budget.time_budget()
        return math.isfinite(est) and est <= limit

    if not fits(settings, 0):
        option = _blame(settings, ["--order", "--alphabet", "--max-len"], lambda s: fits(s, 0))
        S, n = settings.alphabet, settings.order
        table = study.table_bytes(S, n)
        what = (
            f"the n-gram table ({budget.format_bytes(table)} alone), the models' D x D weights "
            "and a batch"
        )
        if not math.isfinite(table):  # beyond float range: say how far, in powers of two
            log2_table = n * math.log2(S) + math.log2(8 * (S + 1) / (S - 1))
            raise budget.BudgetError(
                f"{option}: the n-gram table alone has sum_(k<n) |Sigma|^k ~ {S}^{n - 1} "
                f"histories, about 2^{log2_table:,.0f} bytes of memory, more than this machine "
                f"can give ({budget.format_bytes(budget.available_memory())} available); "
                f"lower {option}",
                option=option,
                estimate=memory,
                available=budget.available_memory(),
            )
        budget.check_memory(memory, what=what, option=option)
    if not fits(settings, 1):
        budget.check_seconds(
            seconds,
            what="checking every string and scanning every length",
            option=_blame(
                settings,
                ["--max-len", "--scan-limit", "--order", "--alphabet"],
                lambda s: fits(s, 1),
            ),
        )
    return memory, seconds


def _run_space(args: argparse.Namespace) -> int:
    """``--space``: :func:`study.space_study`; exit 1 if a count differs from its closed form."""
    orders = list(args.orders or (2, 3, 4, 5))
    alphabets = list(args.alphabets or (1, 2, 3, 4))
    from transformer_theory.papers.svete_cotterell2024.tasks import num_histories

    if num_histories(max(alphabets), max(orders)) > study.SPACE_MAX_HISTORIES:
        raise UsageError(
            f"--orders/--alphabets: n = {max(orders)}, |Sigma| = {max(alphabets)} has more than "
            f"{study.SPACE_MAX_HISTORIES} histories"
        )
    out = prepare_out_dir(args.out)
    result = study.space_study(orders, alphabets, out, seed=args.seed)
    print(format_table(study.space_table_rows(result)))
    print(f"wrote {out}/ngram_space.json, {out}/ngram_space.png")
    return EXIT_OK if result["all_match"] and result["within_printed"] else EXIT_FAILED


# the study's options, which --space does not read
STUDY_OPTIONS = (
    "--order", "--alphabet", "--max-len", "--construction", "--attention", "--beta",
    "--precision", "--zero-fraction", "--scan-limit", "--soft-lengths", "--target-kl",
)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    if args.space:
        refuse_ignored(args, STUDY_OPTIONS, "--space")
        return _run_space(args)
    if args.orders is not None or args.alphabets is not None:
        raise UsageError("--orders/--alphabets: apply to --space only (they would be ignored)")
    fields = _check(args)
    out = prepare_out_dir(args.out)
    from transformer_theory import budget

    settings = study.Settings(**fields)
    memory, seconds = check_budget(settings)
    print(
        f"ngram: estimated {budget.format_bytes(memory)} of memory, "
        f"{budget.format_seconds(seconds)}"
    )
    try:
        result = study.run(settings, out, progress=True)
    except KeyboardInterrupt:
        print(f"interrupted: {out}/ngram.json holds the records done, marked complete: false")
        raise
    print(format_table(study.table_rows(result)))
    if result["soft"]:
        print(format_table(study.soft_table_rows(result)))
    print(f"wrote {out}/ngram.json")
    return EXIT_FAILED if study.float64_failures(result["records"]) else EXIT_OK
