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
softmax). Examples::

    transformer-theory ngram --order 3 --alphabet 3 --max-len 8 --out results/ngram
    transformer-theory ngram --construction 3.1,3.3-slots --attention softmax --beta 1000 \\
        --out r/soft

Exit 1 if a hard or sparse construction is not equivalent in float64 (where the theorems claim
it); a lower precision that breaks is a measurement, not a failure.
"""

from __future__ import annotations

import argparse
import math
import os

CONSTRUCTIONS = ("3.1", "3.2", "3.2-direct", "3.3", "3.3-slots")
PRECISIONS = ("float64", "float32", "bfloat16")
OUTPUTS = ("ngram.json", "ngram_precision.png", "ngram_soft.png")
#: Seconds one compilation of a small model takes (a jitted forward at a new length), measured
#: 0.3 s (idle) to 5 s (8 jobs sharing its 2 cores) on the CPU this was written on; the unit of
#: the time estimate, which is therefore rough by a factor of a few either way.
SECONDS_PER_COMPILE = 1.0
#: The defaults of the size options: the ordinary range an over-budget option is measured against.
DEFAULTS = {"order": 3, "alphabet": 3, "max_len": 8, "scan_limit": 40}


def _common(name):
    from transformer_theory.cli import _common

    return getattr(_common, name)


def _positive_int(text):
    return _common("positive_int")(text)


def _nonnegative_int(text):
    return _common("nonnegative_int")(text)


def _positive_float(text):
    return _common("positive_float")(text)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--order", type=_positive_int, default=DEFAULTS["order"], help="n of the n-gram LM (>= 2)"
    )
    p.add_argument("--alphabet", type=_positive_int, default=DEFAULTS["alphabet"], help="|Sigma|")
    p.add_argument(
        "--max-len",
        type=_nonnegative_int,
        default=DEFAULTS["max_len"],
        help="check every string up to this length",
    )
    p.add_argument(
        "--construction",
        default="all",
        help="comma list of 3.1, 3.2, 3.3 (the paper's), 3.2-direct, 3.3-slots (this library's "
        "variants) or 'all'",
    )
    p.add_argument("--attention", default="hard", choices=("hard", "sparse", "softmax"))
    p.add_argument("--beta", type=_positive_float, default=None, help="softmax: score scale")
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
        type=_nonnegative_int,
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
        "--target-kl", type=_positive_float, default=None, help="softmax only: target KL (1e-3)"
    )
    p.add_argument("--seed", type=_nonnegative_int, default=0, help="seed of the random LM")
    p.add_argument("--out", required=True, help="output directory (ngram.json + PNG plots)")


def _check(args) -> tuple[list[str], list[str], list[int], float]:
    UsageError = _common("UsageError")
    name_list = _common("name_list")
    constructions = name_list(args.construction, CONSTRUCTIONS, "--construction")
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
            soft_lengths = [int(t) for t in text.split(",") if t.strip()]
        except ValueError:
            raise UsageError(
                f"--soft-lengths: expected a comma list of integers, got {text!r}"
            ) from None
        if not soft_lengths or min(soft_lengths) < 0:
            raise UsageError(f"--soft-lengths: expected lengths >= 0, got {text!r}")
        if args.alphabet ** (max(soft_lengths + [args.max_len]) + 1) > 2**22:
            raise UsageError(
                "--soft-lengths: the KL sums over every string and prefix up to L + 1 symbols; "
                "|Sigma|^(L+1) must stay <= 2^22 (L: the largest of --soft-lengths, --max-len)"
            )
    return constructions, precisions, soft_lengths, zero


def _power(base: int, exponent: int) -> float:
    """``base ** exponent`` as a float, ``inf`` beyond float range (never the exact integer, whose
    10^12-digit power would itself take hours)."""
    if base <= 1 or exponent == 0:
        return 1.0 if base >= 1 or exponent == 0 else 0.0
    if exponent * math.log2(base) >= 1023:
        return math.inf
    return float(base) ** exponent


def _geometric(base: int, terms: int) -> float:
    """``sum_{k<terms} base^k`` in closed form, as a float (``inf`` beyond float range)."""
    if base == 1:
        return float(terms)
    return (_power(base, terms) - 1.0) / (base - 1)


def estimate(args, constructions, precisions, soft_lengths) -> tuple[float, float]:
    """``(bytes, seconds)`` the run needs, from the settings alone (nothing is built).

    Memory: the n-gram table (``A (|Sigma| + 1)`` float64, ``A = sum_{k<n} |Sigma|^k``), the
    largest model's weights (``W_QK`` and ``W_V`` are ``D x D`` per head, ``D ~ A``; the MLP is
    ``units x D`` twice) and the largest batch's activations in the equivalence check (up to
    4,096 strings of ``n - 1 + L`` positions, ``D`` wide, with ``H`` attention maps of ``N^2``).
    Time: one compilation (:data:`SECONDS_PER_COMPILE`) per string length checked and per length
    scanned, per model, plus the arithmetic at 1e9 multiply-adds per second.

    Pure float arithmetic in closed forms (``A = (|Sigma|^n - 1) / (|Sigma| - 1)``), so an
    ``--order`` or ``--max-len`` of 10^12 costs nothing to estimate; ``inf`` beyond float range.
    """
    S, n = args.alphabet, args.order
    w, V = n - 1, S + 1
    A = _geometric(S, n)
    D = V + 2 * (2 * w + 1) + w * (1 + V) + w * V + A  # the widest layout (3.3-slots)
    heads = w
    units = A * w
    table = 8.0 * A * V
    weights = 8.0 * (2 * heads * D * D + 2 * units * D + V * D)
    N = w + args.max_len
    strings = min(_geometric(S, args.max_len + 1), 50_000.0 * (args.max_len + 1))
    batch = min(4096, max(min(_power(S, args.max_len), 50_000), 2_000))
    acts = 8.0 * batch * (N * (D + units) * (w + 1) + heads * N * N)
    memory = table + weights + acts
    models = len(constructions) * (1 if args.attention == "softmax" else len(precisions))
    scans = 0 if args.attention == "softmax" else args.scan_limit + 1
    lengths = args.max_len + 1 + scans
    evaluations = 1
    if args.attention == "softmax":
        # the soft study: 7 betas and a ~12-step bisection per soft length, each over every
        # string up to the length (the shapes repeat, so they compile once per length)
        lengths += max(soft_lengths + [args.max_len]) + 2
        evaluations += 7 + 12 * len(soft_lengths)
    flops = models * (
        evaluations * strings * N * D * (D + units) * (w + 1) + scans * (w + scans) ** 2 * D
    )
    seconds = models * lengths * SECONDS_PER_COMPILE + flops / 1e9
    return memory, seconds


def _blame(args, options: list[str], fits) -> str:
    """The options to name for a run over budget, ``/``-joined: those of ``options`` above their
    default (out of their ordinary range) whose default alone makes ``fits(settings)`` true; else
    all those above their default; else all of ``options`` (the defaults themselves do not fit)."""

    def dest(option):
        return option[2:].replace("-", "_")

    above = [o for o in options if getattr(args, dest(o)) > DEFAULTS[dest(o)]]
    alone = [
        o for o in above if fits(argparse.Namespace(**{**vars(args), dest(o): DEFAULTS[dest(o)]}))
    ]
    return "/".join(alone or above or options)


def check_budget(args, constructions, precisions, soft_lengths) -> tuple[float, float]:
    """Refuse (``BudgetError``, exit 2) settings whose :func:`estimate` exceeds the memory or
    time budget, naming the option out of its ordinary range (:func:`_blame`); returns the
    estimate ``(bytes, seconds)``."""
    from transformer_theory import budget

    memory, seconds = estimate(args, constructions, precisions, soft_lengths)

    def fits(a, which):
        est = estimate(a, constructions, precisions, soft_lengths)[which]
        limit = 0.8 * budget.available_memory() if which == 0 else budget.time_budget()
        return math.isfinite(est) and est <= limit

    if not fits(args, 0):
        option = _blame(args, ["--order", "--alphabet", "--max-len"], lambda a: fits(a, 0))
        S, n = args.alphabet, args.order
        table = 8.0 * _geometric(S, n) * (S + 1)
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
    if not fits(args, 1):
        budget.check_seconds(
            seconds,
            what="checking every string and scanning every length",
            option=_blame(
                args, ["--max-len", "--scan-limit", "--order", "--alphabet"], lambda a: fits(a, 1)
            ),
        )
    return memory, seconds


def _save(out, settings, records, soft, complete) -> str:
    from transformer_theory.jsonio import write_json

    path = os.path.join(out, "ngram.json")
    result = {"complete": complete, "settings": settings, "records": records}
    if soft is not None:
        result["soft"] = soft
    write_json(path, result)
    return path


def run(args) -> int:
    EXIT_FAILED, EXIT_OK = _common("EXIT_FAILED"), _common("EXIT_OK")
    constructions, precisions, soft_lengths, zero = _check(args)
    out = _common("prepare_out_dir")(args.out)
    from transformer_theory import budget

    memory, seconds = check_budget(args, constructions, precisions, soft_lengths)
    print(
        f"ngram: estimated {budget.format_bytes(memory)} of memory, "
        f"{budget.format_seconds(seconds)}"
    )
    # An earlier run's outputs (perhaps another setting's) must not stand beside this run's.
    for name in OUTPUTS:
        if os.path.exists(os.path.join(out, name)):
            os.remove(os.path.join(out, name))
    settings = vars(args) | {"zero_fraction": zero}
    settings.pop("func", None)
    records = []
    _save(out, settings, records, None, complete=False)

    import jax
    from tqdm.auto import tqdm

    jax.config.update("jax_enable_x64", True)  # float64 is one of the formats compared
    from transformer_theory.papers.svete_cotterell2024 import checks as analysis
    from transformer_theory.papers.svete_cotterell2024 import constructions as cn
    from transformer_theory.papers.svete_cotterell2024.tasks import NGramLM

    lm = NGramLM.random(args.seed, args.alphabet, args.order, zero_fraction=zero)
    failed = False
    soft = None
    jobs = [(c, p) for c in constructions for p in precisions]
    try:
        for construction, precision in tqdm(jobs, desc="ngram", unit="model"):
            dtype = analysis.DTYPES[precision]
            rec = {
                "construction": construction,
                "attention": args.attention,
                "precision": precision,
                "order": args.order,
                "alphabet": args.alphabet,
                "max_len": args.max_len,
                "beta": args.beta if args.attention == "softmax" else None,
            }
            if construction == "3.3":
                params = cn.build_paper33(lm, dtype=dtype)
                rec |= {"heads": [1], "width": None, "mlp_hidden": None}
            else:
                params = cn.build(
                    lm,
                    construction,
                    attention=args.attention,
                    beta=args.beta,
                    max_len=args.max_len,
                    dtype=dtype,
                )
                cfg = params.config
                rec |= {
                    "heads": list(cfg.heads),
                    "width": cfg.width,
                    "mlp_hidden": cfg.mlp_hidden,
                }
            rec.update(analysis.equivalence_record(lm, params, args.max_len, seed=args.seed))
            if construction == "3.3":
                rec["scan"] = analysis.paper33_scan(params, max_length=args.scan_limit)
                rec["predicted_exact_length"] = None  # no derived bound (see the README)
                failed |= precision == "float64" and not rec["equivalent"]
            elif args.attention != "softmax":
                rec["scan"] = analysis.selection_scan(
                    params, construction, max_length=args.scan_limit
                )
                rec["predicted_exact_length"] = analysis.predicted_exact_length(
                    construction, args.order, dtype, attention=args.attention, max_len=args.max_len
                )
                failed |= precision == "float64" and not rec["equivalent"]
            else:
                rec["kl"] = analysis.soft_kl(lm, construction, args.beta, args.max_len)
            records.append(rec)
            tqdm.write(_summary(rec))
        if args.attention == "softmax":
            target = 1e-3 if args.target_kl is None else args.target_kl
            soft = _soft_study(lm, constructions, args, soft_lengths, target, analysis, tqdm)
    except KeyboardInterrupt:
        path = _save(out, settings, records, soft, complete=False)
        print(f"interrupted: {path} holds the {len(records)} records done, marked complete: false")
        raise
    result = {"settings": settings, "records": records, "soft": soft}
    _plot(result, out)
    path = _save(out, settings, records, soft, complete=True)
    print(f"wrote {path}")
    return EXIT_FAILED if failed else EXIT_OK


def _summary(rec) -> str:
    line = (
        f"{rec['construction']} {rec['attention']} {rec['precision']}: "
        f"{'equivalent' if rec['equivalent'] else 'NOT equivalent'} on {rec['strings']} strings "
        f"(max |log q - log p| = {rec['max_abs_logprob_diff']:.2e})"
    )
    if "scan" in rec:
        scan = rec["scan"]
        first = scan["longest_exact_length"]
        if first is None:
            exact = f"exact at every length up to {scan['checked_up_to']} (the scan's limit)"
        elif first == -1:
            exact = "exact for no string"
        else:
            exact = f"exact at every length up to {first} (wrong at {first + 1})"
        if rec["construction"] == "3.3":
            line += f"; {exact} on sampled strings (no derived bound)"
        else:
            line += f"; {exact} " + (
                f"(derived >= {rec['predicted_exact_length']})"
                if rec["predicted_exact_length"] is not None
                else "(derived: none guaranteed)"
            )
    if "kl" in rec:
        line += f"; KL = {rec['kl']:.3e}"
    return line


def _soft_study(lm, constructions, args, soft_lengths, target, analysis, tqdm) -> list[dict]:
    betas = [10.0**k for k in range(0, 7)]
    rows = []
    for construction in tqdm(constructions, desc="softmax beta", unit="construction"):
        curve = [
            {"beta": b, "kl": analysis.soft_kl(lm, construction, b, args.max_len)} for b in betas
        ]
        needed = [
            {"length": L, "beta": analysis.beta_for_kl(lm, construction, target, L)}
            for L in soft_lengths
        ]
        rows.append(
            {
                "construction": construction,
                "max_len": args.max_len,
                "kl_by_beta": curve,
                "target_kl": target,
                "beta_needed": needed,
            }
        )
    return rows


def _plot(result, out) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from transformer_theory.papers.svete_cotterell2024 import checks as analysis
    from transformer_theory.papers.svete_cotterell2024.constructions import score_gap

    records = [r for r in result["records"] if "scan" in r and r["construction"] != "3.3"]
    if records:
        order = records[0]["order"]
        w = order - 1
        t = np.unique(np.logspace(0, 6, 300).astype(int))
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        colors = {"float64": "C0", "float32": "C1", "bfloat16": "C2"}
        axes[0].loglog(t, score_gap(t), "k-", label="gap 1 - <u(t), u(t+-1)>")
        axes[1].loglog(t, [analysis.window_budget(x, w) for x in t], "k-", label="sum |c_k| t^k")
        for precision, color in colors.items():
            bits = analysis.significand_bits(analysis.DTYPES[precision])
            axes[0].axhline(10 * 2.0**-bits, color=color, ls=":", label=f"10u, {precision}")
            axes[1].axhline(2.0**bits, color=color, ls=":", label=f"2^p, {precision}")
        for r in records:
            pos = r["scan"]["first_failing_position"]
            if pos is None:
                continue
            ax = axes[1] if r["construction"] == "3.3-slots" else axes[0]
            ax.axvline(pos + 1, color=colors[r["precision"]], ls="--", alpha=0.7)
        axes[0].set(
            xlabel="position t",
            ylabel="score gap",
            title="3.1/3.2: gap vs rounding (dashed: first failure)",
        )
        axes[1].set(
            xlabel="position t",
            ylabel="largest intermediate",
            title="3.3-slots: exact integers while below 2^p",
        )
        for ax in axes:
            ax.legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "ngram_precision.png"), dpi=120)
        plt.close(fig)
    if result.get("soft"):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        for row in result["soft"]:
            kls = [max(c["kl"], 1e-18) for c in row["kl_by_beta"]]
            betas = [c["beta"] for c in row["kl_by_beta"]]
            axes[0].loglog(betas, kls, "o-", label=row["construction"])
            pts = [n for n in row["beta_needed"] if n["beta"] is not None]
            axes[1].loglog(
                [max(n["length"], 1) for n in pts],
                [n["beta"] for n in pts],
                "o-",
                label=row["construction"],
            )
        axes[0].set(
            xlabel="beta", ylabel="KL, first max-len+1 outcomes", title="softmax: KL from n-gram"
        )
        axes[1].set(
            xlabel="max string length",
            ylabel="beta for the target KL",
            title=f"beta needed for KL <= {result['soft'][0]['target_kl']:g}",
        )
        for ax in axes:
            ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "ngram_soft.png"), dpi=120)
        plt.close(fig)
