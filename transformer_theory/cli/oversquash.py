"""Over-squashing (Barbero et al. 2024, §5): ``transformer-theory oversquash``.

For every model of the grid (``--depth`` x ``--heads`` x ``--positional`` x ``--seeds``, random
causal Pre-LN transformers, float64) and one input of ``--length`` tokens (``--pattern``),
computes the exact sensitivities ``||d v^(l)_n / d v_i||`` (every layer count ``l``) and
``||d y_n / d v_i||`` through ``jax.jacrev``, the attention-path weights
``(Lambda^(l) ... Lambda^(1))_{n,i}``, the
all-causal path counts and the product-of-attention bound; writes ``oversquash.json``
and ``oversquash.png`` (one panel per model). Exit 1 if a measured sensitivity exceeds its bound
(the bound is a theorem: that would be a bug).

Peak memory is estimated from XLA's compiled programs before any work and a run that would not
fit is refused (exit 2). ``oversquash.json`` is rewritten after each model (valid JSON at every
moment); Ctrl-C stops after the current model (exit 130) with the finished ones saved, and the
same command resumes from them; an ``oversquash.json`` of other settings is refused (exit 2,
naming the option that differs) unless ``--fresh``. Prints a line per finished model and a table
of them at the end.

The study is :func:`transformer_theory.papers.barbero2024.study.run_oversquash`; this command
parses, checks and prints.
"""

from __future__ import annotations

import argparse
import os
import sys

from transformer_theory.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    comma_list,
    format_table,
    name_list,
    positive_int,
    prepare_out_dir,
)
from transformer_theory.cli.collapse import check_resumable, grid_of, held_sigint, settings_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", type=comma_list(int, minimum=1), default="1,2,4", help="layers")
    parser.add_argument(
        "--heads", type=comma_list(int, minimum=1), default="1", help="heads per layer"
    )
    parser.add_argument(
        "--positional",
        default="rope",
        help="positional codes, comma list of none, sinusoidal, rope, alibi, or 'all'",
    )
    parser.add_argument("--length", type=positive_int, default=48, help="input length n")
    parser.add_argument(
        "--pattern",
        default="random",
        help="the input: random (bits), ones_zero, zeros_one, alternating",
    )
    parser.add_argument("--width", type=positive_int, default=24, help="model width d'")
    parser.add_argument("--seeds", type=comma_list(int, minimum=0), default="0", help="model seeds")
    parser.add_argument("--no-bound", action="store_true", help="skip the certified bound")
    parser.add_argument("--out", default="results/oversquash", help="output directory")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="start over: measure every model, replacing an oversquash.json in --out (without "
        "it, one with the same settings is resumed and one with other settings is refused)",
    )


def run(args: argparse.Namespace) -> int:
    import jax

    from transformer_theory.papers.barbero2024 import study
    from transformer_theory.papers.barbero2024.models import POSITIONAL

    positionals = name_list(args.positional, POSITIONAL, "--positional")
    settings = settings_of(
        study.OversquashSettings,
        depths=args.depth,
        heads=args.heads,
        positionals=positionals,
        seeds=args.seeds,
        length=args.length,
        pattern=args.pattern,
        width=args.width,
        bound=not args.no_bound,
    )
    grid = grid_of(settings)
    out = prepare_out_dir(args.out)
    path = os.path.join(out, "oversquash.json")
    jax.config.update("jax_enable_x64", True)
    # first the memory: the settings' record holds the input's tokens (--length of them)
    study.check_oversquash_memory(settings, grid)
    if not args.fresh:
        check_resumable(path, settings.record())
    done = {} if args.fresh else study.finished_models(path, settings.record(), "oversquash")
    if done:
        print(f"resuming: {len(done)} finished model(s) read from {path}", flush=True)
    try:
        result = study.run_oversquash(
            settings,
            out,
            grid=grid,
            guard=held_sigint,
            on_model=lambda m: print(line(m), flush=True),
            fresh=args.fresh,
        )
    except study.Interrupted as stop:
        print(
            f"transformer-theory oversquash: interrupted; {stop.finished} of {stop.total} "
            f"model(s) finished and saved in {stop.path}; run the same command to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    models = result.record["models"]
    print(format_table(study.oversquash_summary(m) for m in models))
    print(result.json_path)
    print(result.figure_path)
    failed = [m["name"] for m in models if not m.get("bound_holds", True)]
    if failed:
        print(f"the certified bound FAILED for {', '.join(failed)}")
        return EXIT_FAILED
    return 0


def line(model: dict) -> str:
    """One line per finished model: the first/last-quarter ratios and whether the bound holds."""
    text = (
        f"{model['name']}: first/last quarter of ||dy_n/dv_i||: {model['early_late_ratio']:.3g}, "
        f"of the path weights {model['path_early_late_ratio']:.3g} (with the residual "
        f"{model['residual_path_early_late_ratio']:.3g})"
    )
    if "bound_holds" in model:
        text += f"; bound holds: {model['bound_holds']} (max ratio {model['bound_ratio_max']:.3g})"
    return text
