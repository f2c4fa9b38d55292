"""Build Svete & Cotterell's (2024) transformer LMs for a random n-gram LM and check them exactly.

For each construction (Theorem 3.1: ``n - 1`` heads, one layer; 3.2: one head, ``n - 1`` layers;
3.3: one head, one layer) and each float format it builds the model, compares ``log q(y)`` with
the n-gram's ``log p(y)`` on every string up to ``--max-len`` (EOS included; sampled where there are
more than 50,000 strings of a length), and -- for hard and sparse attention -- scans for the first
position whose attention is not the proof's, beside the limit derived from the score's gap.
Writes ``--out/ngram.json`` (``records``: one per construction and precision, with
``max_abs_logprob_diff``, ``strings``, ``equivalent``; ``soft`` with softmax attention) and
``ngram_precision.png`` (and ``ngram_soft.png`` with softmax). Examples::

    transformer-theory ngram --order 3 --alphabet 3 --max-len 8 --out results/ngram
    transformer-theory ngram --construction 3.1,3.3 --attention softmax --beta 1000 --out r/soft

Exit 1 if a hard or sparse construction is not equivalent in float64 (where the theorems claim
it); a lower precision that breaks is a measurement, not a failure.
"""

from __future__ import annotations

import argparse
import json
import os

CONSTRUCTIONS = ("3.1", "3.2", "3.3")
PRECISIONS = ("float64", "float32", "bfloat16")


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
    p.add_argument("--order", type=_positive_int, default=3, help="n of the n-gram LM (>= 2)")
    p.add_argument("--alphabet", type=_positive_int, default=3, help="|Sigma|")
    p.add_argument(
        "--max-len", type=_nonnegative_int, default=8, help="check every string up to this length"
    )
    p.add_argument("--construction", default="all", help="comma list of 3.1, 3.2, 3.3 or 'all'")
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
        type=_positive_int,
        default=131_072,
        help="longest input scanned for the first failing position (default 131072)",
    )
    p.add_argument(
        "--soft-lengths",
        default="2,4,6,8",
        help="softmax: string lengths at which the beta for --target-kl is searched",
    )
    p.add_argument("--target-kl", type=_positive_float, default=1e-3, help="softmax: target KL")
    p.add_argument("--seed", type=_nonnegative_int, default=0, help="seed of the random LM")
    p.add_argument("--out", required=True, help="output directory (ngram.json + PNG plots)")


def _check(args) -> tuple[list[str], list[str], list[int], float]:
    UsageError = _common("UsageError")
    name_list = _common("name_list")
    constructions = name_list(args.construction, CONSTRUCTIONS, "--construction")
    precisions = name_list(args.precision, PRECISIONS, "--precision")
    if args.order < 2:
        raise UsageError(f"--order: the constructions need n >= 2, got {args.order}")
    zero = args.zero_fraction
    if zero is None:
        zero = 0.0 if args.attention == "softmax" else 0.2
    if not 0.0 <= zero < 1.0:
        raise UsageError(f"--zero-fraction: expected a number in [0, 1), got {zero}")
    if args.attention == "softmax":
        if args.beta is None:
            raise UsageError("--beta: softmax attention needs a score scale, e.g. --beta 1000")
        if zero > 0:
            raise UsageError(
                "--zero-fraction: softmax attention needs a table without exact zeros (a spread "
                "attention reads log 0 from a partly active unit); use --zero-fraction 0"
            )
    elif args.beta is not None:
        raise UsageError(f"--beta: only softmax attention takes a scale, not {args.attention!r}")
    soft_lengths = []
    if args.attention == "softmax":
        try:
            soft_lengths = [int(t) for t in args.soft_lengths.split(",") if t.strip()]
        except ValueError:
            raise UsageError(
                f"--soft-lengths: expected a comma list of integers, got {args.soft_lengths!r}"
            ) from None
        if not soft_lengths or min(soft_lengths) < 0:
            raise UsageError(f"--soft-lengths: expected lengths >= 0, got {args.soft_lengths!r}")
        if args.alphabet ** max(soft_lengths + [args.max_len]) > 200_000:
            raise UsageError(
                "--soft-lengths: the KL sums over every string; |Sigma|^L must stay <= 200000"
            )
    return constructions, precisions, soft_lengths, zero


