"""Dataset generators for the four tasks of Chen & Zou 2024, §4 (memorization, reasoning,
generalization, contextual generalization), exhaustive by index (chunks produced independently on
device) or sampled.

Token layout of every task: symbols / questions first, then answer tokens (in-context tasks), and
the response sign / CLS ``r`` always LAST (``vocab_size - 1``). Labels are 0-based class indices;
the pretty-printer :meth:`Task.describe` shows them 1-based as in Chen & Zou 2024, Table 1.

Every task (a frozen, hashable dataclass) has ``vocab_size``, ``seq_len``, ``num_classes``, the
exact ``size`` (a Python int), ``tokens_and_labels(indices_B)`` (jit/vmap-traceable unranking),
``chunks(chunk_size, start, stop)``, ``all(limit)``, ``sample(key, num)``,
``model_config(heads, width)``, ``embed(tokens_N)`` (Chen & Zou 2024, eq. 3),
``describe(tokens_N, label)`` and ``summary()`` / ``str()``.

Modules:

- :mod:`.sequence_classification`: :class:`SequenceClassification`, memorization, §4.1.
- :mod:`.in_context_qa`: :class:`InContextQA`, reasoning, §4.2, ``A(n_q,k)·A(n_a,k)·k`` examples.
- :mod:`.template_matching`: :class:`TemplateMatching`, generalization, §4.3 / Definition 1;
  :func:`all_templates`.
- :mod:`.in_context_template_matching`: :class:`InContextTemplateMatching`, contextual
  generalization, §4.4 (made precise in its module).
- :mod:`.toy`: the fixed toy sets of §8 Table 1, §11 and §13.1.
- :mod:`.unrank`: index -> combinatorial object (the exhaustive enumeration by index).

The companion papers' tasks live in their packages (:mod:`transformer_theory.papers`).
"""

from transformer_theory.tasks import toy  # noqa: F401
from transformer_theory.tasks._base import Task, describe_tokens  # noqa: F401
from transformer_theory.tasks.in_context_qa import InContextQA  # noqa: F401
from transformer_theory.tasks.in_context_template_matching import (  # noqa: F401
    InContextTemplateMatching,
    ictm_size,
)
from transformer_theory.tasks.sequence_classification import SequenceClassification  # noqa: F401
from transformer_theory.tasks.template_matching import TemplateMatching, all_templates, canonical  # noqa: F401

__all__ = [
    "InContextQA",
    "InContextTemplateMatching",
    "SequenceClassification",
    "Task",
    "TemplateMatching",
    "all_templates",
    "canonical",
    "describe_tokens",
    "ictm_size",
    "toy",
]
