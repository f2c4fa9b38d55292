"""Peng, Narayanan & Papadimitriou 2024, "On Limitations of the Transformer Architecture": function
composition and the one-layer error bound of Theorem 1.

Modules:

- :mod:`.tasks`: function-composition prompts with exact answers, and Theorem 1"s bound.
"""

__all__ = ["tasks"]
