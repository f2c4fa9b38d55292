"""The typed records of Peng, Narayanan & Papadimitriou 2024's trained studies: one row of each
study's ``records.json``, field for field (in the file's order) as the file holds it. Every row
ends with ``seconds`` since its sweep started and ``run``, the run's settings (absent from files
written before sweeps recorded it)."""

from __future__ import annotations

import dataclasses
from typing import Literal

from transformer_theory.jsonio import ABSENT, optional

__all__ = [
    "BoundRecord",
    "CoTRecord",
    "DepthRecord",
    "OneLayerRecord",
    "OnePassRecord",
]

frozen = dataclasses.dataclass(frozen=True)


@frozen
class _CoTModel:
    """The fields every chain-of-thought model's row opens with (:func:`.._models_cot.cot_record`):
    the answer's and every written token's held-out accuracy beside ``cot_bound``
    (``sqrt(n / (H d p))``)."""

    task: Literal["composition_cot"]
    n: int
    functions: int
    stride: int
    cot_steps: int
    heads: int
    d: int
    p: int
    quantized: bool
    params: int
    steps: int
    examples: int
    final_loss: float
    accuracy: float
    token_accuracy: tuple[float, ...]
    chance_accuracy: float
    cot_bound: float


@frozen
class CoTRecord(_CoTModel):
    """One chain-of-thought model of ``composition_cot``."""

    seconds: float
    run: str = optional(ABSENT)


@frozen
class BoundRecord(_CoTModel):
    """One one-pass model of ``composition_bound`` (:func:`.._theory.bound_records`): a
    chain-of-thought model of one CoT step with its ``error = 1 - accuracy`` beside Peng et al.'s
    ``bound`` and ``R = n log2 n - H (d + 1) p``."""

    layers: int
    error: float
    bound: float
    R: float
    chance_error: float
    seconds: float
    run: str = optional(ABSENT)


@frozen
class OnePassRecord:
    """One pair-token one-pass model (:func:`.._models_one_pass.one_pass_record`): its held-out
    error beside the bound, whether it converged, and the error of guessing ``g``'s most frequent
    value (``mode_error``)."""

    task: str
    n: int
    heads: int
    d: int
    p: int
    quantize: str
    params: int
    steps: int
    aux: float
    examples: int
    final_loss: float
    converged: bool
    error: float
    bound: float
    R: float
    chance_error: float
    mode_error: float
    seconds: float
    run: str = optional(ABSENT)


@frozen
class DepthRecord:
    """One quantized model of ``composition_depth``
    (:func:`.._models_training.composition_trained_record`): held-out error beside the bound."""

    task: Literal["composition"]
    n: int
    layers: int
    heads: int
    d: int
    p: int
    quantized: bool
    params: int
    steps: int
    examples: int
    final_loss: float
    error: float
    bound: float
    chance_error: float
    seconds: float
    run: str = optional(ABSENT)


@frozen
class OneLayerRecord:
    """One library-format model evaluated in one float format
    (:func:`.._models_training.one_layer_records`): error beside the bound at ``p`` = the
    format's bits."""

    n: int
    layers: int
    heads: int
    d: int
    format: str
    p: int
    error: float
    bound: float
    chance_error: float
    seconds: float
    run: str = optional(ABSENT)
