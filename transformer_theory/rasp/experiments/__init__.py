"""The RASP compiler's experiments, one module each: its settings (a frozen dataclass) and
``get_config(size)`` (sizes ``"smoke"`` and ``"default"``); the study that runs it is
:func:`transformer_theory.papers.study_of`'s (``rasp._study_<name>``). The two beside tracr
(Lindner et al. 2023) need tracr, which is never a dependency of this library
(:data:`transformer_theory.rasp._tracr.INSTALL`); the scripts ``experiments/rasp_table.py`` and
``experiments/rasp_tracr.py`` read their configs and run them in tracr's own environment.

- :mod:`.program`: one program compiled and checked on every input (the ``rasp`` command).
- :mod:`.tracr_table`: per tracr library program, both compilers' sizes, this compiler's exact
  length by enumeration and by certificate, tracr's exact length at two constants (the table of
  ``docs/rasp.md``).
- :mod:`.tracr_differential`: tracr's library programs compiled by both compilers, both models
  and both interpreters on every input up to each program's length, and tracr's failure lengths.
"""

__all__ = ["program", "tracr_differential", "tracr_table"]
