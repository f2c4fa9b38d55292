"""Svete & Cotterell 2024, "Transformers Can Represent n-gram Language Models": the constructions of
Theorems 3.1-3.3 and the library's variants, checked for weak equivalence and precision.

Modules:

- :mod:`.tasks`: n-gram language models (random, exact probabilities).
- :mod:`.constructions`: Theorems 3.1, 3.2, 3.3 as the paper builds them, and the variants
  3.2-direct and 3.3-slots.
- :mod:`.checks`: weak equivalence on every string, the precision scan, softmax's KL.
- :mod:`.study`: the study of ``transformer-theory ngram`` (settings in, records out, written to
  ``ngram.json``), callable from Python.
- :mod:`.plots`: the study's figures.
"""

__all__ = ["checks", "constructions", "plots", "study", "tasks"]
