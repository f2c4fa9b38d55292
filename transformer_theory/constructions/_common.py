"""Shared plumbing of the constructions: embedding offsets, dtype checks, assembling
``ModelParams``.

Every construction writes its matrices in float64 NumPy in the paper's convention
(``W_QK[key coordinate, query coordinate]``, ``W_V[out, in]``, ``W_O[class, coordinate]``) and
converts once here. The residual stream of Chen & Zou 2024, eq. 3 has the token one-hot in
coordinates
``[0, d)``, the one-hot position in ``[d, d + n)`` and zero padding in ``[d + n, d')``.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike, DTypeLike

from transformer_theory.core.forward import last_hidden
from transformer_theory.params import AttentionParams, LayerParams, ModelConfig, ModelParams
from transformer_theory.precision import require_x64


def check_dtype(dtype: DTypeLike) -> None:
    """``ValueError`` naming ``dtype`` unless it is a float dtype that JAX can actually hold."""
    if not jnp.issubdtype(dtype, jnp.floating):
        raise ValueError(f"dtype: expected a floating dtype, got {dtype}")
    if jnp.dtype(dtype) == jnp.float64:
        # the constructions are verified with exact-looking float64 margins
        require_x64("dtype")


def check_task(name: str, task: object, kind: type, **expected: object) -> None:
    """``ValueError`` naming ``name`` unless ``task`` is a ``kind`` with every attribute in
    ``expected``."""
    if not isinstance(task, kind):
        raise ValueError(f"{name}: expected a {kind.__name__}, got {type(task).__name__}")
    for attr, want in expected.items():
        got = getattr(task, attr, None)
        if got != want:
            raise ValueError(
                f"{name}.{attr}: the construction expects {want} for this task layout, got {got}"
            )


def assemble(
    config: ModelConfig,
    layers: Sequence[tuple[np.ndarray, np.ndarray]],
    w_o: np.ndarray,
    dtype: DTypeLike,
) -> ModelParams:
    """``ModelParams`` from per-layer ``(w_qk_HxDxD, w_v_HxDxD)`` NumPy arrays and ``w_o_CxD``."""
    check_dtype(dtype)
    out = []
    for w_qk, w_v in layers:
        out.append(
            LayerParams(
                attn=AttentionParams(w_v=jnp.asarray(w_v, dtype), w_qk=jnp.asarray(w_qk, dtype))
            )
        )
    return ModelParams(layers=tuple(out), w_o=jnp.asarray(w_o, dtype), config=config)


def construction_config(
    vocab_size: int, seq_len: int, width: int, num_classes: int, heads: Sequence[int]
) -> ModelConfig:
    """The architecture of every Chen & Zou 2024 construction: ReLU attention, bidirectional,
    one-hot
    positions, heads averaged (eq. 2's ``1/m``), no norms, no MLP."""
    return ModelConfig(
        vocab_size=vocab_size,
        seq_len=seq_len,
        width=width,
        num_classes=num_classes,
        heads=tuple(heads),
        attention="relu",
        causal=False,
        head_mean=True,
        positional="onehot",
    )


# One compiled function for all constructions (jit caches on the params' config and shapes).
_last_streams = jax.jit(jax.vmap(last_hidden, in_axes=(None, 0)))


def last_streams(params: ModelParams, tokens_BxN: ArrayLike) -> np.ndarray:
    """Float64 last-token streams ``h^(L)_{n-1}`` of a batch (the features Lemma 3 is fit on)."""
    return np.asarray(_last_streams(params, jnp.asarray(tokens_BxN)))
