"""Training sweeps: run, resume and sweep experiment configs (Chen & Zou 2024's trained figures).

An experiment is a typed frozen config; this package trains each of its runs through
:func:`transformer_theory.train.train` (a killed run resumes bit for bit from its directory, a
finished one continues to more steps), sweeps them into one output directory, summarizes them and
draws the figures. One module each:

- :mod:`.setups`: how each of Chen & Zou's four tasks is built and trained, one table per size
  (:data:`QUICK`, :data:`PAPER`);
- :mod:`.config`: :class:`ExperimentSettings`, a typed frozen description of an experiment (which
  tasks, heads per layer, seeds, size, optimizer overrides, which analysis); the library's own are
  the figures of Chen & Zou 2024, ``transformer_theory.papers.chen_zou2024.experiments`` (one
  module each, ``get_config(size)``), a user's own is a file with ``get_config()``;
- :mod:`.specs`: :class:`RunSpec`, one run described (its name, settings, model config);
- :mod:`.runs`: what a run builds (model, data, optimizer) and trains; :func:`sweep` trains
  every run into one directory and writes its summaries;
- :mod:`.directory`: :func:`run_experiment` (check the output directory, train every run, summarize,
  draw; :func:`.directory.run` is the same as the figure experiments' study, giving the typed
  :class:`SweepResult`) and :func:`plot` (redraw from a directory);
- :mod:`.cost`: a lower bound on a sweep's training time, checked against the budget before any
  run starts, and the shipped configs' defaults as ``train --help`` shows them;
- :mod:`.tables`: a sweep's summary as the committed CSV and README's table, and
  :func:`aggregate` (the statistics over seeds);
- :mod:`.recipes`: variants of the paper-size recipe for the 3-layer contextual model, one seed
  at a time (``experiments/contextual_depth3_recipes.py``);
- :mod:`.plots` (learning curves) and :mod:`.attention_maps` (Figure 3), the analyses;
  :func:`analyse` (in :mod:`.directory`) draws a config's.

From Python::

    from transformer_theory import sweeps
    from transformer_theory.papers.chen_zou2024.experiments import fig2_depth

    config = fig2_depth.get_config("default").replace(seeds=(0,), tasks=("reasoning",))
    rows, figures = sweeps.run_experiment(config, "results/fig2_reasoning")

The command line does the same: ``transformer-theory train --experiment fig2_depth --seeds 0
--tasks reasoning --out results/fig2_reasoning``, or ``--config my_sweep.py`` for a user's file.
"""

from transformer_theory.sweeps.config import (
    ExperimentError,
    ExperimentSettings,
    config_from_file,
    config_from_module,
    resolve,
)
from transformer_theory.sweeps.directory import (
    SweepResult,
    analyse,
    check_out_dir,
    plot,
    read_record,
    run_experiment,
)
from transformer_theory.sweeps.runs import (
    build_data,
    build_model,
    build_run,
    execute,
    sweep,
    trained_params,
)
from transformer_theory.sweeps.setups import (
    PAPER,
    PAPER_CLAIMS,
    QUICK,
    SETUPS,
    SIZES,
    TASK_NAMES,
    TaskSetup,
)
from transformer_theory.sweeps.specs import RunSpec
from transformer_theory.sweeps.tables import aggregate

__all__ = [
    "PAPER",
    "PAPER_CLAIMS",
    "QUICK",
    "SETUPS",
    "SIZES",
    "TASK_NAMES",
    "ExperimentSettings",
    "ExperimentError",
    "RunSpec",
    "SweepResult",
    "TaskSetup",
    "aggregate",
    "analyse",
    "build_data",
    "build_model",
    "build_run",
    "check_out_dir",
    "config_from_file",
    "execute",
    "config_from_module",
    "plot",
    "read_record",
    "resolve",
    "run_experiment",
    "sweep",
    "trained_params",
]
