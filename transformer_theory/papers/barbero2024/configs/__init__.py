"""The trained experiment of Barbero et al. 2024, one config module, with ``get_config(size)``
(sizes ``"smoke"`` and ``"default"``) and, in its docstring, the command, what it writes, how long
it took and what it gave:

- :mod:`.collapse_tasks`: copy-first, copy-last and count-ones trained short and evaluated long
  at every precision, with and without separators.
"""

__all__ = ["collapse_tasks"]
