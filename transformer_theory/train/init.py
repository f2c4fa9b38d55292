"""Initializations for training (Chen & Zou 2024, §9.1) and the first-layer patterns they use.

§9.1: "For the memorization task, we initialize W_QK with a uniform distribution in [0,1). For
other tasks, we initialize W_QK in the first layer ... with constructed pattern for different
tasks, as illustrated in 13.2, 14.2, and 15. ... we initialize W_V for each task with a value of
1. The classification layer W_C is initialized with a uniform distribution in the range [0,1)."

"W_V with a value of 1" is ambiguous: the all-ones matrix (the foundation's ``scheme="paper"``,
the literal reading, ``w_v="ones"``) or the identity (the value map of every construction in
§13-15, ``w_v="identity"``). Both are offered; the experiments state which they use.

The first-layer patterns below are the paper's first-layer ``W_QK`` of §13.2, §14.2 and §15,
mapped to the tasks API's token layout (Chen & Zou 2024 put the response sign between questions
and answers; the tasks API puts it LAST), with one documented change: §15's ``-inf`` becomes
``-1``. ``tests/train/test_loop.py`` pins the reasoning pattern to the first layer of
:func:`transformer_theory.constructions.reasoning.theorem3`.

Layout of the residual stream (Chen & Zou 2024, eq. 3): token one-hot in ``[0, d)``, one-hot
position in ``[d, d + n)``, zeros after. Score of query ``i`` for key ``j`` is
``h_j^T W_QK h_i``, so the positional block ``W[d + j, d + i] = alpha[j, i]`` is the paper's
instructive attention map (Lemma 1).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate
from transformer_theory.params import AttentionParams, ModelConfig, ModelParams, init_params

__all__ = [
    "TASK_KINDS",
    "block_mask_pp",
    "copy_pattern_alpha",
    "first_layer_pattern",
    "paper_init",
    "random_init",
    "task_kind",
]

TASK_KINDS = ("memorization", "reasoning", "generalization", "contextual")


def task_kind(task: Any) -> str:
    """Which of Chen & Zou's four tasks ``task`` is, from its class name (tasks API)."""
    name = type(task).__name__
    kinds = {
        "SequenceClassification": "memorization",
        "InContextQA": "reasoning",
        "TemplateMatching": "generalization",
        "InContextTemplateMatching": "contextual",
    }
    if name not in kinds:
        raise ValueError(f"task: expected one of {sorted(kinds)}, got {name}")
    return kinds[name]


def copy_pattern_alpha(k: int) -> np.ndarray:
    """Theorem 3's first-layer map ``alpha^(1)`` (§13.2), ``(n, n)`` with ``n = 3k + 2``.

    Block diagonal: ``A_3x3 = 1 - I`` on each question-sign-answer triple, ``A_2x2 = 1 - I`` on the
    final question and sign, so each position copies the other members of its block.
    """
    _validate.check_positive("k", k)
    n = 3 * k + 2
    alpha = np.zeros((n, n))
    for s, size in [(3 * t, 3) for t in range(k)] + [(3 * k, 2)]:
        alpha[s : s + size, s : s + size] = 1.0 - np.eye(size)
    return alpha


def block_mask_pp(k: int, l: int) -> np.ndarray:
    """§15's ``W_pp`` with ``-inf`` replaced by ``-1``: 0 inside each block, -1 across blocks.

    Blocks: ``k`` question-sign-answer blocks of ``l + 2`` positions, then the final ``l + 1``.
    Why ``-1`` suffices: with one-hot tokens the token part of a score is 0 or 1, so a cross-block
    score is at most ``1 - 1 = 0`` and ReLU attention gives it weight exactly 0, as ``-inf`` would.
    """
    _validate.check_positive("k", k)
    _validate.check_positive("l", l)
    sizes = [l + 2] * k + [l + 1]
    n = sum(sizes)
    w = -np.ones((n, n))
    s = 0
    for size in sizes:
        w[s : s + size, s : s + size] = 0.0
        s += size
    return w


