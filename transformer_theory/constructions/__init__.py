"""Explicit weights from the proofs of Chen & Zou 2024 (§10, §12-§15), each a ``ModelParams`` with
ReLU, bidirectional attention and eq. 2's head mean, plus an exhaustive / sampled checker.

- :mod:`.attention`: Lemma 1 (instructive attention), Lemma 2 (constrained attention).
- :mod:`.classifier`: Lemma 3 (incremental linear classifier).
- :mod:`.memorization`: Lemma 4 and Theorem 1 (one layer, ``n`` heads).
- :mod:`.reasoning`: Theorem 3 (in-context QA, two layers, one head).
- :mod:`.templates`: Theorem 5 (template matching, two layers; single-head and ``n``-head).
- :mod:`.base3`: exact certificates that Theorem 5's single head in the paper's base 3 gives
  distinct templates distinct vectors (no proof is known for base 3).
- :mod:`.contextual`: Theorem 6 (in-context template matching, three layers, ``2l`` heads).
- :mod:`.check`: :func:`check_construction`.
- :mod:`.sizes`: the task sizes each theorem reads and a ``construct`` run's settings.
- :mod:`.cost`: a construction's dimensions, memory and template count (Bell numbers) from its
  sizes alone.
- :mod:`.study`: build and check each construction, one row of sizes and margins each
  (``transformer-theory construct``).

Where the printed proofs are wrong (PDF extraction or typos), the modules implement the corrected
construction, say what changed, and keep the literal version as ``*_as_printed``.
"""

from transformer_theory.constructions.attention import (  # noqa: F401
    constrained_attention,
    instructive_attention,
    masking_magnitude,
)
from transformer_theory.constructions.check import check_construction, margins  # noqa: F401
from transformer_theory.constructions.classifier import (  # noqa: F401
    exactly_parallel,
    lemma3_classifier,
    scores_margins,
)
from transformer_theory.constructions.contextual import theorem6, theorem6_as_printed  # noqa: F401
from transformer_theory.constructions.memorization import lemma4_layer, theorem1  # noqa: F401
from transformer_theory.constructions.reasoning import (  # noqa: F401
    theorem3,
    theorem3_as_printed,
    theorem3_printed_classifier,
)
from transformer_theory.constructions.templates import (  # noqa: F401
    template_code,
    theorem5,
    theorem5_as_printed,
)

__all__ = [
    "check_construction",
    "constrained_attention",
    "exactly_parallel",
    "instructive_attention",
    "lemma3_classifier",
    "lemma4_layer",
    "margins",
    "masking_magnitude",
    "scores_margins",
    "template_code",
    "theorem1",
    "theorem3",
    "theorem3_as_printed",
    "theorem3_printed_classifier",
    "theorem5",
    "theorem5_as_printed",
    "theorem6",
    "theorem6_as_printed",
]
