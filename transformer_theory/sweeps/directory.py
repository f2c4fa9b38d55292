"""Run an experiment into an output directory, and draw it again from that directory.

``out/`` after :func:`run_experiment`:

- ``experiment.json``: where the config came from (an experiment module's dotted name or a file
  path) and the fields the command line may override, so :func:`plot` rebuilds the same config;
  and the run names;
- ``<run name>/``: one directory per run (:mod:`transformer_theory.train.rundir`: ``run.json``,
  ``metrics.{json,csv}``, ``checkpoints/``);
- ``summary.{json,csv}``: the final held-out accuracy and loss of each run of the command, and its
  ``status`` (``ok``, or ``diverged`` with ``diverged_step`` and no accuracy);
  ``aggregate.csv``: mean, sample standard deviation, min and max over the seeds that did not
  diverge, and how many did;
- the analysis' figures (``<name>.png``; Figure 3 also ``fig3_attention.json``).

Every run directory is checked against its run's settings BEFORE anything is trained or written,
so a command that would resume a different run stops at once, naming the settings that differ.
So is ``experiment.json``: an output directory holds ONE experiment, so a command whose experiment
or overrides (other than ``steps``, a target that continues runs) differ from the recorded ones is
refused, naming the first that differs -- otherwise the new record and summary would list only the
new runs and silently drop the first command's.
Run directories that the command does not list are left alone: runs shared by two experiments
(same task, heads, seed and settings) are trained once.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

from transformer_theory.jsonio import read_json, write_json
from transformer_theory.sweeps import attention_maps
from transformer_theory.sweeps.config import ExperimentError, ExperimentSettings, resolve
from transformer_theory.sweeps.cost import check_seconds
from transformer_theory.sweeps.plots import plot_curves
from transformer_theory.sweeps.runs import RunSummary, sweep, trained_params
from transformer_theory.sweeps.specs import RunSpec
from transformer_theory.train.rundir import RunDirectoryError, check_run_dir

__all__ = [
    "EXPERIMENT_FILE",
    "OVERRIDABLE",
    "check_out_dir",
    "plot",
    "read_record",
    "run_experiment",
    "source_of",
]

EXPERIMENT_FILE = "experiment.json"
# The config fields a command line may change; experiment.json records their values.
OVERRIDABLE = ("size", "seeds", "tasks", "depths", "steps", "optimizer", "learning_rate")


def source_of(config: ExperimentSettings) -> str:
    """How :func:`read_record` finds ``config`` again when the caller names no source: the module
    of its settings class, when that class is an experiment module's own (a shipped experiment's
    ``get_config``), else the config's name."""
    module = type(config).__module__
    if type(config) is not ExperimentSettings and not module.startswith("_"):
        return module
    return config.name


def _record(config: ExperimentSettings, source: str) -> dict:
    overrides = {k: getattr(config, k) for k in OVERRIDABLE}
    overrides = {k: list(v) if isinstance(v, tuple) else v for k, v in overrides.items()}
    return dict(
        experiment=config.name,
        source=source,
        overrides=overrides,
        runs=[spec.name for spec in config.run_specs],
    )


def check_out_dir(config: ExperimentSettings, out: str, source: str | None = None) -> dict:
    """Raise :class:`~transformer_theory.train.RunDirectoryError` if any run directory under
    ``out`` holds a run with other settings (or more steps), or if ``out/experiment.json`` records
    another experiment or other overrides (``steps`` aside); cheap: builds no model or data.

    The error's ``setting`` is the differing setting: a run setting (``"size"``,
    ``"train.learning_rate"``, ...), ``"steps"``, ``"experiment"``, ``"source"`` or a recorded
    override (``"overrides.learning_rate"``, ``"overrides.seeds"``, ...).

    Returns the experiment record this command would write (``experiment.json``'s content).
    """
    requested = _record(config, source_of(config) if source is None else source)
    for spec in config.run_specs:
        run_dir = os.path.join(out, spec.name)
        if os.path.isdir(run_dir):
            check_run_dir(run_dir, spec.settings(), spec.train_config.steps)
    path = os.path.join(out, EXPERIMENT_FILE)
    if not os.path.exists(path):
        return requested
    try:
        recorded = read_json(path)
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise RunDirectoryError(
            f"{path}: not a JSON experiment record ({type(err).__name__}); use another output "
            "directory"
        ) from None
    if not isinstance(recorded, dict) or not isinstance(recorded.get("overrides"), dict):
        raise RunDirectoryError(f"{path}: expected an object with 'overrides'")
    pairs = [(k, k, recorded.get(k), requested[k]) for k in ("experiment", "source")]
    pairs += [
        (f"overrides.{k}", k, recorded["overrides"].get(k), requested["overrides"][k])
        for k in OVERRIDABLE
        if k != "steps"
    ]
    for setting, key, there, asked in pairs:
        if there != asked:
            raise RunDirectoryError(
                f"{out} holds experiment {recorded.get('experiment')!r} run with {key} = "
                f"{there!r}, and this command asks for {key} = {asked!r}; one output directory "
                "holds one experiment (its experiment.json and summary list its runs), so use "
                "another output directory",
                setting=setting,
            )
    return requested


