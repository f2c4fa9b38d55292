"""The experiments of Svete & Cotterell 2024, one module each, with its settings (a frozen
dataclass), ``get_config(size)`` (sizes ``"smoke"`` and ``"default"``),
``run(config, out_dir, *, progress=True)`` and, in its docstring, the command, what it writes, how
long it took and what it gave:

- :mod:`.ngram_exactness`: the study of ``transformer-theory ngram`` (:class:`~.NGramSettings`,
  :func:`~.run_ngram`; ``--space``: :class:`~.SpaceSettings`, :func:`~.run_space`) and the runs
  README quotes (weak equivalence, longest exact length per precision, softmax's beta against the
  KL).
- :mod:`.ngram_learnability`: can a small softmax transformer learn a random n-gram LM? KL per
  symbol against ``n``, ``|Sigma|`` and the LM's rank, beside the exact construction and a
  unigram fit.
"""

__all__ = ["ngram_exactness", "ngram_learnability"]
