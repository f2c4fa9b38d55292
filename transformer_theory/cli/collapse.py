"""Representational collapse (Barbero et al. 2024, §4): ``transformer-theory collapse``.

For every model of the grid (``--depth`` x ``--heads`` x ``--positional`` x ``--seeds``, random
causal Pre-LN transformers) and every precision, measures ``||y_n - y'_{n+1}||`` between the final
last-token representations of ``v`` (``--pattern``, e.g. ``1 ... 1 0``) and ``v`` with its last
token repeated, at lengths up to ``--max-len``; writes ``collapse.json`` (per model and precision:
the distances by length, the first bit-identical length, the fitted rate, the derived ``1/n``
limit for one-layer models, and the verdict read from the curve's tail: ``collapses ~ n^S`` or
``plateau at X: no collapse``) and ``collapse.png``.

The peak memory of the longest measurement is estimated from XLA's compiled program before any
work; a run that would not fit is refused (exit 2, naming the option to lower). Each finished
model is written to ``collapse.json`` at once (valid JSON at every moment); Ctrl-C stops after
the current measurement (exit 130), and the same command resumes from the finished models.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from transformer_theory.cli._common import (
    EXIT_INTERRUPTED,
    UsageError,
    name_list,
    positive_int,
    prepare_out_dir,
)

# The largest length a run may ask for (memory is checked against this machine besides).
MAX_LEN = 16384
# Lengths measured when --points is not given (fewer when --max-len has fewer lengths).
DEFAULT_POINTS = 16
# The option a model too large to hold is refused under: its size is depth x heads x width^2.
MODEL_OPTIONS = "--depth/--heads/--width"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", default="1,2", help="layers, comma list (default 1,2)")
    parser.add_argument("--heads", default="1", help="heads per layer, comma list (default 1)")
    parser.add_argument(
        "--positional",
        default="none,sinusoidal,rope,alibi",
        help="positional codes, comma list of none, sinusoidal, rope, alibi, or 'all'",
    )
    parser.add_argument("--max-len", type=positive_int, default=4096, help="longest n (4096)")
    parser.add_argument(
        "--points",
        type=positive_int,
        default=None,
        help=f"lengths measured, ending at --max-len ({DEFAULT_POINTS}, or every length when "
        "--max-len has fewer; at most --max-len - 1: the lengths are distinct integers from 2)",
    )
    parser.add_argument(
        "--precision",
        default="float64,float32,bfloat16",
        help="comma list of float64, float32, bfloat16 (the model runs entirely in each)",
    )
    parser.add_argument(
        "--pattern", default="ones_zero", help="ones_zero (1...10), zeros_one, alternating, random"
    )
    parser.add_argument(
        "--separator-every",
        type=positive_int,
        default=None,
        help="interleave a separator token after every K tokens (Barbero et al.'s remedy)",
    )
    parser.add_argument("--width", type=positive_int, default=32, help="model width d' (32)")
    parser.add_argument("--seeds", default="0", help="model seeds, comma list (default 0)")
    parser.add_argument("--out", default="results/collapse", help="output directory")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def int_values(text: str, option: str, minimum: int = 1) -> list[int]:
    """A non-empty comma list of distinct integers ``>= minimum`` (UsageError naming ``option``:
    a repeated value would measure the same model twice under one name)."""
    try:
        values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise UsageError(f"{option}: expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < minimum:
        raise UsageError(f"{option}: expected integers >= {minimum}, got {text!r}")
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise UsageError(f"{option}: {', '.join(map(str, repeated))} given more than once")
    return values


def model_grid(args, positionals) -> list[tuple[str, dict, object]]:
    """``(name, labels, config)`` of every model of the grid, validated before any work."""
    from transformer_theory.papers.barbero2024 import collapse

    depths = int_values(args.depth, "--depth")
    head_counts = int_values(args.heads, "--heads")
    check_model_size(max(depths), max(head_counts), args.width)
    grid = []
    for depth in depths:
        for heads in head_counts:
            for pos in positionals:
                try:
                    cfg = collapse.causal_pre_ln_config(depth, heads, pos, width=args.width)
                except ValueError as err:
                    raise UsageError(f"--width: {err}") from None
                for seed in int_values(args.seeds, "--seeds", minimum=0):
                    labels = dict(depth=depth, heads=heads, positional=pos, seed=seed)
                    grid.append((f"L{depth}_H{heads}_{pos}_seed{seed}", labels, cfg))
    return grid


def check_model_size(depth: int, heads: int, width: int) -> float:
    """Refuse (BudgetError, exit 2) a grid whose largest model cannot be held, from its sizes alone
    (:func:`~transformer_theory.papers.barbero2024.collapse.model_bytes`): BEFORE any config is built, since
    the config of ``--depth 10^12`` is itself a tuple of 10^12 head counts."""
    from transformer_theory import budget
    from transformer_theory.papers.barbero2024 import collapse

    estimate = collapse.model_bytes(depth, heads, width=width)
    return budget.check_memory(
        float(estimate) if estimate < 2**1000 else float("inf"),  # float(10^400) overflows
        what=f"the float64 model of {depth} layer(s) x {heads} head(s) at width {width}",
        option=MODEL_OPTIONS,
    )


def measured_points(points: int | None, max_len: int) -> int:
    """``--points`` checked against ``--max-len``: the grid's lengths are distinct integers from 2
    to ``max_len``, so no more than ``max_len - 1`` can be measured (UsageError naming
    ``--points``); not given, :data:`DEFAULT_POINTS` or every length if there are fewer."""
    lengths = max_len - 1
    if points is None:
        return min(DEFAULT_POINTS, lengths)
    if points > lengths:
        raise UsageError(
            f"--points: {points} lengths asked for, but only {lengths} distinct lengths lie in "
            f"2..{max_len} (--max-len); ask for at most {lengths}"
        )
    return points


def held_sigint():
    """Ctrl-C held until the current JAX call returns, then raised: interrupting XLA inside a
    call left the interpreter to crash at exit (exit 139 after "interrupted")."""
    from transformer_theory.train.checkpoint import deferred_sigint

    return deferred_sigint()


def check_memory(grid, tokens: int, precisions) -> float:
    """Refuse (BudgetError, exit 2) a run whose longest measurement would not fit in memory.

    A floor without compiling first, then one compile per positional code of the grid, at the
    grid's largest depth and heads, the longest input and the widest precision requested."""
    from transformer_theory import budget
    from transformer_theory.papers.barbero2024 import collapse

    widest = max(precisions, key=lambda p: collapse.dtype_of(p).itemsize)
    biggest = {}
    for _, labels, cfg in grid:
        key = labels["positional"]
        size = (cfg.depth, max(cfg.heads))
        if key not in biggest or size > (biggest[key].depth, max(biggest[key].heads)):
            biggest[key] = cfg
    what = f"the longest measurement ({tokens} tokens, {widest})"
    option = "--max-len/--heads/--width"
    # a floor first (no compile): refuses the hopeless at once; then XLA's account
    for compiled in (False, True):
        estimate = max(
            collapse.measurement_bytes(c, tokens, widest, compiled=compiled)
            for c in biggest.values()
        )
        budget.check_memory(estimate, what=what, option=option)
    return estimate


