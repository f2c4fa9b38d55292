"""tracr's RASP without tracr: a program written against tracr (Lindner et al. 2023) as
``from tracr.rasp import rasp`` runs here with one changed import,
``from transformer_theory.rasp.tracr import rasp``, and compiles with this library's compiler
(``from transformer_theory.rasp.tracr import compiling``;
:func:`~transformer_theory.rasp.tracr.compiling.compile_rasp_to_model`).

:mod:`.rasp` has tracr's names and behaviour, written here from tracr's documented semantics
(``tracr/rasp/rasp.py`` at commit 9ce2b8c): expressions with annotations (``name``,
``encoding``), ``.named()`` / ``.annotated()`` returning annotated copies, the operators on SOps
(``tokens == "a"``, ``length - indices``, ``~sop``, ``sel & sel``), Maps combined as tracr combines
them, tracr's meaning of None (a Map or SequenceMap with a None argument is None; a comparison
with None raises) and its evaluation. Evaluation is THIS library's interpreter
(:func:`transformer_theory.rasp.evaluate`) on the program translated by
:func:`transformer_theory.rasp._tracr.from_tracr`, so the meaning that is compiled is the one
evaluated; numbers a mean makes are returned as floats, as tracr's interpreter returns them.
"""

from transformer_theory.rasp.tracr import compiling, rasp

__all__ = ["compiling", "rasp"]
