"""Over-squashing (Barbero et al. 2024, §5): ``transformer-theory oversquash``.

For every model of the grid (``--depth`` x ``--heads`` x ``--positional`` x ``--seeds``, random
causal Pre-LN transformers, float64) and one input of ``--length`` tokens (``--pattern``),
computes the exact sensitivities ``||d v^(l)_n / d v_i||`` (every layer count ``l``) and
``||d y_n / d v_i||`` through ``jax.jacrev``, the attention-path weights
``(Lambda^(l) ... Lambda^(1))_{n,i}``, the
all-causal path counts and the certified product-of-attention bound; writes ``oversquash.json``
and ``oversquash.png`` (one panel per model). Exit 1 if a measured sensitivity exceeds its bound
(the bound is a theorem: that would be a bug).

Peak memory is estimated from XLA's compiled programs before any work and a run that would not
fit is refused (exit 2). ``oversquash.json`` is rewritten after each model (valid JSON at every
moment); Ctrl-C stops after the current model (exit 130) with the finished ones saved.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from transformer_theory.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    UsageError,
    name_list,
    positive_int,
    prepare_out_dir,
)
from transformer_theory.cli.collapse import held_sigint, model_grid


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", default="1,2,4", help="layers, comma list (default 1,2,4)")
    parser.add_argument("--heads", default="1", help="heads per layer, comma list (default 1)")
    parser.add_argument(
        "--positional",
        default="rope",
        help="positional codes, comma list of none, sinusoidal, rope, alibi, or 'all'",
    )
    parser.add_argument("--length", type=positive_int, default=48, help="input length n (48)")
    parser.add_argument(
        "--pattern", default="random", help="the input: random bits (default), ones_zero, ..."
    )
    parser.add_argument("--width", type=positive_int, default=24, help="model width d' (24)")
    parser.add_argument("--seeds", default="0", help="model seeds, comma list (default 0)")
    parser.add_argument("--no-bound", action="store_true", help="skip the certified bound")
    parser.add_argument("--out", default="results/oversquash", help="output directory")


def run(args) -> int:
    import jax

    from transformer_theory.papers.barbero2024 import collapse, oversquash
    from transformer_theory.papers.barbero2024.plots import plot_oversquash

    positionals = name_list(args.positional, collapse.POSITIONAL, "--positional")
    if args.pattern not in collapse.PATTERNS:
        raise UsageError(
            f"--pattern: unknown {args.pattern!r}; choose from {', '.join(collapse.PATTERNS)}"
        )
    if args.length < 5:
        raise UsageError(f"--length: expected at least 5 tokens (quarters), got {args.length}")
    grid = model_grid(args, positionals)
    from transformer_theory import budget, jsonio

    out = prepare_out_dir(args.out)
    jax.config.update("jax_enable_x64", True)
    biggest = {}
    for _, labels, cfg in grid:  # one compile per positional code, at the largest depth and heads
        key = labels["positional"]
        if key not in biggest or (cfg.depth, max(cfg.heads)) > (
            biggest[key].depth,
            max(biggest[key].heads),
        ):
            biggest[key] = cfg
    # the floor is sum(heads) n^2 (and max(heads) n^2 D^2 for the bound): every size option counts
    option = "--length/--width/--depth/--heads" + ("" if args.no_bound else " (or --no-bound)")
    # a floor first (no compile): refuses the hopeless at once; then XLA's account
    for compiled in (False, True):
        estimate = max(
            oversquash.record_bytes(c, args.length, bound=not args.no_bound, compiled=compiled)
            for c in biggest.values()
        )
        budget.check_memory(
            estimate,
            what=f"the largest program (Jacobians, path products) at n = {args.length}",
            option=option,
        )

    tokens = collapse.pattern_tokens(args.pattern, args.length)
    t0 = time.perf_counter()
    models, failed = [], []
    path = os.path.join(out, "oversquash.json")
    settings = dict(
        depth=args.depth,
        heads=args.heads,
        positional=positionals,
        seeds=args.seeds,
        length=args.length,
        pattern=args.pattern,
        width=args.width,
        bound=not args.no_bound,
        tokens=tokens.tolist(),
    )

    def save(complete: bool) -> dict:
        record = dict(
            settings=settings,
            complete=complete,
            seconds=round(time.perf_counter() - t0, 1),
            models=models,
        )
        jsonio.write_json(path, record)
        return record

    try:
        for name, labels, cfg in grid:
            with held_sigint():
                params = collapse.random_model(cfg, labels["seed"])
                emb = collapse.embed_long(cfg, tokens, dtype=params.w_o.dtype)
                rec = oversquash.oversquash_record(params, emb, bound=not args.no_bound)
            models.append(dict(labels, name=name, **rec))
            save(complete=False)
            line = (
                f"{name}: first/last quarter of ||dy_n/dv_i||: {rec['early_late_ratio']:.3g}, of "
                f"the path weights {rec['path_early_late_ratio']:.3g} (with the residual "
                f"{rec['residual_path_early_late_ratio']:.3g})"
            )
            if not args.no_bound:
                line += (
                    f"; bound holds: {rec['bound_holds']} (max ratio {rec['bound_ratio_max']:.3g})"
                )
                if not rec["bound_holds"]:
                    failed.append(name)
            print(line, flush=True)
        record = save(complete=True)
    except KeyboardInterrupt:
        print(
            f"transformer-theory oversquash: interrupted; {len(models)} of {len(grid)} model(s) "
            f"finished and saved in {path}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    print(path)
    print(plot_oversquash(record, os.path.join(out, "oversquash.png")))
    if failed:
        print(f"the certified bound FAILED for {', '.join(failed)}")
        return EXIT_FAILED
    return 0
