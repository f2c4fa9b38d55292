"""Representational collapse (Barbero et al. 2024, §4): ``transformer-theory collapse``.

For every model of the grid (``--depth`` x ``--heads`` x ``--positional`` x ``--seeds``, random
causal Pre-LN transformers) and every precision, measures ``||y_n - y'_{n+1}||`` between the final
last-token representations of ``v`` (``--pattern``, e.g. ``1 ... 1 0``) and ``v`` with its last
token repeated, at lengths up to ``--max-len``; writes ``collapse.json`` (per model and precision:
the distances by length, the first bit-identical length, the fitted rate, the derived ``1/n``
limit for one-layer models) and ``collapse.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from transformer_theory.cli._common import UsageError, name_list, positive_int, prepare_out_dir

# The largest length a run may ask for: one float64 attention map of 16384^2 entries is 2 GiB.
MAX_LEN = 16384


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", default="1,2", help="layers, comma list (default 1,2)")
    parser.add_argument("--heads", default="1", help="heads per layer, comma list (default 1)")
    parser.add_argument(
        "--positional",
        default="none,sinusoidal,rope,alibi",
        help="positional codes, comma list of none, sinusoidal, rope, alibi, or 'all'",
    )
    parser.add_argument("--max-len", type=positive_int, default=4096, help="longest n (4096)")
    parser.add_argument("--points", type=positive_int, default=16, help="lengths measured (16)")
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
    """A non-empty comma list of integers ``>= minimum`` (UsageError naming ``option``)."""
    try:
        values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise UsageError(f"{option}: expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < minimum:
        raise UsageError(f"{option}: expected integers >= {minimum}, got {text!r}")
    return values


def model_grid(args, positionals) -> list[tuple[str, dict, object]]:
    """``(name, labels, config)`` of every model of the grid, validated before any work."""
    from transformer_theory.analysis import collapse

    grid = []
    for depth in int_values(args.depth, "--depth"):
        for heads in int_values(args.heads, "--heads"):
            for pos in positionals:
                try:
                    cfg = collapse.causal_pre_ln_config(depth, heads, pos, width=args.width)
                except ValueError as err:
                    raise UsageError(f"--width: {err}") from None
                for seed in int_values(args.seeds, "--seeds", minimum=0):
                    labels = dict(depth=depth, heads=heads, positional=pos, seed=seed)
                    grid.append((f"L{depth}_H{heads}_{pos}_seed{seed}", labels, cfg))
    return grid


def run(args) -> int:
    import jax

    from transformer_theory.analysis import collapse

    positionals = name_list(args.positional, collapse.POSITIONAL, "--positional")
    precisions = name_list(args.precision, collapse.PRECISIONS, "--precision")
    if args.pattern not in collapse.PATTERNS:
        raise UsageError(
            f"--pattern: unknown {args.pattern!r}; choose from {', '.join(collapse.PATTERNS)}"
        )
    if not 2 <= args.max_len <= MAX_LEN:
        raise UsageError(f"--max-len: expected 2..{MAX_LEN} (memory), got {args.max_len}")
    grid = model_grid(args, positionals)
    out = prepare_out_dir(args.out)
    jax.config.update("jax_enable_x64", True)

    lengths = collapse.length_grid(args.max_len, args.points)
    t0 = time.perf_counter()
    models = []
    for name, labels, cfg in grid:
        params = collapse.random_model(cfg, labels["seed"])
        rec = collapse.model_record(
            params,
            name,
            lengths,
            precisions,
            pattern=args.pattern,
            separator_every=args.separator_every,
            progress=not args.no_progress,
        )
        models.append(dict(labels, **rec))
        print(summary_line(models[-1], precisions), flush=True)
    record = dict(
        settings=dict(
            depth=args.depth,
            heads=args.heads,
            positional=positionals,
            seeds=args.seeds,
            max_len=args.max_len,
            points=args.points,
            precisions=precisions,
            pattern=args.pattern,
            separator_every=args.separator_every,
            width=args.width,
        ),
        seconds=round(time.perf_counter() - t0, 1),
        models=models,
    )
    path = os.path.join(out, "collapse.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
    from transformer_theory.analysis.plots import plot_collapse

    print(path)
    print(plot_collapse(record, os.path.join(out, "collapse.png")))
    return 0


def summary_line(model: dict, precisions) -> str:
    """One line per model: the rate and, per precision, the first identical length."""
    rate = model["rate"]
    slope = "n/a" if rate["slope"] is None else f"{rate['slope']:.2f}"
    parts = [f"{model['name']}: slope {slope}"]
    if model["predicted_limit"] is not None:
        fitted = "n/a" if rate["constant"] is None else f"{rate['constant']:.3g}"
        parts.append(f"n*distance -> K derived {model['predicted_limit']:.3g}, measured {fitted}")
    for prec in precisions:
        first = model["precisions"][prec]["first_identical"]
        parts.append(f"{prec} first identical at n={first}" if first else f"{prec} never identical")
    return "; ".join(parts)
