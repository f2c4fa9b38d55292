"""Pure math on one example: attention weights and masks, norms, positional codes, layers, forward.

``vmap`` and ``jit`` happen at the call site. Layout: row-major ``H_NxD`` (one row per token);
seed 003 writes the transpose ``H: (d', n)``.
"""

from transformer_theory.core import attention, masks, norms, positional  # noqa: F401
from transformer_theory.core.forward import ForwardTrace, embed, forward, forward_trace, last_hidden, predict  # noqa: F401
from transformer_theory.core.layers import attention_layer, attention_scores  # noqa: F401
