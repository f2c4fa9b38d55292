"""The formal-language paper's experiments, one module per experiment; each module's docstring
gives the exact command, what it writes, how long it takes and the result it produced; its
settings class, ``get_config(size="default")`` (sizes ``"smoke"``, under a minute on 2 CPU cores,
and ``"default"``, what README quotes; another size raises ``ValueError``) and
``run(config, out_dir, *, progress=True)``.

- :mod:`.languages`: every row of the table the library builds (MAJORITY, PARITY, Dyck-1,
  Dyck-(k, D), SHUFFLE-DYCK-k, the counter languages) checked in float64, and PARITY's precision
  sweep -- what ``transformer-theory languages`` runs.
- :mod:`.dyck_k`: Dyck-(k, D) after Yao et al. 2021 -- the hard and softmax recognizers checked
  against a stack (k = 2, 3; D = 1-4) and their margin against ``n`` in float32 and float64.
- :mod:`.languages_generalization`: Hahn 2020's rows -- PARITY and Dyck-1 models trained with
  softmax and with hard attention (straight-through), evaluated at longer lengths beside the
  constructions.
"""

__all__ = ["dyck_k", "languages", "languages_generalization"]
