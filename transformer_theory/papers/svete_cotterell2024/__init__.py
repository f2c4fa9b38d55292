"""Svete & Cotterell 2024, "Transformers Can Represent n-gram Language Models": the constructions of
Theorems 3.1-3.3 and the library's variants, checked for weak equivalence and precision, and a
trained model's distance from the n-gram it learns.

Modules, in reading order:

- :mod:`.tasks`: n-gram language models (random, exact probabilities, samples).
- :mod:`.layout`: what every construction shares (the residual stream's blocks, the unit code
  ``u`` and its score gap, the AND units, the construction interface).
- :mod:`.constructions`: Theorems 3.1, 3.2, 3.3 as the paper builds them, and ``build(lm, name)``
  over the registry of all four ``ModelParams`` constructions.
- :mod:`.variants`: this library's variants 3.2-direct and 3.3-slots (not the paper's).
- :mod:`.equivalence`: weak equivalence, ``log q(y)`` against ``log p(y)`` on every string.
- :mod:`.precision_scan`: how long each construction stays exact in a float format
  (measured at every length, and derived).
- :mod:`.space`: each construction's size counted on the built model (width, heads, parameters,
  non-zeros, bits per weight) against closed forms in ``n`` and ``|Sigma|`` (Theorem 5.1's topic).
- :mod:`.soft`: softmax attention's KL from the n-gram, and the ``beta`` a target KL needs.
- :mod:`.study`: the study of ``transformer-theory ngram`` (settings in, records out, written to
  ``ngram.json``), callable from Python.
- :mod:`.plots`: the study's figures.
- :mod:`.learnability`: training a small transformer on samples of an n-gram LM (the trained
  experiment), run from :mod:`.configs`.
- :mod:`.configs`: the trained experiment's config module (``get_config(size)``).
- :mod:`.checks`: the checks behind the claims, each returning what it computed, in which
  arithmetic and over which inputs (:class:`transformer_theory.ledger.Checked`).
- :mod:`.claims`: the paper's statements in the claims ledger (``transformer-theory claims
  --paper svete_cotterell2024``), each with its check and status.
"""

__all__ = [
    "checks",
    "claims",
    "configs",
    "constructions",
    "equivalence",
    "layout",
    "learnability",
    "plots",
    "precision_scan",
    "soft",
    "space",
    "study",
    "tasks",
    "variants",
]
