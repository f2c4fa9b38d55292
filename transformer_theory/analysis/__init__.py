"""Measurements that read models and return records of data (no plotting inside the mathematics).

- :mod:`.activations`: what the analyses read from a model -- every head's attention maps and its
  queries, keys and values (Chen & Zou 2024's depth models and Conti 2024's encoder-decoder);
- :mod:`.heads`: positional / syntactic / rare-token heads by the L1 projection of Conti 2024,
  §3.1.2, with the residual as the score;
- :mod:`.efficient`: efficient attention (Conti 2024, §2.1) against exact attention -- output error
  as a function of the budget, time and memory as a function of the sequence length;
- :mod:`.plots`: figures drawn from those records (matplotlib, imported only there).
"""
