"""Conti 2024, "The Math behind Transformers" (survey thesis): efficient attention against exact
attention, Linformer's random projection, head kinds by projection, and the encoder-decoder
translation experiment.

Role modules (private; their names below are the public face):

- :mod:`._tasks`: the synthetic translation task (reordering and agreement), its ``BOS`` and
  ``EOS`` tokens.
- :mod:`._models_efficient`: efficient attention's variants, their error against exact attention
  and their cost against the sequence length, with its fitted log-log slopes (``fit_slopes``)
  (§2.1).
- :mod:`._models_trained`: trained models (depth runs and translation runs) read back for the
  head analysis and the error study.
- :mod:`._models_translation`: the trained encoder-decoder: its data split, decoding scored
  against the grammar, its heads, a run read back.
- :mod:`._theory_heads`: positional / syntactic / rare-token heads by the L1 projection (§3.1),
  and synthetic heads of each kind (``synthetic_head``).
- :mod:`._theory_linformer`: Linformer's random (Johnson-Lindenstrauss) projection as the thesis
  writes it (eq. 16, Lemma 2.1, corrected; ``jl_projection``), the rank it needs against ``n``
  (``scaling_study``; ``jl_study`` adds the output error and spectra), and the effective rank of
  an attention map (``spectrum_rank``) (§2.1.3).
- :mod:`._theory_cost`: the memory and time the efficient-attention measurements need, from the
  shapes alone.
- :mod:`._checks`: the checks the claims run, each returning a ``ledger.Checked``.
- :mod:`._records`: the typed records the studies return (``TranslationRun``, ``CostRow``,
  ``ErrorAtBudget``, ``HeadRecord``).
- :mod:`._plots`: the figures: head grids, error against budget, cost against length, JL.
- :mod:`.claims`: the paper's statements in the claims ledger
  (``transformer-theory claims --paper conti2024``).
- :mod:`.experiments`: ``efficient_attention`` (the command ``efficient-attention``), ``heads``
  (the command ``heads``) and ``encdec_translation`` (trained), each its settings, ``get_config``
  (each study is ``_study_<name>.py``'s ``run``: settings in, records and files out).
"""

from transformer_theory.papers.conti2024._models_efficient import (
    cost_vs_length,
    error_vs_budget,
    fit_slopes,
    random_inputs,
)
from transformer_theory.papers.conti2024._models_trained import read_runs
from transformer_theory.papers.conti2024._tasks import BOS, EOS, Translation, token_accuracy
from transformer_theory.papers.conti2024._theory_heads import (
    classify_map,
    classify_model,
    synthetic_head,
)
from transformer_theory.papers.conti2024._theory_linformer import (
    jl_projection,
    scaling_study,
    spectrum_rank,
)

__all__ = [
    "BOS",
    "EOS",
    "Translation",
    "classify_map",
    "classify_model",
    "cost_vs_length",
    "error_vs_budget",
    "fit_slopes",
    "jl_projection",
    "random_inputs",
    "read_runs",
    "scaling_study",
    "spectrum_rank",
    "synthetic_head",
    "token_accuracy",
]