def run(args) -> int:
    EXIT_FAILED, EXIT_OK = _common("EXIT_FAILED"), _common("EXIT_OK")
    constructions, precisions, soft_lengths, zero = _check(args)
    out = _common("prepare_out_dir")(args.out)

    import jax
    from tqdm.auto import tqdm

    jax.config.update("jax_enable_x64", True)  # float64 is one of the formats compared
    from transformer_theory.analysis import ngram as analysis
    from transformer_theory.constructions import ngram as cn
    from transformer_theory.tasks.ngram import NGramLM

    lm = NGramLM.random(args.seed, args.alphabet, args.order, zero_fraction=zero)
    records, failed = [], False
    jobs = [(c, p) for c in constructions for p in precisions]
    for construction, precision in tqdm(jobs, desc="ngram", unit="model"):
        dtype = analysis.DTYPES[precision]
        params = cn.build(
            lm,
            construction,
            attention=args.attention,
            beta=args.beta,
            max_len=args.max_len,
            dtype=dtype,
        )
        cfg = params.config
        rec = {
            "construction": construction,
            "attention": args.attention,
            "precision": precision,
            "order": args.order,
            "alphabet": args.alphabet,
            "max_len": args.max_len,
            "heads": list(cfg.heads),
            "width": cfg.width,
            "mlp_hidden": cfg.mlp_hidden,
            "beta": args.beta if args.attention == "softmax" else None,
        }
        rec.update(analysis.equivalence_record(lm, params, args.max_len, seed=args.seed))
        if args.attention != "softmax":
            rec["scan"] = analysis.selection_scan(params, construction, limit=args.scan_limit)
            rec["predicted_exact_length"] = analysis.predicted_exact_length(
                construction, args.order, dtype, attention=args.attention, max_len=args.max_len
            )
            failed |= precision == "float64" and not rec["equivalent"]
        else:
            rec["kl"] = analysis.soft_kl(lm, construction, args.beta, args.max_len)
        records.append(rec)
        tqdm.write(_summary(rec))
    result = {"settings": vars(args) | {"zero_fraction": zero}, "records": records}
    if args.attention == "softmax":
        result["soft"] = _soft_study(lm, constructions, args, soft_lengths, analysis, tqdm)
    with open(os.path.join(out, "ngram.json"), "w") as fh:
        json.dump(result, fh, indent=1)
    _plot(result, out)
    print(f"wrote {os.path.join(out, 'ngram.json')}")
    return EXIT_FAILED if failed else EXIT_OK


def _summary(rec) -> str:
    line = (
        f"{rec['construction']} {rec['attention']} {rec['precision']}: "
        f"{'equivalent' if rec['equivalent'] else 'NOT equivalent'} on {rec['strings']} strings "
        f"(max |log q - log p| = {rec['max_abs_logprob_diff']:.2e})"
    )
    if "scan" in rec:
        first = rec["scan"]["longest_exact_length"]
        exact = {None: "exact up to the scan limit", -1: "exact for no string"}.get(
            first, f"exact up to length {first}"
        )
        line += f"; {exact} " + (
            f"(derived >= {rec['predicted_exact_length']})"
            if rec["predicted_exact_length"] is not None
            else "(derived: none guaranteed)"
        )
    if "kl" in rec:
        line += f"; KL = {rec['kl']:.3e}"
    return line


def _soft_study(lm, constructions, args, soft_lengths, analysis, tqdm) -> list[dict]:
    betas = [10.0**k for k in range(0, 7)]
    rows = []
    for construction in tqdm(constructions, desc="softmax beta", unit="construction"):
        curve = [
            {"beta": b, "kl": analysis.soft_kl(lm, construction, b, args.max_len)} for b in betas
        ]
        needed = [
            {"length": L, "beta": analysis.beta_for_kl(lm, construction, args.target_kl, L)}
            for L in soft_lengths
        ]
        rows.append(
            {
                "construction": construction,
                "max_len": args.max_len,
                "kl_by_beta": curve,
                "target_kl": args.target_kl,
                "beta_needed": needed,
            }
        )
    return rows


def _plot(result, out) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from transformer_theory.analysis import ngram as analysis
    from transformer_theory.constructions.ngram import score_gap

    records = [r for r in result["records"] if "scan" in r]
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
            ax = axes[1] if r["construction"] == "3.3" else axes[0]
            ax.axvline(pos + 1, color=colors[r["precision"]], ls="--", alpha=0.7)
        axes[0].set(
            xlabel="position t",
            ylabel="score gap",
            title="Theorems 3.1/3.2: gap vs rounding (dashed: first failure)",
        )
        axes[1].set(
            xlabel="position t",
            ylabel="largest intermediate",
            title="Theorem 3.3: exact integers while below 2^p",
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
