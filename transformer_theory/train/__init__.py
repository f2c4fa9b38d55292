"""Training: the Optax loop (:mod:`.loop`), data splits (:mod:`.data`), Chen & Zou 2024, §9.1
initializations (:mod:`.init`), run directories that belong to one run (:mod:`.rundir`) and Orbax
checkpoints (:mod:`.checkpoint`, the only module importing orbax)."""

from transformer_theory.train.data import DataConfig, TaskData
from transformer_theory.train.init import first_layer_pattern, paper_init, random_init, task_kind
from transformer_theory.train.loop import (
    EarlyStop,
    TrainConfig,
    TrainingInterrupted,
    TrainResult,
    cross_entropy,
    make_optimizer,
    make_steps,
    restore_params,
    train,
)
from transformer_theory.train.rundir import RunDirectoryError, read_metrics, run_settings

__all__ = [
    "DataConfig",
    "EarlyStop",
    "RunDirectoryError",
    "TaskData",
    "TrainConfig",
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
