"""Conti 2024's trained experiments, one config module each (the experiment convention).

- :mod:`.encdec_translation`: the encoder-decoder on the synthetic translation grammar (one head
  against eight, §3.1): decoding, beams and heads.

Each module's ``get_config(size)`` returns the experiment's frozen config (sizes ``"smoke"`` and
``"default"``); its docstring gives the command, what it writes, how long it takes and the result.
"""

__all__ = ["encdec_translation"]
