"""Conti 2024, "The Math behind Transformers" (survey thesis): efficient attention against exact
attention, head kinds by projection, and the encoder-decoder translation experiment.

Modules:

- :mod:`.tasks`: the synthetic translation task (reordering and agreement).
- :mod:`.efficient`: efficient attention's variants, their error against exact attention and
  their cost against the sequence length (§2.1).
- :mod:`.linformer`: Linformer's random (Johnson-Lindenstrauss) projection as the thesis writes
  it (eq. 16, Lemma 2.1, corrected), its distortion and the rank it needs against ``n`` (§2.1.3).
- :mod:`.estimates`: the memory and time those measurements need, from the shapes alone.
- :mod:`.efficient_study`: the study of ``transformer-theory efficient-attention``: settings in,
  records and files out (random and trained inputs).
- :mod:`.heads`: positional / syntactic / rare-token heads by projection (§3.1).
- :mod:`.head_study`: the study of ``transformer-theory heads``: every head of trained models
  classified, records and files out.
- :mod:`.loading`: trained models (depth runs and translation runs) loaded for the head analysis
  and the error study.
- :mod:`.translation`: the encoder-decoder experiment: train, decode, read the heads.
- :mod:`.configs`: the trained experiments' configs (the experiment convention).
- :mod:`.plots`: the figures: head grids, error against budget, cost against length.
- :mod:`.claims`: the paper's statements in the claims ledger, a table of rows
  (``transformer-theory claims --paper conti2024``).
- :mod:`.checks`: the checks those rows run: each returns what it computed, how and over what.
"""

__all__ = [
    "checks",
    "claims",
    "configs",
    "efficient",
    "efficient_study",
    "estimates",
    "head_study",
    "heads",
    "linformer",
    "loading",
    "plots",
    "tasks",
    "translation",
]
