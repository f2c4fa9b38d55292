"""Train an experiment: ``transformer-theory train (--experiment NAME | --config FILE) [--size
SIZE] [--seeds 0 1 2] [--tasks ...] [--depths ...] [--steps N] [--optimizer sgd|adam] [--lr LR]
[--out DIR]``.

Thin by design: resolves the config (a shipped experiment, :mod:`transformer_theory.harness`,
or a user's file with ``get_config()``), applies the flags, checks the output directory and calls
:func:`transformer_theory.harness.run_experiment`. Re-running the same command resumes killed
runs from their last checkpoint; ``--steps N`` continues finished runs to N steps. A run directory
with other settings, or an output directory recording another experiment or other overrides (say
``--lr 0.1`` there, ``--lr 0.5`` asked), is refused (exit 2) naming the setting that differs;
Ctrl-C checkpoints the current run and exits 130. A run whose loss or parameters stop being
finite stops there and is reported as diverged (no accuracy); the command then exits 1.
"""

from __future__ import annotations

import argparse
import os
import sys

from transformer_theory.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    UsageError,
    comma_list,
    name_list,
    positive_float,
    positive_int,
    prepare_out_dir,
)
from transformer_theory.harness import (
    NAMED,
    ExperimentConfig,
    ExperimentError,
    check_out_dir,
    config_from_file,
    named_config,
    run_experiment,
)
from transformer_theory.harness.cost import check_seconds, shipped_defaults
from transformer_theory.train import RunDirectoryError, TrainingInterrupted

# One integer or a comma list (``--seeds 0 1 2`` and ``--seeds 0,1,2`` agree).
_int_list = comma_list(int, minimum=0)

# The setting a refused output directory names, and the flag that sets it (else --out).
_FLAGS = {
    "steps": "--steps",
    "experiment": "--experiment/--config",
    "source": "--experiment/--config",
    "overrides.size": "--size",
    "overrides.seeds": "--seeds",
    "overrides.tasks": "--tasks",
    "overrides.depths": "--depths",
    "overrides.optimizer": "--optimizer",
    "overrides.learning_rate": "--lr",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sizes, optimizers = shipped_defaults()
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--experiment", metavar="NAME", help=f"a shipped experiment: {', '.join(NAMED)}"
    )
    which.add_argument(
        "--config",
        metavar="FILE",
        help="a Python file whose get_config() returns an ExperimentConfig",
    )
    parser.add_argument(
        "--size",
        default=None,
        help=f"the setup table (default: the config's, marked here: {sizes}; a --config file: "
        "its own)",
    )
    parser.add_argument(
        "--seeds", type=_int_list, nargs="+", default=None, help="seeds (default: the config's)"
    )
    parser.add_argument(
        "--tasks",
        nargs="+",
        default=None,
        help="subset of the config's tasks (memorization reasoning generalization contextual)",
    )
    parser.add_argument(
        "--depths",
        type=_int_list,
        nargs="+",
        default=None,
        help="only the heads configurations with these layer counts (default: all)",
    )
    parser.add_argument(
        "--steps",
        type=positive_int,
        default=None,
        help="train every run to N steps (a finished shorter run continues to N)",
    )
    parser.add_argument(
        "--optimizer",
        default=None,
        choices=("sgd", "adam"),
        help="override every run's optimizer (default: each setup's, at the default size: "
        f"{optimizers}; a --config file: its own)",
    )
    parser.add_argument(
        "--lr",
        type=positive_float,
        default=None,
        help="override every run's learning rate (default: each setup's, as for --optimizer)",
    )
    parser.add_argument(
        "--out", default=None, help="output directory (default results/<experiment>_<size>)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")


