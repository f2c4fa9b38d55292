"""The experiments of Svete & Cotterell 2024, one config module each, with ``get_config(size)``
(sizes ``"smoke"`` and ``"default"``), ``run(config, out_dir, *, progress=True)`` and, in its
docstring, the command, what it writes, how long it took and what it gave:

- :mod:`.ngram_exactness`: the ``transformer-theory ngram`` runs README quotes (weak equivalence,
  longest exact length per precision, softmax's beta against the KL).
- :mod:`.ngram_learnability`: can a small softmax transformer learn a random n-gram LM? KL per
  symbol against ``n``, ``|Sigma|`` and the LM's rank, beside the exact construction and a
  unigram fit.
"""

__all__ = ["ngram_exactness", "ngram_learnability"]
