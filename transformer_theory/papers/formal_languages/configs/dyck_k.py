"""Dyck-(k, D) after Yao et al. 2021 (the Dyck-k row of Strobl et al. 2024's table): the hard and
softmax recognizers of :mod:`transformer_theory.papers.formal_languages.dyck_k` checked against a
stack on every short string and on sampled members and hard non-members, for k = 2, 3 and
D = 1-4, and their smallest margin against ``n`` in float32 and float64.

Command::

    transformer-theory experiment dyck_k --out results/dyck_k

Writes ``dyck_k.json`` (``records``: one per recognizer, k and D, with every length's accuracy,
smallest signed margin and the derived-margin check; ``precision``: the margin sweep per float
format; ``settings``) and ``dyck_k_margin.png`` (smallest margin and margin times ``n`` against
``n``, per recognizer and format). The smoke size (``--size smoke``) takes seconds.

RESULT_PLACEHOLDER
"""

from __future__ import annotations

from transformer_theory.papers.formal_languages.dyck_k import DyckKSettings, run

__all__ = ["SIZES", "get_config", "run"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> DyckKSettings:
    """The experiment at ``size``: ``"default"`` (what README quotes: every string of length
    <= 7 for k = 2 and <= 5 for k = 3, D = 1-4, 32 samples at lengths 16, 64, 256, both
    recognizers; the margin sweep of Dyck-(2, 4) at lengths 16-1024 in float32 and float64) or
    ``"smoke"`` (k = 2, D = 2, the hard recognizer, every string of length <= 4, the sweep at
    length 16 in float64)."""
    if size == "default":
        return DyckKSettings()
    if size == "smoke":
        return DyckKSettings(
            size="smoke",
            exhaustive=((2, 4),),
            depths=(2,),
            attentions=("hard",),
            sampled_lengths=(),
            precision_depth=2,
            precision_lengths=(16,),
            precision_samples=4,
            dtypes=("float64",),
        )
    raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")
