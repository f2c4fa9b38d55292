"""transformer_theory: make the theory of what transformers of each depth can compute checkable.

The spine (Chen & Zou 2024), in pipeline order:

- :mod:`~transformer_theory.core`: pure math on one example (attention, masks, norms, positional
  codes, layers, the forward pass, the efficient-attention kernels, beam search);
- :mod:`~transformer_theory.params`: model configs and parameters (plain pytrees);
- :mod:`~transformer_theory.tasks`: the four tasks' datasets, exhaustive by index;
- :mod:`~transformer_theory.theory` and :mod:`~transformer_theory.constructions`: Definitions
  2-3, Propositions 7-10, certificates, witnesses; the weights of Theorems 1, 3, 5, 6;
- :mod:`~transformer_theory.nn` and :mod:`~transformer_theory.train`: Flax NNX modules and the
  Optax runner (:func:`~transformer_theory.train.fit` for small models);
- :mod:`~transformer_theory.sweeps`: runs, resumes and sweeps experiment configs;
- :mod:`~transformer_theory.rasp`: RASP programs compiled into the one parameter format and
  checked on every input;
- :mod:`~transformer_theory.cli`: the ``transformer-theory`` commands (parse and print only).

Beside the spine, one package per companion paper: :mod:`~transformer_theory.papers`. Above
both, the claims ledger :mod:`~transformer_theory.claims` (every statement of the papers, checked
by one command, open to any researcher's package), built on :mod:`~transformer_theory.ledger`
(what a claim is and the rule that derives its status), :mod:`~transformer_theory.domains` (the
sets a statement quantifies over, as objects that know their size and enumerate their elements)
and :mod:`~transformer_theory.exact` (the one exact engine: any model in rationals or arb balls).

Shared helpers, one each: :mod:`~transformer_theory.settings` (settings dataclasses that make
their own command-line options), :mod:`~transformer_theory.precision` (formats, significand bits,
fake quantization, the 64-bit switch for entry points), :mod:`~transformer_theory.jsonio`
(strict atomic JSON and CSV, typed records written and read back),
:mod:`~transformer_theory.tables` (the one table writer, text and Markdown),
:mod:`~transformer_theory.plotting` (the matplotlib backend, saving, panels),
:mod:`~transformer_theory.saveload` (datasets and models on disk),
:mod:`~transformer_theory.verify_outputs` (the studies of ``verify`` and ``certify``, and what
``verify`` and ``certify`` print and write),
:mod:`~transformer_theory.budget` (memory and time estimates checked before long work),
:mod:`~transformer_theory.parallel`
(device sharding), :mod:`~transformer_theory.glossary` (shape letters),
:mod:`~transformer_theory.progress` (the one progress bar).
"""

from transformer_theory import core, params  # noqa: F401
from transformer_theory.core import forward, forward_trace  # noqa: F401
from transformer_theory.params import ModelConfig, ModelParams, init_params, init_params_batch  # noqa: F401

__version__ = "0.1.0"

__all__ = [
    "ModelConfig",
    "ModelParams",
    "core",
    "forward",
    "forward_trace",
    "init_params",
    "init_params_batch",
    "params",
    "__version__",
]
