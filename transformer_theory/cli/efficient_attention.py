"""Efficient attention against exact attention: ``transformer-theory efficient-attention
--max-len 16384 [--out DIR]``.

Measures (Conti 2024, §2.1; :mod:`transformer_theory.papers.conti2024.efficient`):

- the cost of every variant -- blocked Longformer / BigBird, Linformer, linear (elu + 1, Taylor,
  positive random features), the dense ``jax.nn.dot_product_attention`` reference and a window
  built as a dense mask -- at lengths ``--min-len, 2 --min-len, ..., --max-len``: seconds per call
  and XLA's memory account of the compiled program, with log-log slopes fitted over ``n >= 1024``
  (``cost.json``, ``cost.csv``, ``cost.png``);
- the output error of each approximation against exact softmax attention as a function of its
  budget, on random inputs (``iid`` and ``local``) at ``--error-len`` and on the activations of
  trained models given with ``--run`` (``errors.json``, ``errors.csv``, ``errors.png``); skipped
  when ``--variants`` names no approximation (``dense``, ``window_dense_mask`` alone).

Before any work, the peak memory of both studies is estimated from the shapes
(:func:`~transformer_theory.papers.conti2024.efficient.estimate_bytes`), and their time from a lower bound
per compilation and call (:func:`~transformer_theory.papers.conti2024.efficient.cost_study_seconds`); a
run that would not fit is refused in one line naming the option to lower -- the one whose usual
value (its default, or the value given if smaller) alone would make it fit, or all of them when
none does alone (exit 2; ``TT_MEMORY_BUDGET`` and ``TT_TIME_BUDGET`` set the lines).
``--examples`` applies to ``--run`` only and is refused without it (it would be ignored).
Slopes are reported only through at least three lengths (``n/a`` otherwise).
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import sys

from transformer_theory import budget, jsonio
from transformer_theory.cli._common import (
    UsageError,
    name_list,
    nonnegative_int,
    positive_int,
    prepare_out_dir,
)

# The defaults of the size options: the "usual value" an over-budget option is measured against.
DEFAULTS = dict(max_len=16384, dim=64, repeats=3, error_len=512, error_batch=8)
DEFAULT_EXAMPLES = 32


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        default="results/efficient_attention",
        help="output directory for JSON, CSV and PNG (default results/efficient_attention)",
    )
    parser.add_argument(
        "--max-len", type=positive_int, default=16384, help="longest sequence timed (default 16384)"
    )
    parser.add_argument(
        "--min-len", type=positive_int, default=256, help="shortest sequence timed (default 256)"
    )
    parser.add_argument(
        "--dim", type=positive_int, default=64, help="query/key/value width (default 64)"
    )
    parser.add_argument(
        "--repeats", type=positive_int, default=3, help="timed calls per point (default 3)"
    )
    parser.add_argument(
        "--variants",
        default="all",
        help="comma list of variants (default all): sliding_window, dilated_window, longformer, "
        "bigbird, linformer, performer, linear_elu, taylor, dense, window_dense_mask",
    )
    parser.add_argument(
        "--error-len",
        type=positive_int,
        default=512,
        help="sequence length of the random inputs of the error study (default 512)",
    )
    parser.add_argument(
        "--error-batch",
        type=positive_int,
        default=8,
        help="random input draws per kind in the error study (default 8)",
    )
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="RUN_DIR",
        help="also measure the error on a trained model's activations (a run or experiment "
        "directory of `transformer-theory train` or of the encoder-decoder experiment); repeat "
        "for several",
    )
    parser.add_argument(
        "--examples",
        type=positive_int,
        default=None,
        help=f"held-out inputs per trained model, at most the run's held-out set (default "
        f"{DEFAULT_EXAMPLES}); only with --run",
    )
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="PRNG seed (default 0)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")


def _lengths(min_len: int, max_len: int) -> list[int]:
    out, n = [], min_len
    while n < max_len:
        out.append(n)
        n *= 2
    return out + [max_len]


def _write_csv(path: str, rows: list[dict]) -> None:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def _trained_inputs(runs, examples: int):
    """``[(label, q, k, v)]``: every bidirectional head of every run, heads and layers stacked."""
    import numpy as np

    out = []
    for loaded in runs:
        qs, ks, vs = [], [], []
        for _attention, _layer, q, k, v in loaded.qkv(examples):
            qs.append(q.reshape((-1,) + q.shape[2:]))
            ks.append(k.reshape((-1,) + k.shape[2:]))
            vs.append(v.reshape((-1,) + v.shape[2:]))
        out.append((loaded.name, np.concatenate(qs), np.concatenate(ks), np.concatenate(vs)))
    return out


MIN_SLOPE_POINTS = 3  # a slope through two points has no check on the power law


def _cost_bytes(args, variants: list[str]) -> tuple[str, float]:
    """The variant of the cost study with the largest peak and its bytes at ``--max-len``."""
    from transformer_theory.papers.conti2024 import efficient

    cost = {v: efficient.estimate_bytes(v, args.max_len, args.dim) for v in variants}
    worst = max(cost, key=cost.get)
    return worst, cost[worst] + 12 * args.max_len * args.dim  # + the timed inputs


def _error_bytes(args, approx: list[str]) -> dict:
    from transformer_theory.papers.conti2024 import efficient

    return efficient.error_study_bytes(args.error_len, args.dim, args.error_batch, approx)


def _seconds(args, variants: list[str]) -> float:
    """A lower bound on the seconds of both studies on random inputs (trained inputs add more)."""
    from transformer_theory.papers.conti2024 import efficient

    lengths = _lengths(args.min_len, args.max_len)
    total = efficient.cost_study_seconds(lengths, variants, args.dim, args.repeats)
    approx = [v for v in variants if v in efficient.APPROXIMATIONS]
    if approx:  # two kinds of random inputs
        total += 2 * efficient.error_study_seconds(
            args.error_len, args.dim, args.error_batch, approx
        )
    return total


def _dest(option: str) -> str:
    return option[2:].replace("-", "_")


def _blame(args, options: list[str], fits) -> str:
    """The options among ``options`` (``--max-len``...) to name for a run over budget, ``/``-joined:
    those above their default (out of their ordinary range) whose default alone makes
    ``fits(settings)`` true; else all those above their default; else all of ``options`` (the
    defaults themselves do not fit)."""
    above = [o for o in options if getattr(args, _dest(o)) > DEFAULTS[_dest(o)]]
    alone = [
        o for o in above if fits(argparse.Namespace(**{**vars(args), _dest(o): DEFAULTS[_dest(o)]}))
    ]
    return "/".join(alone or above or options)


def _fits(check) -> bool:
    try:
        check()
    except budget.BudgetError:
        return False
    return True


def check_memory(args, variants: list[str], lengths: list[int]) -> dict:
    """Refuse (``BudgetError``, exit 2) before any work when either study would not fit in
    memory, naming the option out of its ordinary range (:func:`_blame`); returns the estimates
    (bytes) for the record."""
    from transformer_theory.papers.conti2024 import efficient

    cost = {v: efficient.estimate_bytes(v, lengths[-1], args.dim) for v in variants}
    worst, peak = _cost_bytes(args, variants)

    def cost_fits(a):
        return _fits(lambda: budget.check_memory(_cost_bytes(a, variants)[1], what="", option=""))

    if not cost_fits(args):
        budget.check_memory(
            peak,
            what=f"timing {worst} at n = {args.max_len}, width {args.dim}",
            option=_blame(args, ["--max-len", "--dim"], cost_fits),
        )
    approx = [v for v in variants if v in efficient.APPROXIMATIONS]
    errors = {}
    if approx:
        errors = _error_bytes(args, approx)

        def error_fits(a):
            return _fits(
                lambda: budget.check_memory(
                    max(_error_bytes(a, approx).values()), what="", option=""
                )
            )

        if not error_fits(args):
            worst_e = max(errors, key=errors.get)
            budget.check_memory(
                errors[worst_e],
                what=f"the error study ({worst_e} at its largest budget, n = {args.error_len}, "
                f"width {args.dim}, {args.error_batch} inputs at once)",
                option=_blame(args, ["--error-len", "--error-batch", "--dim"], error_fits),
            )
    return dict(cost=cost, errors=errors)


def check_seconds(args, variants: list[str]) -> float:
    """Refuse (``BudgetError``, exit 2) before any work when both studies would take longer
    than the time budget by a lower-bound estimate; returns the estimate (seconds)."""
    seconds = _seconds(args, variants)

    def time_fits(a):
        return _fits(lambda: budget.check_seconds(_seconds(a, variants), what="", option=""))

    if not time_fits(args):
        budget.check_seconds(
            seconds,
            what=f"timing {len(variants)} variants at {len(_lengths(args.min_len, args.max_len))} "
            f"lengths, {args.repeats} calls each, and the error study (at least)",
            option=_blame(
                args, ["--repeats", "--max-len", "--dim", "--error-len", "--error-batch"], time_fits
            ),
        )
    return seconds


def _slope(slopes: dict, variant: str, key: str) -> str:
    value = slopes.get(variant, {}).get(key)
    return "n/a" if value is None else f"{value:.2f}"


def run(args) -> int:
    from tqdm.auto import tqdm

    from transformer_theory.papers.conti2024 import plots
    from transformer_theory.papers.conti2024 import efficient

    variants = name_list(args.variants, efficient.VARIANTS, "--variants")
    if args.max_len < args.min_len:
        raise UsageError(
            f"--max-len: must be at least --min-len = {args.min_len}, got {args.max_len}"
        )
    if args.dim % 2:
        raise UsageError(
            f"--dim: the 'local' inputs use a sinusoidal code; expected even, got {args.dim}"
        )
    if args.examples is not None and not args.run:
        raise UsageError(
            "--examples: applies to trained models given with --run only, and no --run was "
            "given (it would be ignored)"
        )
    examples = DEFAULT_EXAMPLES if args.examples is None else args.examples
    lengths = _lengths(args.min_len, args.max_len)
    estimates = check_memory(args, variants, lengths)
    seconds = check_seconds(args, variants)
    runs = []
    if args.run:
        from transformer_theory.cli.heads import load_trained

        for path in args.run:
            if not os.path.isdir(path):
                raise UsageError(f"--run: {path} is not a directory")
            runs += load_trained(path, "--run")
    out = prepare_out_dir(args.out)

    import jax

    key = jax.random.key(args.seed)
    show = not args.no_progress and sys.stderr.isatty()
    approx = [v for v in variants if v in efficient.APPROXIMATIONS]
    errors = []
    sources = []
    for kind in ("iid", "local") if approx else ():
        q, k, v = efficient.random_inputs(
            jax.random.fold_in(key, len(sources)), args.error_batch, args.error_len, args.dim, kind
        )
        sources.append((f"random {kind}, n={args.error_len}", q, k, v))
    if approx:
        sources += [
            (f"trained {name}, n={q.shape[1]}", q, k, v)
            for name, q, k, v in _trained_inputs(runs, examples)
        ]
    for label, q, _, _ in sources[2:]:  # trained inputs: known only now, before any error work
        est = efficient.error_study_bytes(q.shape[1], q.shape[2], q.shape[0], approx)
        budget.check_memory(
            max(est.values()), what=f"the error study on {label}", option="--examples"
        )
    for label, q, k, v in tqdm(sources, desc="errors", disable=not show):
        errors += efficient.error_vs_budget(q, k, v, variants=approx, seed=args.seed, label=label)
    bar = tqdm(total=len(lengths) * len(variants), desc="cost", disable=not show)

    def tick(rec):
        bar.update(1)
        bar.set_postfix(variant=rec["variant"], n=rec["n"])

    cost = efficient.cost_vs_length(
        lengths, variants=variants, dim=args.dim, repeats=args.repeats, on_record=tick
    )
    bar.close()
    slopes = efficient.fit_slopes(
        cost, min_n=min(1024, lengths[-1] // 2 or 1), min_points=MIN_SLOPE_POINTS
    )
    machine = dict(
        backend=jax.default_backend(),
        devices=[str(d) for d in jax.devices()],
        cpu_count=os.cpu_count(),
        platform=platform.platform(),
    )
    memory = (
        "XLA compiled memory_analysis(): argument + output + temporary bytes - aliased bytes "
        "(the buffers XLA plans for one call; not a process RSS reading)"
    )
    record = dict(
        machine=machine,
        memory=memory,
        memory_estimates=estimates,
        seconds_lower_bound=seconds,
        slopes=slopes,
        slopes_note=f"fitted over n >= min(1024, max_len / 2), only through >= "
        f"{MIN_SLOPE_POINTS} lengths; variants without enough lengths are left out",
        records=cost,
    )
    files = [jsonio.write_json(os.path.join(out, "cost.json"), record)]
    _write_csv(os.path.join(out, "cost.csv"), cost)
    figures = [plots.cost_vs_length(cost, slopes, os.path.join(out, "cost.png"))]
    if approx:
        files.append(jsonio.write_json(os.path.join(out, "errors.json"), errors))
        _write_csv(os.path.join(out, "errors.csv"), errors)
        figures.append(plots.error_vs_budget(errors, os.path.join(out, "errors.png")))
    else:
        print("errors: --variants names no approximation; the error study is skipped")
    top = [r for r in cost if r["n"] == lengths[-1]]
    print(f"n = {lengths[-1]} ({machine['backend']}):")
    for r in top:
        name = r["variant"]
        print(
            f"  {name:<18} {r['seconds'] * 1e3:10.2f} ms  "
            f"{r.get('xla_bytes', 0) / 2**20:10.1f} MiB  slopes time "
            f"{_slope(slopes, name, 'seconds')} memory {_slope(slopes, name, 'xla_bytes')}"
        )
    if not slopes:
        print(f"  (slopes n/a: fewer than {MIN_SLOPE_POINTS} lengths from --min-len to --max-len)")
    for path in files + figures:
        print(path)
    return 0