def first_layer_pattern(task: Any, config: ModelConfig) -> np.ndarray | None:
    """The constructed first-layer ``W_QK (D, D)`` for ``task`` (None for memorization).

    - reasoning (Theorem 3, §13.2): positional block = :func:`copy_pattern_alpha`;
    - generalization (Theorem 5, §14.2): identity on the symbol block (each token attends to equal
      tokens: "parsing");
    - contextual generalization (Theorem 6, §15): identity on the symbol block plus
      :func:`block_mask_pp` on the positional block (parse within each question block).
    """
    kind = task_kind(task)
    if kind == "memorization":
        return None
    if config.positional != "onehot":
        raise ValueError(
            "config.positional: the constructed patterns need one-hot positions, got "
            f"{config.positional!r}"
        )
    d, n, D = config.vocab_size, config.seq_len, config.width
    w = np.zeros((D, D))
    if kind == "reasoning":
        alpha = copy_pattern_alpha(int(task.k))
        if alpha.shape[0] != n:
            raise ValueError(f"config.seq_len: expected 3k + 2 = {alpha.shape[0]}, got {n}")
        w[d : d + n, d : d + n] = alpha
    elif kind == "generalization":
        a = int(task.alphabet_size)
        w[:a, :a] = np.eye(a)
    else:
        a = int(task.alphabet_size)
        l = len(task.templates[0])
        pp = block_mask_pp(int(task.k), l)
        if pp.shape[0] != n:
            raise ValueError(f"config.seq_len: expected k(l+2)+l+1 = {pp.shape[0]}, got {n}")
        w[:a, :a] = np.eye(a)
        w[d : d + n, d : d + n] = pp
    return w


def paper_init(
    key: jax.Array,
    config: ModelConfig,
    task: Any,
    *,
    w_v: str = "ones",
    pattern: bool = True,
    later_qk_scale: float = 1.0,
    dtype: jnp.dtype = jnp.float32,
) -> ModelParams:
    """Chen & Zou 2024, §9.1's initialization for ``task``.

    Every ``W_QK`` and the classifier uniform in ``[0, 1)`` (``init_params(scheme="paper")``); then
    for the reasoning/generalization tasks every head of the first layer gets
    :func:`first_layer_pattern` (``pattern=True``). ``w_v``: ``"ones"`` (all-ones, the literal
    reading) or ``"identity"`` (see the module docstring). ``later_qk_scale`` multiplies the
    ``W_QK`` of layers 2.. (§9.1 leaves them unspecified for the pattern-initialized tasks; uniform
    ``[0, 1)`` makes 4-layer ReLU streams overflow float32).
    """
    _validate.check_choice("w_v", w_v, ("ones", "identity"))
    if config.qk_dim is not None:
        raise ValueError(
            "config.qk_dim: the paper's initialization sets a combined W_QK; use qk_dim=None"
        )
    params = init_params(key, config, dtype=dtype, scheme="paper")
    layers = list(params.layers)
    if w_v == "identity":
        layers = [
            l.replace(
                attn=l.attn.replace(
                    w_v=jnp.broadcast_to(jnp.eye(config.width, dtype=dtype), l.attn.w_v.shape)
                )
            )
            for l in layers
        ]
    pat = first_layer_pattern(task, config) if pattern else None
    if pat is not None:
        first = layers[0]
        w_qk = jnp.broadcast_to(jnp.asarray(pat, dtype), first.attn.w_qk.shape)
        layers[0] = first.replace(attn=AttentionParams(w_v=first.attn.w_v, w_qk=w_qk))
    if later_qk_scale != 1.0:
        layers[1:] = [
            l.replace(attn=l.attn.replace(w_qk=l.attn.w_qk * later_qk_scale)) for l in layers[1:]
        ]
    return params.replace(layers=tuple(layers))


def random_init(
    key: jax.Array, config: ModelConfig, *, scale: float = 1.0, dtype: jnp.dtype = jnp.float32
) -> ModelParams:
    """A plain random initialization: every matrix ``N(0, scale^2 / d')``
    (``init_params(scheme="normal")``)."""
    return init_params(key, config, dtype=dtype, scheme="normal", scale=scale)
