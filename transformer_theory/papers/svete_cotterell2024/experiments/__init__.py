"""The experiments of Svete & Cotterell 2024, one module each, with its settings (a frozen
dataclass), ``get_config(size)`` (sizes ``"smoke"`` and ``"default"``),
``run(config, out_dir, *, progress=True)`` and, in its docstring, the command, what it writes, how
long it took and what it gave:

- :mod:`.ngram`: one run of ``transformer-theory ngram`` (:class:`~.ngram.NGramSettings`; the
  study :func:`.._study_ngram.run`).
- :mod:`.ngram_space`: the size table of ``transformer-theory ngram --space``
  (:class:`~.ngram_space.SpaceSettings`; the study :func:`.._study_ngram_space.run`).
- :mod:`.ngram_exactness`: the runs of ``transformer-theory ngram`` README quotes (weak
  equivalence, longest exact length per precision, softmax's beta against the KL).
- :mod:`.ngram_learnability`: can a small softmax transformer learn a random n-gram LM? KL per
  symbol against ``n``, ``|Sigma|`` and the LM's rank, beside the exact construction and a
  unigram fit.
"""

__all__ = ["ngram", "ngram_exactness", "ngram_learnability", "ngram_space"]
