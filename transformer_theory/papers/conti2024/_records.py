"""Conti 2024's typed records: what a study returns and its files hold.

- :class:`TranslationRun`: one trained (model, seed) of the encoder-decoder experiment
  (:mod:`._study_encdec_translation`), as ``summary.json`` holds it (:meth:`TranslationRun.row`,
  :meth:`TranslationRun.from_row`); the ledger row ``conti2024.encdec_translation`` reads the
  committed summary through it.
- :class:`CostRow`, :class:`ErrorAtBudget`: one row of ``cost.json`` / ``errors.json``
  (:func:`._models_efficient.cost_vs_length`, :func:`._models_efficient.error_vs_budget`).
- :class:`HeadRecord` (with :class:`PermutedKind`): one head of ``heads.json``
  (:mod:`._study_heads`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from transformer_theory import jsonio

__all__ = ["CostRow", "ErrorAtBudget", "HeadRecord", "PermutedKind", "TranslationRun"]

frozen = dataclasses.dataclass(frozen=True)


@frozen
class CostRow:
    """One variant at one length (:func:`._models_efficient.cost_vs_length`): seconds per call
    (median and minimum of the timed calls), the compile seconds and XLA's memory account
    (``xla_bytes``, ``temp_bytes``: absent where XLA gives none)."""

    variant: str
    budget: int | None
    n: int
    dim: int
    seconds: float
    seconds_min: float
    compile_seconds: float
    xla_bytes: int | None = jsonio.optional()
    temp_bytes: int | None = jsonio.optional()


@frozen
class ErrorAtBudget:
    """One variant at one budget on one source of inputs
    (:func:`._models_efficient.error_vs_budget`): the output's relative error against exact
    attention, the mean (``error``) and the largest (``error_max``) over ``examples``."""

    inputs: str
    variant: str
    budget_kind: str | None
    budget: int | None
    n: int
    examples: int
    error: float
    error_max: float


@frozen
class PermutedKind:
    """A head's classification up to a permutation (Conti 2024, eq. 19-20):
    :func:`._theory_heads.classify_head`'s ``permuted``, with the ``axis`` permuted and the
    most frequent ``order``."""

    kind: str
    score: float
    agreement: float
    kinds: dict[str, int]
    scores: dict[str, float]
    fit: Any
    axis: str
    order: list[int]


@frozen
class HeadRecord:
    """One head of one trained run (``heads.json``): :func:`._theory_heads.classify_head`'s
    vote over ``examples`` inputs, with the run's ``name`` and ``model`` (``"depth"`` or
    ``"seq2seq"``) first; ``fit`` the most frequent best support of the family scored."""

    run: str
    model: str
    attention: str
    layer: int
    head: int
    kind: str
    score: float
    agreement: float
    kinds: dict[str, int]
    scores: dict[str, float]
    fit: Any
    concentration: float
    examples: int
    permuted: PermutedKind


# summary.json's flat fields of one run, in its order (the beam measures follow greedy_seconds).
_FIXED = (
    "run",
    "model",
    "heads",
    "layers",
    "width",
    "seed",
    "steps",
    "train_seconds",
    "teacher_forced_eval_acc",
    "eval_loss",
    "greedy_exact_match",
    "greedy_token_accuracy",
    "heldout",
    "greedy_seconds",
)


@dataclasses.dataclass(frozen=True)
class TranslationRun:
    """One trained (model, seed) of the encoder-decoder experiment: its training, its decoding
    scored against the grammar (:func:`._models_translation.evaluate`) and its heads counted by
    kind (:func:`._theory_heads.classify_model`). :meth:`row` is its flat ``summary.json``
    row, :meth:`from_row` reads one back.

    Attributes:
      beams: :func:`._models_translation.evaluate`'s beam measures by their names there
        (``beam2_exact_match``, ``beam4_below_smaller_beam``, ``beam1_eos_exact_match``, ...).
      head_kinds, head_kinds_permuted: heads of each kind (``heads.KINDS``), plainly and up to a
        permutation.
    """

    run: str
    model: str
    heads: int
    layers: int
    width: int
    seed: int
    steps: int
    train_seconds: float
    teacher_forced_eval_acc: float
    eval_loss: float
    greedy_exact_match: float
    greedy_token_accuracy: float
    heldout: int
    greedy_seconds: float
    beams: dict[str, float]
    beam_examples: int
    eos_alpha: float
    head_kinds: dict[str, int]
    head_kinds_permuted: dict[str, int]

    def row(self) -> dict:
        """The flat ``summary.json`` / ``summary.csv`` row (``heads_<kind>``,
        ``heads_permuted_<kind>``)."""
        out = {name: getattr(self, name) for name in _FIXED}
        out.update(self.beams, beam_examples=self.beam_examples, eos_alpha=self.eos_alpha)
        out.update({f"heads_{k}": v for k, v in self.head_kinds.items()})
        out.update({f"heads_permuted_{k}": v for k, v in self.head_kinds_permuted.items()})
        return out

    @classmethod
    def from_row(cls, row: dict) -> TranslationRun:
        """The run of a flat ``summary.json`` row (:meth:`row`'s inverse)."""
        rest = {k: v for k, v in row.items() if k not in _FIXED}
        permuted = "heads_permuted_"
        return cls(
            **{name: row[name] for name in _FIXED},
            beams={k: v for k, v in rest.items() if k.startswith("beam") and k != "beam_examples"},
            beam_examples=rest["beam_examples"],
            eos_alpha=rest["eos_alpha"],
            head_kinds={
                k[6:]: v
                for k, v in rest.items()
                if k.startswith("heads_") and not k.startswith(permuted)
            },
            head_kinds_permuted={
                k[len(permuted) :]: v for k, v in rest.items() if k.startswith(permuted)
            },
        )
