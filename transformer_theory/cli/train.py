"""Train an experiment: ``transformer-theory train (--experiment NAME | --config FILE) [--size
SIZE] [--seeds 0 1 2] [--tasks ...] [--depths ...] [--steps N] [--optimizer sgd|adam] [--lr LR]
[--out DIR]``.

Thin by design: resolves the config (a shipped experiment, one of Chen & Zou 2024's modules
``transformer_theory.papers.chen_zou2024.experiments``, trained by :mod:`transformer_theory.sweeps`,
or a user's file with ``get_config()``), applies the flags, checks the output directory and calls
:func:`transformer_theory.sweeps.run_experiment`. Re-running the same command resumes killed
runs from their last checkpoint; ``--steps N`` continues finished runs to N steps. A run directory
with other settings, or an output directory recording another experiment or other overrides (say
``--lr 0.1`` there, ``--lr 0.5`` asked), is refused (exit 2) naming the setting that differs;
Ctrl-C checkpoints the current run and exits 130. A run whose loss or parameters stop being
finite stops there and is reported as diverged (no accuracy); the command then exits 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

from transformer_theory.budget import BudgetError
from transformer_theory.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    UsageError,
    add_output,
    prepare_out_dir,
)
from transformer_theory.cli._options import add_settings
from transformer_theory.papers.chen_zou2024.experiments import (
    NAMED,
    module_name,
    named_config,
    shipped_defaults,
)
from transformer_theory.settings import as_options, flag_of, from_args, setting
from transformer_theory.sweeps import (
    ExperimentError,
    ExperimentSettings,
    config_from_file,
    run_experiment,
)
from transformer_theory.sweeps.directory import OVERRIDABLE
from transformer_theory.sweeps.tables import initial_loss_note, result_line
from transformer_theory.train import RunDirectoryError, TrainingInterrupted

LISTS = ("seeds", "tasks", "depths")  # also several words after one flag: --seeds 0 1 2
# The flag of each override, and of what a refused output directory names (else --out).
FLAGS = {field: flag_of(ExperimentSettings, field) for field in OVERRIDABLE}
_REFUSED = {f"overrides.{field}": flag for field, flag in FLAGS.items()}
_REFUSED.update(steps="--steps", experiment="--experiment/--config", source="--experiment/--config")


@dataclasses.dataclass(frozen=True)
class TrainSource:
    """What is trained: a shipped experiment or a user's config file (exactly one of them).
    Attributes:
      experiment: a shipped experiment (one of Chen & Zou 2024's modules, listed by --help).
      config: a Python file whose get_config() returns an ExperimentSettings.
    """

    experiment: str | None = setting(None, metavar="NAME", help=f"one of {', '.join(NAMED)}")
    config: str | None = setting(None, metavar="FILE")

    def __post_init__(self) -> None:
        if (self.experiment is None) == (self.config is None):
            both = ", not both" if self.config is not None else ""
            raise ValueError(f"experiment/config: give one of them{both}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_settings(parser, TrainSource)
    sizes, optimizers = shipped_defaults()
    overrides = parser.add_argument_group(
        "the config's settings (default: the config's own)",
        f"Sizes (default marked): {sizes}. Optimizers at the default size: {optimizers}; a "
        "--config file: its own.",
    )
    add_settings(
        parser,
        ExperimentSettings,
        group=overrides,
        defaults=dict.fromkeys(OVERRIDABLE),
        words=LISTS,
    )
    add_output(
        parser, None, progress=True, help="output directory (default results/<experiment>_<size>)"
    )


def resolve_config(args: argparse.Namespace) -> tuple[ExperimentSettings, str]:
    """``(config, source)``: the config named by ``--experiment``/``--config`` with the flags
    applied, and how ``plot`` finds it again. Raises :class:`UsageError` naming the flag."""
    which = from_args(TrainSource, args)  # exactly one of --experiment and --config
    option, source, load = "--experiment", which.experiment, named_config
    if which.config is not None:
        option, source, load = "--config", os.path.abspath(which.config), config_from_file
    try:
        config = load(source)
        if args.experiment is not None:  # an output directory records the module's dotted name
            source = module_name(source)
    except ExperimentError as err:
        raise UsageError(f"{option}: {err}") from None
    changes = {f: getattr(args, f) for f in OVERRIDABLE if getattr(args, f) is not None}
    try:
        return config.replace(**changes), source
    except ValueError as err:  # the config checks every field; the message names the flag
        field, _, rest = str(err).partition(":")
        if field in FLAGS:
            raise UsageError(f"{FLAGS[field]}:{rest}") from None
        raise UsageError(f"{option} {source}: {err}") from None


def run(args: argparse.Namespace) -> int:
    config, source = resolve_config(args)
    default = os.path.join("results", f"{config.name}_{config.size}")
    out = prepare_out_dir(default if args.out is None else args.out)
    runs = config.run_specs

    def report(i, spec, row):
        print(f"[{i + 1}/{len(runs)}] {spec.name}: {result_line(row)}", flush=True)

    try:  # the directory's records, then the time, are checked before anything is trained
        rows, figures = run_experiment(
            config, out, source=source, progress=args.progress, on_result=report
        )
    except RunDirectoryError as err:  # also a run's directory unreadable on resume (damaged)
        raise UsageError(f"{_REFUSED.get(err.setting, '--out')}: {err}") from None
    except BudgetError as err:  # the time refused, naming the field: show its option
        raise as_options(ExperimentSettings, err) from None
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
    for line in filter(None, (initial_loss_note(rows), *figures)):
        print(line)
    diverged = [r.run for r in rows if r.diverged]
    if diverged:
        print(
            f"transformer-theory train: {len(diverged)} of {len(rows)} run(s) diverged "
            f'({", ".join(diverged)}): they have no result (status "diverged" in summary.json, '
            "summary.csv and aggregate.csv); lower --lr or use --optimizer adam",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return 0
