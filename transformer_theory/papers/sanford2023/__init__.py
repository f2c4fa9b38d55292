"""Sanford, Hsu & Telgarsky 2023, "Representational Strengths and Limitations of Transformers":
q-sparse averaging (qSA) and its restricted-isometry numerics, Match2 and Match3, and the trained
separations against fully connected and recurrent networks.

Modules:

- :mod:`.tasks`: qSA, Match2 and Match3 inputs with exact targets.
- :mod:`.constructions`: the qSA, Match2, Match3Bigram and Match3Local weights.
- :mod:`.checks`: records of each construction checked (errors, RIP constants, exactness).
- :mod:`.separations`: the trained separations (attention against FNN and RNN).
- :mod:`.networks`: the small Flax NNX networks the separations train.
"""

__all__ = ["checks", "constructions", "networks", "separations", "tasks"]