def run(args) -> int:
    import jax

    from transformer_theory import jsonio
    from transformer_theory.papers.barbero2024 import collapse

    positionals = name_list(args.positional, collapse.POSITIONAL, "--positional")
    precisions = name_list(args.precision, collapse.PRECISIONS, "--precision")
    if len(set(precisions)) != len(precisions):
        raise UsageError(f"--precision: a precision given more than once in {args.precision!r}")
    if len(set(positionals)) != len(positionals):
        raise UsageError(f"--positional: a code given more than once in {args.positional!r}")
    if args.pattern not in collapse.PATTERNS:
        raise UsageError(
            f"--pattern: unknown {args.pattern!r}; choose from {', '.join(collapse.PATTERNS)}"
        )
    if not 2 <= args.max_len <= MAX_LEN:
        raise UsageError(f"--max-len: expected 2..{MAX_LEN}, got {args.max_len}")
    points = measured_points(args.points, args.max_len)
    grid = model_grid(args, positionals)
    out = prepare_out_dir(args.out)
    jax.config.update("jax_enable_x64", True)
    lengths = collapse.length_grid(args.max_len, points)
    tokens = len(
        collapse.pattern_tokens(args.pattern, lengths[-1], separator_every=args.separator_every)
    )
    check_memory(grid, tokens, precisions)

    settings = dict(
        depth=args.depth,
        heads=args.heads,
        positional=positionals,
        seeds=args.seeds,
        max_len=args.max_len,
        points=points,
        lengths=lengths,
        precisions=precisions,
        pattern=args.pattern,
        separator_every=args.separator_every,
        width=args.width,
    )
    path = os.path.join(out, "collapse.json")
    done = finished_models(path, settings)
    if done:
        print(f"resuming: {len(done)} finished model(s) read from {path}", flush=True)
    t0 = time.perf_counter()
    seconds = sum(m.get("seconds", 0.0) for m in done.values())
    models = []

    def save(complete: bool):
        record = dict(
            settings=settings,
            complete=complete,
            seconds=round(seconds + time.perf_counter() - t0, 1),
            models=models,
        )
        jsonio.write_json(path, record)
        return record

    try:
        for name, labels, cfg in grid:
            if name in done:
                models.append(done[name])
                continue
            t1 = time.perf_counter()
            with held_sigint():
                params = collapse.random_model(cfg, labels["seed"])
            rec = collapse.model_record(
                params,
                name,
                lengths,
                precisions,
                pattern=args.pattern,
                separator_every=args.separator_every,
                progress=not args.no_progress,
                guard=held_sigint,
            )
            models.append(dict(labels, **rec, seconds=round(time.perf_counter() - t1, 1)))
            save(complete=False)
            print(summary_line(models[-1], precisions), flush=True)
        record = save(complete=True)
    except KeyboardInterrupt:
        print(
            f"transformer-theory collapse: interrupted; {len(models)} of {len(grid)} model(s) "
            f"finished and saved in {path}; run the same command to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    from transformer_theory.papers.barbero2024.plots import plot_collapse

    print(path)
    print(plot_collapse(record, os.path.join(out, "collapse.png")))
    return 0


def finished_models(path: str, settings: dict) -> dict[str, dict]:
    """The models an earlier run with the same ``settings`` finished (by name); none when there
    is no such file, it cannot be read, or its settings differ."""
    from transformer_theory import jsonio

    if not os.path.exists(path):
        return {}
    try:
        record = jsonio.read_json(path)
    except (OSError, ValueError):
        return {}
    if record.get("settings") != settings:
        return {}
    return {m["name"]: m for m in record.get("models", [])}


def summary_line(model: dict, precisions) -> str:
    """One line per model: the verdict read from the tail, the derived limit where there is one,
    and per precision the first identical length."""
    asym = model["asymptotic"]
    parts = [f"{model['name']}: {model['verdict']}"]
    if asym["slope"] is not None:
        parts[0] += f" (tail {asym['tail_from']}..{asym['tail_to']})"
    if model["predicted_limit"] is not None:
        rate = model["rate"]
        fitted = "n/a" if rate["constant"] is None else f"{rate['constant']:.3g}"
        parts.append(f"n*distance -> K derived {model['predicted_limit']:.3g}, measured {fitted}")
    for prec in precisions:
        first = model["precisions"][prec]["first_identical"]
        parts.append(f"{prec} first identical at n={first}" if first else f"{prec} never identical")
    return "; ".join(parts)
