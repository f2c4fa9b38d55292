"""Pure math on one example: attention weights and masks, norms, positional codes, layers, forward.

``vmap`` and ``jit`` happen at the call site. Layout: row-major ``H_NxD`` (one row per token);
Chen & Zou 2024 writes the transpose ``H: (d', n)``.

Modules: :mod:`attention` (weights from scores, general kernel attention), :mod:`kernels` (score
kernels ``k(q, k, p_ij)`` and feature maps), :mod:`masks` (causal, padding, sparse, constrained),
:mod:`linear` (linear attention, Taylor, Linformer), :mod:`norms`, :mod:`positional`,
:mod:`layers` and :mod:`forward` (Chen & Zou 2024 / Barbero et al. 2024 model), :mod:`encdec` (Conti
2024 Post-LN blocks), :mod:`blocked` (Longformer / BigBird sparse attention block by block),
:mod:`random_features` (positive random features for the softmax kernel), :mod:`beam` (beam-search
decoding).
"""

from transformer_theory.core import attention, encdec, kernels, linear, masks, norms, positional  # noqa: F401
from transformer_theory.core.attention import (  # noqa: F401
    attention_weights,
    dot_product_attention,
    hard_weights,
    kernel_attention,
    relu_weights,
    softmax_jacobian,
    softmax_weights,
    sparsemax_weights,
)
from transformer_theory.core.encdec import (  # noqa: F401
    DecoderBlockParams,
    EncoderBlockParams,
    MultiHeadParams,
    Seq2SeqParams,
    decoder_block,
    encoder_block,
    greedy_decode,
    init_decoder_block,
    init_encoder_block,
    init_seq2seq,
    multi_head_attention,
    seq2seq_logits,
)
from transformer_theory.core.forward import (  # noqa: F401
    ForwardTrace,
    embed,
    forward,
    forward_all,
    forward_trace,
    last_hidden,
    lm_inputs,
    lm_log_prob,
    lm_log_probs,
    output_logits,
    predict,
)
from transformer_theory.core.kernels import (  # noqa: F401
    AlibiKernel,
    DotKernel,
    RelativeBiasKernel,
    RopeKernel,
    kernel_scores,
)
from transformer_theory.core.layers import attention_layer, attention_scores  # noqa: F401
from transformer_theory.core.linear import (  # noqa: F401
    linear_attention,
    linear_attention_quadratic,
    linformer_attention,
    taylor_attention,
)

from transformer_theory.core import blocked, random_features  # noqa: F401  # isort: skip

__all__ = [
    "AlibiKernel",
    "DecoderBlockParams",
    "DotKernel",
    "EncoderBlockParams",
    "ForwardTrace",
    "MultiHeadParams",
    "RelativeBiasKernel",
    "RopeKernel",
    "Seq2SeqParams",
    "attention",
    "attention_layer",
    "attention_scores",
    "attention_weights",
    "blocked",
    "decoder_block",
    "dot_product_attention",
    "embed",
    "encdec",
    "encoder_block",
    "forward",
    "forward_all",
    "forward_trace",
    "greedy_decode",
    "hard_weights",
    "init_decoder_block",
    "init_encoder_block",
    "init_seq2seq",
    "kernel_attention",
    "kernel_scores",
    "kernels",
    "last_hidden",
    "linear",
    "linear_attention",
    "linear_attention_quadratic",
    "linformer_attention",
    "lm_inputs",
    "lm_log_prob",
    "lm_log_probs",
    "masks",
    "multi_head_attention",
    "norms",
    "output_logits",
    "positional",
    "predict",
    "random_features",
    "relu_weights",
    "seq2seq_logits",
    "softmax_jacobian",
    "softmax_weights",
    "sparsemax_weights",
    "taylor_attention",
]
