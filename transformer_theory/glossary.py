"""The shape glossary: one meaning per letter, for every array name in the library.

Arrays carry their shape in their name: ``tokens_BxN`` is a batch of ``B`` token sequences of
length ``N``; ``scores_QxK`` holds one row per query position and one column per key position.
Every module that uses these suffixes links here instead of defining letters of its own, so a
letter means the same thing in ``core/``, ``theory/``, ``train/`` and the experiments.

Where a paper writes a symbol, the glossary gives it next to the letter (Chen & Zou 2024 write the
vocabulary size ``d``, the width ``d'`` and the length ``n``). ``x`` separates letters and is
never a letter itself; a name without a suffix is a scalar or a structure (a pytree) whose fields
have their own suffixes.

============  ==================================================================================
letter        meaning
============  ==================================================================================
``A``         states of a language model: the BOS-padded histories of an n-gram LM (rows of its
              conditional table; Svete & Cotterell 2024)
``B``         batch: sequences or examples (a training batch, a held-out set, a dataset chunk)
``C``         classes: the classifier's outputs (``w_o`` has ``C`` rows)
``D``         residual-stream width ``d'`` (model width of every layer)
``E``         query/key (head) width of a factored attention (``ModelConfig.qk_dim``), feature
              width of a kernel feature map
``F``         hidden width of the MLP ``psi``
``G``         groups of sequences that share their last token (the certificate LPs split by them)
``H``         attention heads of one layer
``K``         key positions (attention maps are ``QxK``; ``NxN`` when queries are keys)
``L``         layers (a trace holds ``L + 1`` residual streams)
``M``         models: the leading axis of a batch of ``ModelParams``
``N``         sequence length ``n`` (positions of a self-attention sequence)
``P``         flattened one-hot columns ``N * V``: one per (position, token) pair
``Q``         query positions (when they differ from key positions, e.g. cross-attention)
``R``         relations / rank: rows of a dependence basis, columns kept by a rank-revealing QR
``S``         dependent sets (each a small group of sequences with its ``lambda``)
``T``         target (decoder) positions of an encoder-decoder
``U``         digits of a mixed-radix index (the unranking of exhaustive datasets)
``V``         vocabulary size ``d`` (token ids lie in ``[0, V)``)
``W``         rows of one streamed chunk or window (a slice of ``B``)
``Y``         width of the output a check compares (``D`` for a first-layer stream, ``C`` for
              logits)
``Z``         width ``d'`` of the vectors ``z_j`` that q-sparse averaging averages (Sanford, Hsu &
              Telgarsky 2023)
============  ==================================================================================

A test (``tests/test_glossary.py``) reads every suffixed name (``tokens_BxN``) in the package and
fails on a letter that is not above.
"""

from __future__ import annotations

GLOSSARY: dict[str, str] = {
    "A": "states of a language model (n-gram histories)",
    "B": "batch: sequences or examples",
    "C": "classes (classifier outputs)",
    "D": "residual-stream width d'",
    "E": "query/key (head) width; feature-map width",
    "F": "MLP hidden width",
    "G": "groups of sequences sharing their last token",
    "H": "attention heads of one layer",
    "K": "key positions",
    "L": "layers",
    "M": "models (leading axis of a batch of ModelParams)",
    "N": "sequence length n",
    "P": "flattened one-hot columns N * V",
    "Q": "query positions",
    "R": "relations / rank",
    "S": "dependent sets",
    "T": "target (decoder) positions",
    "U": "digits of a mixed-radix index",
    "V": "vocabulary size d",
    "W": "rows of one streamed chunk or window",
    "Y": "width of the output a check compares",
    "Z": "width d' of the averaged vectors z_j (Sanford et al. 2023, qSA)",
}
