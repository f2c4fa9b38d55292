"""Training: the runner every trainer shares and the trainers built on it.

Modules:

- :mod:`.runner`: the one training runner (run directory, resume bit for bit, Ctrl-C, metrics,
  checkpoints, divergence) driving any jitted train step;
- :mod:`.loop`: the Optax loop of Chen & Zou 2024, §9.1 (cross-entropy on the last position):
  :func:`train`, its steps and configs;
- :mod:`.seq2seq`: teacher-forced training of an encoder-decoder on any source-target pairs;
- :mod:`.fit`: :func:`~.fit.fit`, the small Optax loop of the papers' little models (no run
  directory);
- :mod:`.data`: train / held-out splits of a task;
- :mod:`.init`: Chen & Zou 2024, §9.1 initializations;
- :mod:`.rundir`: run directories that belong to one run (settings, fingerprints, metrics);
- :mod:`.checkpoint`: Orbax checkpoints (the only module importing orbax);
- :mod:`.signals`: Ctrl-C held across a write (no orbax).
"""

from transformer_theory.train.data import DataSettings, TaskData
from transformer_theory.train.init import first_layer_pattern, paper_init, random_init, task_kind
from transformer_theory.train.loop import (
    EarlyStop,
    TrainResult,
    TrainSettings,
    cross_entropy,
    make_optimizer,
    make_steps,
    restore_params,
    train,
)
from transformer_theory.train.rundir import RunDirectoryError, read_metrics, run_settings
from transformer_theory.train.runner import TrainingInterrupted

__all__ = [
    "DataSettings",
    "EarlyStop",
    "RunDirectoryError",
    "TaskData",
    "TrainSettings",
    "TrainResult",
    "TrainingInterrupted",
    "cross_entropy",
    "first_layer_pattern",
    "make_optimizer",
    "make_steps",
    "paper_init",
    "random_init",
    "read_metrics",
    "restore_params",
    "run_settings",
    "task_kind",
    "train",
]
