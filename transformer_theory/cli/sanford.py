"""Build and check the Sanford, Hsu & Telgarsky 2023 constructions: qSA, Match2, Match3Bigram,
Match3Local.

Writes one JSON record per configuration to ``--out/<task>_N<N>_....json``, all records to
``--out/sanford.json`` and plots (``qsa_m_min.png``: smallest ``m`` against ``q log N``;
``<task>_precision.png``: accuracy per float format against ``M``). Examples::

    transformer-theory sanford --task qsa --n 8,16 --q 1,2 --eps 0.1 --out results/sanford
    transformer-theory sanford --task match2,match3bigram,match3local --n 4,16,64 \
        --out results/sanford

``match3local`` is Match3Local by the ``2K + 1``-head unit, ``match3local1`` by the single-head
unit (query/key width ``4K + 4``); both are our constructions of Sanford et al.'s statement.

Prints one table row per configuration. Exit 1 if a construction misses: a qSA unit above
``eps`` for every ``m`` searched, or a Match unit below 100% in float64. Exit 2 before any work
for sizes the check cannot honestly run: a Match size whose scale ``c`` (``exact_scale``) is
beyond float64's 53-bit exact range (there a miss would be the format's, not the
construction's), more qSA subsets than the enumeration limit, or memory beyond the budget.
"""

from __future__ import annotations

import argparse
import math
import os

TASKS = ("qsa", "match2", "match3bigram", "match3local", "match3local1")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--task", default="all", help=f"comma list of {', '.join(TASKS)} or 'all'")
    p.add_argument("--n", default="4,8,16", help="sequence lengths N (comma list)")
    p.add_argument("--q", default="1,2", help="qSA: sparsities q (comma list)")
    p.add_argument("--eps", default="0.1", help="qSA: accuracies eps in (0, 1) (comma list)")
    p.add_argument("--dim", type=_positive_int, default=2, help="qSA: d', width of the z_i")
    p.add_argument(
        "--modulus-power",
        type=_positive_int,
        default=2,
        help="Match: M = max(N^power, 4) (default N^2, the issue's M = N^2)",
    )
    p.add_argument("--window", type=_nonnegative_int, default=2, help="Match3Local: window K")
    p.add_argument(
        "--samples",
        type=_positive_int,
        default=100_000,
        help="sampled inputs where the input space is larger (default 100000)",
    )
    p.add_argument("--seed", type=_nonnegative_int, default=0)
    p.add_argument("--out", required=True, help="output directory (JSON records + PNG plots)")


def _positive_int(text):
    from transformer_theory.cli._common import positive_int

    return positive_int(text)


def _nonnegative_int(text):
    from transformer_theory.cli._common import nonnegative_int

    return nonnegative_int(text)


