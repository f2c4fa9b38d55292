"""Training: Optax loop (:mod:`.loop`), data splits (:mod:`.data`), Chen & Zou 2024, §9.1
initializations
(:mod:`.init`) and Orbax checkpoints (:mod:`.checkpoint`, the only module importing orbax)."""

from transformer_theory.train.data import DataConfig, TaskData
from transformer_theory.train.init import first_layer_pattern, paper_init, random_init, task_kind
from transformer_theory.train.loop import (
    TrainConfig,
    TrainResult,
    cross_entropy,
    make_optimizer,
    make_steps,
    train,
)

__all__ = [
    "DataConfig",
    "TaskData",
    "TrainConfig",
    "TrainResult",
    "cross_entropy",
    "first_layer_pattern",
    "make_optimizer",
    "make_steps",
    "paper_init",
    "random_init",
    "task_kind",
    "train",
]
