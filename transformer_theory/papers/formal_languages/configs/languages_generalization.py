"""Hahn 2020's rows of Strobl et al. 2024's table as an experiment: PARITY and Dyck-1 models
trained on lengths 4-16 with softmax and with hard attention (straight-through estimator),
evaluated at lengths 8-256 beside the constructed recognizers
(:mod:`transformer_theory.papers.formal_languages.generalization` says what each model is).

Command (one seed; the README table ran ``--seeds 0``, ``1`` and ``2`` separately)::

    python experiments/languages_generalization.py --out results/languages_generalization

Writes ``languages_generalization.json`` (``records``: per model its accuracy at every evaluation
length and its final loss; ``seconds``; ``settings``: this config), rewritten after every finished
model, and ``languages_generalization.png`` (accuracy against length, one panel per language).

Takes 4-10 min per seed on the 2-core CPU shared with up to seven other jobs (seeds 0, 1, 2:
9 min 44 s, 6 min 26 s and 4 min 14 s, 2026-11-24; seed 0 again through this config and
``train.fit``, 5 min 19 s, reproduced every seed-0 number of the README table); the smoke size
(``--size smoke`` or ``--smoke``) a few seconds.

Result (accuracy, seeds 0 / 1 / 2, 128 balanced strings per length; the full table is in README,
"The upper-bound rows, as an experiment"): in 300 steps neither hard model fits even its training
lengths (PARITY's final loss stays near chance, ``ln 2 = 0.69``: 0.67-0.69; Dyck-1's 0.53-0.62,
accuracy 0.58-0.66 at lengths 8 and 16); the softmax model fits Dyck-1 in range (1.00 at length 8)
and breaks beyond it (0.46-0.76 from length 64); nothing learns PARITY (0.42-0.63 everywhere);
soft-then-hard is near chance (0.43-0.52); the constructions are right (1.00) at every length. The
average-hard and leftmost-hard Dyck-1 models end at the same rule ("member iff the last symbol is
``)``"). None of this is evidence for or against Hahn's theorem, which is about every parameter
setting at unbounded length: a hard model that fails to fit lengths 4-16 failed in the optimizer.
"""

from __future__ import annotations

from transformer_theory.papers.formal_languages.generalization import (
    GeneralizationConfig,
    run,  # noqa: F401 (run by name)
)

__all__ = ["SIZES", "get_config", "run"]

SIZES = ("smoke", "default")


def get_config(size: str = "default") -> GeneralizationConfig:
    """The experiment at ``size``: ``"default"`` (what README quotes: 300 Adam steps of 32
    strings, seed 0, two layers of two heads) or ``"smoke"`` (two steps of the one-head model,
    Dyck-2's softmax model only, one length; a few seconds)."""
    if size == "default":
        return GeneralizationConfig(
            steps=4000,
            batch=32,
            learning_rate=3e-3,
            schedule="cosine",
            final_temperature=0.03,
            hard_fraction=0.2,
            width=32,
            layers=4,
            positional=(("dyck1", "chiang_cholak"),),
        )
    if size == "smoke":
        # One training (the straight-through loop has its own smoke test in
        # tests/papers/formal_languages/test_hard_training.py).
        return GeneralizationConfig(
            size="smoke",
            modes=(("dyck2", ("softmax",)),),
            seeds=(0,),
            steps=2,
            batch=8,
            train_lengths=(4,),
            eval_lengths=(4,),
            samples=8,
            small=True,
        )
    raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")