def _numbers(text: str, option: str, kind, low, high=None) -> list:
    from transformer_theory.cli._common import UsageError

    try:
        values = [kind(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise UsageError(f"{option}: expected a comma list of numbers, got {text!r}") from None
    # NaN compares False with everything, so a range test alone lets it through
    bad = [v for v in values if not math.isfinite(v) or v < low or (high is not None and v >= high)]
    if not values or bad:
        span = f">= {low}" + ("" if high is None else f" and < {high}")
        raise UsageError(f"{option}: every value must be {span}, got {text!r}")
    return values


def _modulus(n: int, power: int) -> int:
    return max(n**power, 4)


# The defaults of the size options: the ordinary range an over-budget option is measured against.
DEFAULTS = {"--dim": 2, "--modulus-power": 2, "--samples": 100_000}


def _settings(args, **change) -> dict:
    """The size options by name (``"--dim"``...), with ``change`` applied."""
    values = {"--dim": args.dim, "--modulus-power": args.modulus_power, "--samples": args.samples}
    return values | change


def _blame(args, estimate, ok, options: list[str], rest: str) -> str:
    """The options to name when ``estimate(settings)`` is not ``ok``, ``/``-joined: those of
    ``options`` above their default whose default alone makes it ok; else ``rest`` (the lists
    ``--n``, ``--q``, which have no single default) and those above their default."""
    values = _settings(args)
    above = [o for o in options if values[o] > DEFAULTS[o]]
    alone = [o for o in above if ok(estimate(_settings(args, **{o: DEFAULTS[o]})))]
    return "/".join(alone or dict.fromkeys([*rest.split("/"), *above]))


def _memory_ok(nbytes) -> bool:
    from transformer_theory import budget

    try:
        budget.check_memory(nbytes, what="", option="")
    except budget.BudgetError:
        return False
    return True


def _time_ok(seconds) -> bool:
    from transformer_theory import budget

    return math.isfinite(seconds) and seconds <= budget.time_budget()


def _check_memory(args, estimate, what: str, options: list[str], rest: str) -> None:
    from transformer_theory import budget

    nbytes = estimate(_settings(args))
    if not _memory_ok(nbytes):
        option = _blame(args, estimate, _memory_ok, options, rest)
        budget.check_memory(nbytes, what=what, option=option)


def _check_sizes(tasks, ns, qs, epss, args) -> None:
    """Refuse (exit 2) before any work: Match sizes beyond float64's exact range, qSA subset
    counts beyond the enumeration limit, memory or time beyond the budget, naming the option out
    of its ordinary range (:func:`_blame`). Pure arithmetic on the options: ``M = N^power`` is
    compared through ``log2`` before it is computed."""
    from transformer_theory import budget
    from transformer_theory.cli._common import UsageError
    from transformer_theory.papers.sanford2023 import checks as analysis
    from transformer_theory.papers.sanford2023 import constructions as cs
    from transformer_theory.papers.sanford2023 import tasks as ts

    power = args.modulus_power
    seconds = []  # estimate(settings) -> seconds, one per configuration
    for task in tasks:
        if task == "qsa":
            for n in ns:
                for q in qs:
                    count = math.comb(n, q)
                    if count > ts.ALL_SUBSETS_LIMIT:
                        raise UsageError(
                            f"--n/--q: N = {n}, q = {q} has C(N, q) = {count:.3g} subsets to "
                            f"check exhaustively, more than the limit "
                            f"{ts.ALL_SUBSETS_LIMIT:,}; lower --n or --q"
                        )
                    at = f"N = {n}, q = {q}, d' = {args.dim}"
                    _check_memory(
                        args,
                        lambda s, n=n, q=q: analysis.qsa_bytes(n, q, s["--dim"]),
                        f"the exhaustive qSA check at {at}",
                        ["--dim"],
                        "--n/--q",
                    )
                    _check_memory(
                        args,
                        lambda s, n=n, q=q: analysis.qsa_samples_bytes(
                            n, q, s["--dim"], s["--samples"]
                        ),
                        f"a chunk of the sampled qSA check at {at}",
                        ["--dim"],
                        "--n",
                    )
                    seconds.append(
                        lambda s, n=n: (
                            len(epss) * analysis.qsa_samples_seconds(n, s["--dim"], s["--samples"])
                        )
                    )
            continue
        for n in ns:
            # M = max(N^power, 4) >= N^power, and the scale is at least log2 M (exact_scale): a
            # log2 M beyond float64's 53 bits is refused before M (10^12 digits...) is computed.
            log2_m = max(power * math.log2(n), 2.0)
            if log2_m > cs.MANTISSA_BITS["float64"]:
                m_text, scale_log2, scale = f"2^{log2_m:,.0f}", log2_m, f"at least 2^{log2_m:,.0f}"
            else:
                m = _modulus(n, power)
                scale_log2 = cs.exact_scale(task, n, m, args.window)
                m_text, scale = f"{float(m):.3g}", f"2^{scale_log2:.1f}"
            if scale_log2 > cs.MANTISSA_BITS["float64"]:
                first = "--modulus-power" if power > DEFAULTS["--modulus-power"] else "--n"
                if task.startswith("match3local") and log2_m <= cs.MANTISSA_BITS["float64"]:
                    # M fits: the positional scale c_1 ~ (N + 2K)^2 is what overflows.
                    first = "--window" if args.window > 2 else first
                raise UsageError(
                    f"{first}: {task} at N = {n}, M = {m_text} needs its scale "
                    f"c = {scale} resolved to one unit, beyond float64's exact range "
                    f"(2^53): a miss would be float64's precision, not the construction; "
                    + (
                        "lower --modulus-power, --n or --window"
                        if task.startswith("match3local")
                        else "lower --modulus-power or --n"
                    )
                )
            _check_memory(
                args,
                lambda s, n=n, task=task: analysis.match_bytes_per_sequence(
                    task, n, _modulus(n, s["--modulus-power"]), args.window
                ),
                f"one {task} sequence at N = {n}, M = {m}",
                ["--modulus-power"],
                "--n",
            )
            count, exhaustive = analysis.match_input_count(n, m, args.samples)
            _check_memory(
                args,
                lambda s, n=n, task=task: analysis.match_inputs_bytes(
                    task, n, _modulus(n, s["--modulus-power"]), args.window, s["--samples"]
                ),
                f"the {count:,} {'' if exhaustive else 'sampled '}{task} inputs and their labels "
                f"at N = {n}, M = {m}",
                ["--samples", "--modulus-power"],
                "--n/--samples",
            )
            seconds.append(
                lambda s, n=n, task=task: analysis.match_seconds(
                    task, n, _modulus(n, s["--modulus-power"]), args.window, s["--samples"]
                )
            )

    def total(s):
        return sum(f(s) for f in seconds)

    if not _time_ok(total(_settings(args))):
        budget.check_seconds(
            total(_settings(args)),
            what=f"running {args.samples:,} sampled inputs per configuration (at least)",
            option=_blame(args, total, _time_ok, ["--samples", "--dim"], "--n/--samples"),
        )


def _row(rec: dict) -> str:
    if rec["task"] == "qsa":
        if rec["m_min"] is None:
            return f"{'qsa':<12} {rec['N']:>4} q={rec['q']:<3} eps={rec['epsilon']:<6g} MISSED"
        return (
            f"{'qsa':<12} {rec['N']:>4} q={rec['q']:<3} eps={rec['epsilon']:<6g} "
            f"m_min={rec['m_min']:<4} error={rec['max_error']:.4f} (all inputs) "
            f"sampled={rec['sampled_max_error']:.4f} bits={rec['bits_min']} "
            f"(proof {rec['bits_proof']})"
        )
    acc = " ".join(
        f"{name}={value:.4f}{'' if rec['within_exact_range'][name] else '*'}"
        for name, value in rec["accuracy_by_dtype"].items()
    )
    what = "all" if rec["exhaustive"] else "sampled"
    return f"{rec['task']:<12} {rec['N']:>4} M={rec['M']:<8} {what:<7} {acc}"


def run(args) -> int:
    from transformer_theory import jsonio
    from transformer_theory.cli._common import (
        EXIT_FAILED,
        EXIT_OK,
        UsageError,
        name_list,
        prepare_out_dir,
    )

    tasks = name_list(args.task, TASKS, "--task")
    ns = _numbers(args.n, "--n", int, 1)
    qs = _numbers(args.q, "--q", int, 1)
    epss = _numbers(args.eps, "--eps", float, 1e-12, 1.0)
    if "qsa" in tasks and any(q >= n for q in qs for n in ns):
        raise UsageError(f"--q: every q must be < every N (N = {ns}, q = {qs})")
    if any(t.startswith("match3") for t in tasks) and min(ns) < 2:
        raise UsageError("--n: Match3Bigram needs N >= 2")
    _check_sizes(tasks, ns, qs, epss, args)
    out = prepare_out_dir(args.out)

    import jax

    jax.config.update("jax_enable_x64", True)  # float64 is one of the formats compared
    from transformer_theory.papers.sanford2023 import checks as analysis

    jobs = []
    if "qsa" in tasks:
        jobs += [dict(task="qsa", n=n, q=q, eps=e) for n in ns for q in qs for e in epss]
    for task in tasks:
        if task != "qsa":
            jobs += [dict(task=task, n=n, modulus=_modulus(n, args.modulus_power)) for n in ns]
    records, failed = [], False
    print(f"{'task':<12} {'N':>4} result (* = beyond the format's exact range)")
    for job in jobs:
        if job["task"] == "qsa":
            rec = analysis.qsa_record(
                job["n"], job["q"], job["eps"], dim=args.dim, samples=args.samples, seed=args.seed
            )
            failed |= rec["m_min"] is None
            name = f"qsa_N{job['n']}_q{job['q']}_eps{job['eps']:g}.json"
        else:
            rec = analysis.match_record(
                job["task"],
                job["n"],
                job["modulus"],
                window=args.window,
                samples=args.samples,
                seed=args.seed,
            )
            failed |= rec["accuracy_by_dtype"]["float64"] < 1.0
            name = f"{job['task']}_N{job['n']}_M{job['modulus']}.json"
        records.append(rec)
        jsonio.write_json(os.path.join(out, name), rec)
        jsonio.write_json(os.path.join(out, "sanford.json"), records)
        print(_row(rec), flush=True)
    _plot(records, out)
    print(f"wrote {os.path.join(out, 'sanford.json')}")
    return EXIT_FAILED if failed else EXIT_OK


def _plot(records, out) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    qsa = [r for r in records if r["task"] == "qsa" and r["m_min"] is not None]
    if qsa:
        fig, ax = plt.subplots(1, 2, figsize=(9, 3.5))
        xs = [r["q_log_N"] for r in qsa]
        ax[0].scatter(xs, [r["m_min"] for r in qsa])
        ax[0].set(xlabel="q log N", ylabel="smallest m reaching eps", title="qSA: rows of U")
        ax[1].scatter(xs, [r["bits_min"] for r in qsa], label="smallest")
        ax[1].scatter(xs, [r["bits_proof"] for r in qsa], marker="x", label="proof's choice")
        ax[1].set(xlabel="q log N", ylabel="fraction bits of w", title="qSA: precision")
        ax[1].legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "qsa_m_min.png"), dpi=120)
        plt.close(fig)
    for task in TASKS[1:]:
        rows = [r for r in records if r["task"] == task]
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for dtype in rows[0]["accuracy_by_dtype"]:
            ax.plot(
                [r["M"] for r in rows],
                [r["accuracy_by_dtype"][dtype] for r in rows],
                "o-",
                label=dtype,
            )
        ax.set(xscale="log", xlabel="M", ylabel="accuracy (positions)", title=f"{task}: precision")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{task}_precision.png"), dpi=120)
        plt.close(fig)