def resolve_config(args: argparse.Namespace) -> tuple[ExperimentConfig, str]:
    """``(config, source)``: the config named by ``--experiment``/``--config`` with the flags
    applied, and how ``plot`` finds it again. Raises :class:`UsageError` naming the flag."""
    if args.experiment is not None:
        option, source = "--experiment", args.experiment
        load = named_config
    else:
        option, source = "--config", os.path.abspath(args.config)
        load = config_from_file
    try:
        config = load(source)
    except ExperimentError as err:
        raise UsageError(f"{option}: {err}") from None
    changes = {}
    if args.size is not None:
        if args.size not in config.sizes:
            raise UsageError(
                f"--size: expected one of {', '.join(config.sizes)}, got {args.size!r}"
            )
        changes["size"] = args.size
    if args.seeds is not None:
        seeds = [s for group in args.seeds for s in group]
        if len(set(seeds)) != len(seeds):
            raise UsageError(f"--seeds: each seed once, got {seeds}")
        changes["seeds"] = tuple(seeds)
    if args.tasks is not None:
        changes["tasks"] = tuple(name_list(",".join(args.tasks), config.heads, "--tasks"))
    if args.depths is not None:
        changes["depths"] = tuple(d for group in args.depths for d in group)
    for field, value in (
        ("steps", args.steps),
        ("optimizer", args.optimizer),
        ("learning_rate", args.lr),
    ):
        if value is not None:
            changes[field] = value
    try:
        config = config.replace(**changes)
    except ValueError as err:
        if str(err).startswith("depths:"):  # the config checks it; the message names the flag
            raise UsageError(f"--{err}") from None
        raise UsageError(f"{option} {source}: {err}") from None
    return config, source


# An initial held-out loss this many times chance level's (ln(1/chance)) gets an explanation.
_LARGE_INITIAL_LOSS = 100.0


def _explain_large_initial_losses(rows) -> None:
    """Say why deep ReLU-attention runs start at losses like 1e+11 (it is the initialization)."""
    import math

    large = [
        r
        for r in rows
        if r.get("initial_eval_loss") is not None
        and 0 < r.get("chance", 0) < 1
        and r["initial_eval_loss"] > _LARGE_INITIAL_LOSS * math.log(1 / r["chance"])
    ]
    if large:
        worst = max(r["initial_eval_loss"] for r in large)
        print(
            f"note: {len(large)} run(s) start at held-out losses up to {worst:.3g} (chance level "
            "is ln(1/chance)): Chen & Zou's §9.1 initialization (W_QK ~ U[0, 1), W_V = 1, "
            "W_C ~ U[0, 1)) with unnormalized ReLU attention, whose output is cubic in the "
            "stream's scale (scores h^T W_QK h times values W_V h, summed over the keys), so "
            "each layer raises the initial logits' scale to about the third power; training "
            "brings them down in the first steps (the final losses above)"
        )


def run(args: argparse.Namespace) -> int:
    config, source = resolve_config(args)
    out = prepare_out_dir(args.out or os.path.join("results", f"{config.name}_{config.size}"))
    try:
        check_out_dir(config, out, source)
    except RunDirectoryError as err:
        flag = _FLAGS.get(err.setting, "--out")
        raise UsageError(f"{flag}: {err}") from None

    runs = config.run_specs
    try:
        check_seconds(runs, out)
    except RunDirectoryError as err:
        raise UsageError(f"--out: {err}") from None

    def report(i, spec, row):
        if row["status"] == "diverged":
            print(
                f"[{i + 1}/{len(runs)}] {spec.name}: DIVERGED at step {row['diverged_step']} "
                f"(non-finite loss or parameters; training stopped there, no held-out result), "
                f"loss {row['initial_eval_loss']:.3g} at step 0, {row['seconds']} s",
                flush=True,
            )
            return
        print(
            f"[{i + 1}/{len(runs)}] {spec.name}: held-out acc {row['final_eval_acc']:.3f} "
            f"(chance {row['chance']:.3f}), loss {row['initial_eval_loss']:.3g} -> "
            f"{row['final_eval_loss']:.3g}, {row['steps']} steps, {row['seconds']} s",
            flush=True,
        )

    try:
        rows, figures = run_experiment(
            config, out, source=source, progress=not args.no_progress, on_result=report
        )
    except RunDirectoryError as err:  # a run's directory unreadable on resume (files damaged)
        raise UsageError(f"--out: {err}") from None
    except TrainingInterrupted as err:
        run_name = os.path.basename(err.out_dir) if err.out_dir else "the current run"
        print(f"transformer-theory train: {run_name}: {err.message()}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print(
            "transformer-theory train: interrupted outside a training loop; finished runs and "
            "their checkpoints are kept; run the same command to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    print(f"{len(rows)} run(s) done; outputs in {out}")
    _explain_large_initial_losses(rows)
    for path in figures:
        print(path)
    diverged = [r["run"] for r in rows if r["status"] == "diverged"]
    if diverged:
        print(
            f"transformer-theory train: {len(diverged)} of {len(rows)} run(s) diverged "
            f'({", ".join(diverged)}): they have no result (status "diverged" in summary.json, '
            "summary.csv and aggregate.csv); lower --lr or use --optimizer adam",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return 0
