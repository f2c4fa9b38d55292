"""The trained experiment of Svete & Cotterell 2024, as a config module with ``get_config(size)``
(sizes ``"smoke"`` and ``"default"``) and, in its docstring, the command, what it writes, how
long it took and what it gave:

- :mod:`.learnability`: can a small softmax transformer learn a random n-gram LM? KL per symbol
  against ``n``, ``|Sigma|`` and the LM's rank, beside the exact construction and a unigram fit.

(The exactness runs that README quotes are ``transformer-theory ngram`` commands, listed in
``experiments/ngram_exactness.py``.)
"""

__all__ = ["learnability"]
