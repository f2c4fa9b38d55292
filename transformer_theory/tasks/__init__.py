"""Dataset generators for the four tasks of seed 003 §4 (memorization, reasoning, generalization,
contextual generalization), exhaustive by index (chunks produced independently on device) or sampled.

Token layout of every task: symbols / questions first, then answer tokens (in-context tasks), and the
response sign / CLS ``r`` always LAST (``vocab_size - 1``). Labels are 0-based class indices; the
pretty-printer :meth:`Task.describe` shows them 1-based as in seed 003 Table 1.
"""

from transformer_theory.tasks._base import Task, describe_tokens  # noqa: F401
from transformer_theory.tasks.in_context_qa import InContextQA  # noqa: F401
from transformer_theory.tasks.sequence_classification import SequenceClassification  # noqa: F401
from transformer_theory.tasks.template_matching import TemplateMatching, all_templates, canonical  # noqa: F401
from transformer_theory.tasks.in_context_template_matching import InContextTemplateMatching, ictm_size  # noqa: F401
from transformer_theory.tasks import toy  # noqa: F401
