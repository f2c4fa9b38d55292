"""The experiments of Sanford, Hsu & Telgarsky 2023, one module each, with its settings,
``get_config(size)`` (sizes ``"smoke"`` and ``"default"``), ``run(config, out_dir)`` and, in its
docstring, the command, what it writes, how long it took and what it gave:

- :mod:`.sanford`: the checked constructions (qSA, Match2, Match3, the disjointness reduction),
  the study of ``transformer-theory sanford``;
- :mod:`.qsa_separation`: attention against a fully connected network and a GRU on qSA (float32);
- :mod:`.qsa_bits_attention`: the attention unit with its query rounded to ``p`` bits;
- :mod:`.qsa_bits_rnn`: the two-pass GRU with its state rounded to ``p`` bits;
- :mod:`.match_width`: one trained softmax layer on Match2 / Match3 against its width (also
  ``"large"``).
"""

__all__ = ["match_width", "qsa_bits_attention", "qsa_bits_rnn", "qsa_separation", "sanford"]
