"""The companion papers, one package each, built on the spine (core, params, tasks, constructions,
theory, nn, train) of Chen & Zou 2024.

A paper's package imports the spine and never another paper's private names; the spine never
imports a paper (``tests/test_layout.py`` enforces both).

- :mod:`.chen_zou2024`: Chen & Zou 2024's own claims (the spine is its pipeline).
- :mod:`.sanford2023`: Sanford, Hsu & Telgarsky 2023 (q-sparse averaging, Match2 / Match3).
- :mod:`.peng2024`: Peng, Narayanan & Papadimitriou 2024 (function composition).
- :mod:`.svete_cotterell2024`: Svete & Cotterell 2024 (n-gram language models).
- :mod:`.formal_languages`: the formal-language table of Strobl et al. 2024.
- :mod:`.barbero2024`: Barbero et al. 2024 (representational collapse, over-squashing).
- :mod:`.conti2024`: Conti 2024 (efficient attention, head kinds, the encoder-decoder).
"""

__all__ = [
    "barbero2024",
    "chen_zou2024",
    "conti2024",
    "formal_languages",
    "peng2024",
    "sanford2023",
    "svete_cotterell2024",
]
