"""The trained experiments of Peng, Narayanan & Papadimitriou 2024, one config module each, with
``get_config(size)`` (sizes ``"smoke"`` and ``"default"``) and, in its docstring, the command, what
it writes, how long it took and what it gave:

- :mod:`.composition_depth`: one- and two-layer transformers fake-quantized to ``p`` bits;
- :mod:`.composition_one_layer`: the library's parameter format, evaluated in float32 and bfloat16;
- :mod:`.composition_cot`: chain of thought (Theorem 2), the steps one-layer models need;
- :mod:`.composition_bound`: Theorem 1 made informative: one recipe that learns ``g(f(x))`` in one
  pass where the bound is void, run where ``R > 0``;
- :mod:`.composition_one_pass`: Theorem 1 with models that learn (pair-token prompts, an
  auxiliary curriculum, head outputs rounded to ``p`` bits), beside the hand-built exact model.
"""

__all__ = [
    "composition_bound",
    "composition_cot",
    "composition_depth",
    "composition_one_layer",
    "composition_one_pass",
]
