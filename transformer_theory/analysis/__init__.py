"""Measurements that read models and return records of data (no plotting in the mathematics).

- :mod:`.collapse`: representational collapse (Barbero et al. 2024, §4): the distance between the
  final last-token representations of a sequence and the same sequence with its last token
  repeated, by length and by precision (float64, float32, bfloat16), the first bit-identical
  length, and the ``1/n`` rate derived from the model.
- :mod:`.oversquash`: over-squashing (Barbero et al. 2024, §5): the sensitivities
  ``||dy_n / dv_i||`` through ``jax.jacrev``, the attention-path products
  ``Lambda^(L) ... Lambda^(1)``, the path counts of the all-causal graph, and a certified
  product-of-attention upper bound on the sensitivities.
- :mod:`.activations`: what the analyses read from a model -- every head's attention maps and its
  queries, keys and values (Chen & Zou 2024's depth models and Conti 2024's encoder-decoder).
- :mod:`.heads`: positional / syntactic / rare-token heads by the L1 projection of Conti 2024,
  §3.1.2, with the residual as the score.
- :mod:`.efficient`: efficient attention (Conti 2024, §2.1) against exact attention -- output error
  as a function of the budget, time and memory as a function of the sequence length.
- :mod:`.sanford`: the records of the Sanford, Hsu & Telgarsky 2023 constructions (q-sparse
  averaging's error and restricted-isometry constants, Match2/Match3 checks).
- :mod:`.ngram`: Svete & Cotterell 2024's constructions checked -- weak equivalence on every
  string, the precision scan (every length it certifies is run), softmax attention's KL.
- :mod:`.languages`: the formal-language recognizers' records (Strobl et al. 2024's table): every
  short string, balanced samples, margins by length and PARITY's by precision.
- :mod:`.hard_training`: transformers trained *with* hard attention (straight-through: the forward
  pass leftmost-/average-hard, the backward pass softmax's), for Hahn 2020's rows.
- :mod:`.separations`: the trained separations of Sanford et al. 2023 and Peng et al. 2024.
- :mod:`.plots`: figures drawn from those records (the only module here that imports matplotlib).

Array names carry their shapes in the letters of :mod:`transformer_theory.glossary`.
"""

from transformer_theory.analysis import collapse, oversquash  # noqa: F401
