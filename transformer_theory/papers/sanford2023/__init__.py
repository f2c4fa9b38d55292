"""Sanford, Hsu & Telgarsky 2023, "Representational Strengths and Limitations of Transformers":
q-sparse averaging (qSA) and its restricted-isometry numerics, Match2 and Match3, and the trained
separations against fully connected and recurrent networks.

Modules:

- :mod:`.tasks`: qSA, Match2 and Match3 inputs with exact targets; the Match task registry.
- :mod:`.rip`: the Rademacher matrix ``U`` and its restricted isometry / orthogonality constants.
- :mod:`.qsa`: the qSA unit (Theorem 2): the vectors ``w_y``, the weights, the exact worst error.
- :mod:`.match2`: the Match2 unit (Theorem 6).
- :mod:`.match3`: the Match3Bigram (depth 2) and Match3Local (one layer) units.
- :mod:`.disjointness`: the qSA lower bound's reduction from set disjointness, the one-way
  protocol with the unit's query quantized to ``p`` bits, and where Match3's bound binds.
- :mod:`.layers`: the softmax+MLP layer and the forward pass the units share.
- :mod:`.registry`: the checked units by name (sizes, build, apply, cost, exact scale).
- :mod:`.checks`: records of each construction checked (errors, RIP constants, exactness).
- :mod:`.study`: the study of ``transformer-theory sanford`` (settings in, records out).
- :mod:`.separations`: the trained qSA separations (attention against FNN and RNN).
- :mod:`.match_training`: one trained softmax layer on Match2 / Match3 against its width.
- :mod:`.networks`: the small Flax NNX networks the separations train.
- :mod:`.plots`: the figures of the study and of the trained experiments.
- :mod:`.configs`: the trained experiments' configs (``get_config(size)``).
- :mod:`.claims`: the paper's statements in the claims ledger (``transformer-theory claims``).
"""

__all__ = [
    "checks",
    "claims",
    "configs",
    "disjointness",
    "layers",
    "match2",
    "match3",
    "match_training",
    "networks",
    "plots",
    "qsa",
    "registry",
    "rip",
    "separations",
    "study",
    "tasks",
]
