"""Svete & Cotterell 2024, "Transformers Can Represent n-gram Language Models": the constructions of
Theorems 3.1-3.3 and the library's variants, checked for weak equivalence and precision, and a
trained model's distance from the n-gram it learns.

The public names below are what a reader of the paper calls; the modules behind them, in reading
order:

- :mod:`._tasks`: n-gram language models (random, exact probabilities, samples).
- :mod:`._constructions_layout`: what every construction shares (the residual stream's blocks,
  the unit code ``u`` and its ``score_gap``, the AND units, the construction interface).
- :mod:`._constructions`: Theorems 3.1, 3.2, 3.3 as the paper builds them, and
  ``build(lm, name)`` over the registry of all four ``ModelParams`` constructions (their names:
  ``CONSTRUCTIONS``).
- :mod:`._constructions_variants`: this library's variants 3.2-direct and 3.3-slots (not the
  paper's).
- :mod:`._constructions_run`: the built models run as LMs (``log q`` in float64, the paper's
  3.3's forward and decoded histories), the answers the checks below compare.
- :mod:`._theory_equivalence`: weak equivalence, ``log q(y)`` (``transformer_log_prob``) against
  ``log p(y)`` on every string.
- :mod:`._theory_precision`: how long each construction stays exact in a float format
  (measured at every length: ``selection_scan``, ``paper33_scan`` for the paper's 3.3; and
  derived: ``predicted_exact_length``).
- :mod:`._theory_space`: each construction's size counted on the built model (width, heads,
  parameters, non-zeros, bits per weight) against closed forms in ``n`` and ``|Sigma|``
  (Theorem 5.1's topic).
- :mod:`._theory_soft`: softmax attention's KL from the n-gram, and the ``beta`` a target KL needs.
- :mod:`._theory_cost`: the memory and time a study run needs, in closed forms.
- :mod:`._models`: the small transformer trained on samples of an n-gram LM, and the unigram fit.
- :mod:`._checks`: the checks behind the claims, each returning what it computed, in which
  arithmetic and over which inputs (:class:`transformer_theory.ledger.Checked`).
- :mod:`._plots`: the figures.
- :mod:`.claims`: the paper's statements in the claims ledger (``transformer-theory claims
  --paper svete_cotterell2024``), each with its check and status.
- :mod:`.experiments`: ``ngram`` (the settings of ``transformer-theory ngram``; its study
  :mod:`._study_ngram`: settings in, records out, ``ngram.json``), ``ngram_space`` (its
  ``--space`` size table, :mod:`._study_ngram_space`), ``ngram_exactness`` (the runs README
  quotes) and ``ngram_learnability`` (the trained experiment), each with ``get_config(size)`` and
  ``run``; the records are typed (:mod:`._records`).
"""

from transformer_theory.papers.svete_cotterell2024._constructions import (
    CONSTRUCTIONS,
    Paper33,
    build,
    build_paper33,
    score_gap,
)
from transformer_theory.papers.svete_cotterell2024._models import unigram_fit
from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM
from transformer_theory.papers.svete_cotterell2024._theory_equivalence import (
    equivalence_record,
    transformer_log_prob,
)
from transformer_theory.papers.svete_cotterell2024._theory_precision import (
    paper33_scan,
    predicted_exact_length,
    selection_scan,
)
from transformer_theory.papers.svete_cotterell2024._theory_soft import beta_for_kl, soft_kl
from transformer_theory.papers.svete_cotterell2024._theory_space import space_table

__all__ = [
    "CONSTRUCTIONS",
    "NGramLM",
    "Paper33",
    "beta_for_kl",
    "build",
    "build_paper33",
    "equivalence_record",
    "paper33_scan",
    "predicted_exact_length",
    "score_gap",
    "selection_scan",
    "soft_kl",
    "space_table",
    "transformer_log_prob",
    "unigram_fit",
]
