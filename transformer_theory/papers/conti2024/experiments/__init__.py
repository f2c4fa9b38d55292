"""Conti 2024's experiments, one module each: its settings (a frozen dataclass),
``get_config(size)`` (sizes ``"smoke"`` and ``"default"``) and ``run(config, out_dir, *,
progress=True)``; its docstring gives the command, what it writes, how long it takes and the
result.

- :mod:`.efficient_attention`: efficient attention's cost against ``n`` and error against its
  budget (§2.1), and Linformer's random projection (``jl``): the command ``efficient-attention``.
- :mod:`.heads`: every head of trained models classified (§3.1.2): the command ``heads``.
- :mod:`.encdec_translation`: the encoder-decoder on the synthetic translation grammar (one head
  against eight, §3.1): decoding, beams and heads.
"""

__all__ = ["efficient_attention", "encdec_translation", "heads"]
