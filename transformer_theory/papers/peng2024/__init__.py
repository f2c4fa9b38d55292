"""Peng, Narayanan & Papadimitriou 2024, "On Limitations of the Transformer Architecture": function
composition, the one-layer error bound of Theorem 1 and chain of thought (Theorem 2).

Modules (private, by role; the names below are the public face):

- ``_tasks``: function-composition prompts with exact answers (and the sizes of the CoT
  prompts' model: ``cot_vocab``, ``cot_length``); the pair-token prompts of the one-pass models
  (``all_prompts``: every prompt of a small ``n``).
- ``_theory``: Theorem 1's error bound, and trained records set beside the bounds
  (``bound_records``, ``steps_needed``).
- ``_models``: the transformer with a true embedding, fake-quantized to ``p`` bits, and its
  errors on prompts (``errors``);
  ``_models_training``: training it on composition (and the library's one-layer format);
  ``_models_cot``: iterated composition with chain of thought (prompts, teacher forcing, the
  autoregressive loop, training and evaluating a built model); ``_models_one_pass``: the
  one-pass recipe that learns on pair-token prompts.
- ``_constructions``: one-pass composition by one layer, built by hand (ours): the exact two-head
  model, checked on every prompt, and the bits it needs beside Theorem 1's ``n log n``.
- ``_checks``: the checks behind the claims (:class:`transformer_theory.ledger.Checked`).
- ``_plots``: the figures.
- :mod:`.experiments`: ``composition_depth``, ``composition_one_layer``, ``composition_cot``,
  ``composition_bound``, ``composition_one_pass`` (``transformer-theory experiment NAME``).
- :mod:`.claims`: the paper's statements in the claims ledger (``transformer-theory claims``).
"""

from transformer_theory.papers.peng2024._constructions import (
    budget_table,
    build,
    smallest_exact_bits,
)
from transformer_theory.papers.peng2024._models import CompositionTransformer, errors
from transformer_theory.papers.peng2024._models_cot import (
    cot_bound,
    cot_record,
    cot_sample,
    generate,
)
from transformer_theory.papers.peng2024._models_one_pass import one_pass_record
from transformer_theory.papers.peng2024._models_training import composition_trained_record
from transformer_theory.papers.peng2024._tasks import all_prompts, composition_sample
from transformer_theory.papers.peng2024._theory import peng_error_bound

__all__ = [
    "CompositionTransformer",
    "all_prompts",
    "budget_table",
    "build",
    "composition_sample",
    "composition_trained_record",
    "cot_bound",
    "cot_record",
    "cot_sample",
    "errors",
    "generate",
    "one_pass_record",
    "peng_error_bound",
    "smallest_exact_bits",
]
