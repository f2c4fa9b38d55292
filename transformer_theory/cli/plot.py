"""Plot a training output directory: ``transformer-theory plot DIR`` (written by
``transformer-theory train``).

Reads ``DIR/experiment.json`` to rebuild the experiment's config (a shipped experiment or the
user's config file it names) and redraws its figures from the run directories; prints their paths.
"""

from __future__ import annotations

import argparse
import dataclasses

from transformer_theory.cli._common import UsageError
from transformer_theory.cli._options import add_settings
from transformer_theory.settings import setting
from transformer_theory.sweeps import ExperimentError, plot
from transformer_theory.train import RunDirectoryError


@dataclasses.dataclass(frozen=True)
class PlotSettings:
    """What to plot.

    Attributes:
      dir: an output directory of `transformer-theory train`.
    """

    dir: str = setting(flag="DIR")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_settings(parser, PlotSettings)


def run(args: argparse.Namespace) -> int:
    try:
        paths = plot(args.dir)
    except (ExperimentError, RunDirectoryError) as err:
        raise UsageError(f"DIR: {err}") from None
    for path in paths:
        print(path)
    return 0