def read_record(out: str) -> tuple[ExperimentSettings, dict]:
    """The config and record of the experiment directory ``out``.

    Raises :class:`~.config.ExperimentError` naming the file when ``out/experiment.json`` is
    missing, not JSON, not an object of the expected fields, or names an experiment that can no
    longer be found.
    """
    path = os.path.join(out, EXPERIMENT_FILE)
    if not os.path.isdir(out):
        raise ExperimentError(f"{out}: not a directory")
    if not os.path.exists(path):
        raise ExperimentError(
            f"{out} has no {EXPERIMENT_FILE}; is it an output of `transformer-theory train`?"
        )
    try:
        record = read_json(path)
    except (UnicodeDecodeError, ValueError) as err:
        raise ExperimentError(f"{path}: not a JSON file ({type(err).__name__})") from None
    if not (
        isinstance(record, dict)
        and isinstance(record.get("experiment"), str)
        and isinstance(record.get("source"), str)
        and isinstance(record.get("overrides"), dict)
        and set(record["overrides"]) <= set(OVERRIDABLE)
    ):
        raise ExperimentError(
            f"{path}: expected an object with 'experiment', 'source' and 'overrides' (written by "
            "`transformer-theory train`)"
        )
    try:
        config = resolve(record["source"]).replace(**record["overrides"])
    except ExperimentError as err:
        raise ExperimentError(f"{path}: names experiment {record['experiment']!r}: {err}") from None
    except (TypeError, ValueError) as err:
        raise ExperimentError(f"{path}: its overrides do not fit the config: {err}") from None
    return config, record


def run_experiment(
    config: ExperimentSettings,
    out: str,
    *,
    source: str | None = None,
    progress: bool = True,
    on_result: Callable[[int, RunSpec, RunSummary], None] | None = None,
) -> tuple[list[RunSummary], list[str]]:
    """Check ``out`` and the time (:func:`.cost.check_seconds`), record the experiment, train
    its runs, draw its analysis (what :func:`analyse` draws again from ``out``).

    Args:
      config: the experiment.
      out: the output directory (created).
      source: how :func:`plot` finds ``config`` again: an experiment module's dotted name or a
        config file's path (default: :func:`source_of`, the module of a shipped experiment).
      progress, on_result: see :func:`.runs.sweep`.

    Returns:
      ``(summary rows, figure paths)``: one :class:`~.runs.RunSummary` per run.

    Raises:
      RunDirectoryError: a run directory holds another run, or ``out`` another experiment
        (before anything is trained; ``setting`` names the setting that differs).
      BudgetError: the runs would exceed the time budget (before anything is trained).
    """
    record = check_out_dir(config, out, source)
    check_seconds(config.run_specs, out)
    os.makedirs(out, exist_ok=True)
    write_json(os.path.join(out, EXPERIMENT_FILE), record)
    spec = config.drawn_run  # Figure 3's run: its final parameters kept by the sweep
    rows, trained = sweep(config.run_specs, out, progress=progress, on_result=on_result, keep=spec)
    if spec is not None:
        return rows, attention_maps.draw(spec.setup.task, trained, out, title=config.title)
    return rows, [plot_curves(config, out)]


def analyse(config: ExperimentSettings, out: str) -> list[str]:
    """Draw ``config``'s analysis again from the run directories under ``out``, as
    :func:`run_experiment` drew it; returns the files: Figure 3 (``"attention_maps"``: its run,
    :attr:`~.config.ExperimentSettings.drawn_run`, restored from its last checkpoint -- the
    parameters the training ended with --, beside Theorem 3's construction,
    :func:`.attention_maps.draw`) or the learning curves of every run (``"curves"``,
    :func:`.plots.plot_curves`)."""
    spec = config.drawn_run
    if spec is not None:
        trained = trained_params(spec, out)
        return attention_maps.draw(spec.setup.task, trained, out, title=config.title)
    return [plot_curves(config, out)]


@dataclasses.dataclass(frozen=True)
class SweepResult:
    """What :func:`run` gives: one :class:`~.runs.RunSummary` per run (``summary.json``'s
    rows) and the figures drawn."""

    rows: tuple[RunSummary, ...]
    figures: tuple[str, ...]


def run(config: ExperimentSettings, out_dir: str, *, progress: bool = True) -> SweepResult:
    """The study of a shipped figure experiment (Chen & Zou 2024's ``fig*`` configs, whose
    modules are settings alone): train (or resume) every run, summarize, draw
    (:func:`run_experiment`); the typed :class:`SweepResult`."""
    rows, figures = run_experiment(config, out_dir, progress=progress)
    return SweepResult(tuple(rows), tuple(figures))


def plot(out: str) -> list[str]:
    """Redraw the experiment directory ``out`` (written by :func:`run_experiment`).

    Raises :class:`~.config.ExperimentError` or
    :class:`~transformer_theory.train.RunDirectoryError` naming the file that cannot be read.
    """
    config, _ = read_record(out)
    return analyse(config, out)
