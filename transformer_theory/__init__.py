"""transformer_theory: make the theory of what transformers of each depth can compute checkable.

Pipeline: ``core`` (pure math) -> ``tasks`` (datasets) -> ``theory`` and ``constructions``
-> ``nn``/``train`` (Flax NNX + Optax) -> ``analysis``. See README.md.
"""

from transformer_theory import core, params  # noqa: F401
from transformer_theory.core import forward, forward_trace  # noqa: F401
from transformer_theory.params import ModelConfig, ModelParams, init_params, init_params_batch  # noqa: F401

__version__ = "0.1.0"
