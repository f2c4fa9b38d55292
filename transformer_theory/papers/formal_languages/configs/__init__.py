"""The formal-language paper's experiment configs, one module per experiment; each module's
docstring gives the exact command, what it writes, how long it takes and the result it produced,
and its ``get_config(size="default")`` returns the frozen settings (sizes ``"smoke"``, under a
minute on 2 CPU cores, and ``"default"``, what README quotes; another size raises ``ValueError``).

- :mod:`.dyck_k`: Dyck-(k, D) after Yao et al. 2021 -- the hard and softmax recognizers checked
  against a stack (k = 2, 3; D = 1-4) and their margin against ``n`` in float32 and float64; run
  by :func:`transformer_theory.papers.formal_languages.dyck_k.run`.
- :mod:`.languages_generalization`: Hahn 2020's rows -- PARITY and Dyck-1 models trained with
  softmax and with hard attention (straight-through), evaluated at longer lengths beside the
  constructions; run by :func:`transformer_theory.papers.formal_languages.generalization.run`.
"""

__all__ = ["dyck_k", "languages_generalization"]
