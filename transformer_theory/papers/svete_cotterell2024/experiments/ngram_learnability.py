"""Can a small transformer LEARN an n-gram LM? KL per symbol of a trained softmax LM.

The KL of a trained one-layer softmax transformer against ``n``, ``|Sigma|`` and the rank of the
LM (Svete & Cotterell 2024's follow-up question), beside the exact construction of Theorem 3.1
and the unigram fit (:mod:`transformer_theory.papers.svete_cotterell2024._models`; the KL by
:func:`transformer_theory.papers.svete_cotterell2024._theory_soft.kl_first_outcomes`, exhaustive).

Command (this machine, 2 CPU cores shared with other jobs; ``--size smoke`` for the test)::

    python experiments/ngram_learnability.py --out results/ngram_learnability
    # or: transformer-theory experiment ngram_learnability --out results/ngram_learnability

writes ``ngram_learnability.json`` (``rows``: one per cell, rewritten after each; ``seconds``;
``config``). It took 4 min 46 s (2026-11-22, shared with other jobs) and gave the KL divergence
per symbol over the first 7 outcomes::

    | n | |Sigma| | LM rank | trained | unigram fit | construction (3.1) |
    |---|---|---|---|---|---|
    | 2 | 2 | full | 0.0015 | 0.1110 | 0 (to 1e-16) |
    | 2 | 2 | 1 | 0.0010 | 0.0149 | 0 |
    | 2 | 4 | full | 0.0073 | 0.1488 | 0 |
    | 2 | 4 | 1 | 0.0017 | 0.1628 | 0 |
    | 3 | 2 | full | 0.0125 | 0.1637 | 0 |
    | 3 | 2 | 1 | 0.0158 | 0.0946 | 0 |
    | 3 | 4 | full | 0.0282 | 0.1790 | 0 |
    | 3 | 4 | 1 | 0.0175 | 0.3147 | 0 |

"full" = Dirichlet rows; 1 = rank-1 logits (scale 3) through a softmax. 600 Adam steps (lr 3e-3) of
64 sampled strings (up to 8 symbols) each, width V + 2(n-1) + 16, MLP 4 V^(n-1). The trained models
learn most of what the history carries (KL 4-100x below the unigram fit) but stay 1e-3..3e-2 nats
per symbol away, more so as n and ``|Sigma|`` grow (more histories to learn from the same
samples); the rank-1 LMs are easier than full-rank ones at ``|Sigma| = 4``, not at
``|Sigma| = 2, n = 3`` -- one seed per cell, so differences below ~2x are not resolved.

Re-run on 2026-11-25 after the training loop became :func:`transformer_theory.train.fit` (the same
Adam, samples and steps): the same table to the four digits above, in 58 s (2 cores, less busy).

``"smoke"``: one cell (n = 2, ``|Sigma|`` = 2, Dirichlet rows), 5 steps of 8 strings, KL over the
first 2 outcomes; under a minute.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.settings import check_minimums, setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = ["SIZES", "LearnabilitySettings", "get_config"]

SIZES = ("smoke", "default")


@dataclasses.dataclass(frozen=True)
class LearnabilitySettings:
    """The learnability grid.

    Attributes:
      size: the name :func:`get_config` gave it.
      grid: ``(order, alphabet, rank)`` cells; ``rank`` None for Dirichlet rows.
      steps: Adam steps per model.
      batch: sampled strings per step.
      eval_len: the KL is over the first ``eval_len + 1`` outcomes; strings are sampled up to
        ``eval_len + 2`` symbols.
      learning_rate: Adam's step size.
      width_extra: residual width beyond ``V + 2 (n - 1)``.
      hidden_per_history: MLP units per ``V^(n-1)``.
      scale: the logit scale of the low-rank LMs.
      seed: seed of the LMs, the initialization and the samples.
    """

    size: str = setting("default", option=False)
    grid: tuple[tuple[int, int, int | None], ...] = setting(
        tuple((n, S, rank) for n in (2, 3) for S in (2, 4) for rank in (None, 1)), option=False
    )
    steps: int = setting(600, positive=True)
    batch: int = setting(64, positive=True)
    eval_len: int = setting(6, minimum=0)
    learning_rate: float = setting(3e-3, positive=True)
    width_extra: int = setting(16, minimum=0)
    hidden_per_history: int = setting(4, positive=True)
    scale: float = setting(3.0, positive=True)
    seed: int = 0

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        check_minimums(self)  # the bounds declared beside the fields
        for order, alphabet, _ in self.grid:
            if order < 2 or alphabet < 1:
                raise ValueError(f"grid: expected n >= 2 and |Sigma| >= 1, got {order, alphabet}")


def get_config(size: str = "default") -> LearnabilitySettings:
    """The config of ``size`` (:data:`SIZES`): ``"default"`` is the run quoted above,
    ``"smoke"`` a few steps of one cell (the test)."""
    if size == "default":
        return LearnabilitySettings()
    if size == "smoke":
        return dataclasses.replace(
            LearnabilitySettings(), size="smoke", grid=((2, 2, None),), steps=5, batch=8, eval_len=1
        )
    raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")
