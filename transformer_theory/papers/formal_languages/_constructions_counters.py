"""The counter languages' recognizer: one causal softmax layer (Bhattamishra, Ahuja & Goyal 2020;
rows "SHUFFLE-DYCK-k" and "SSCMs" of Strobl et al. 2024's table) for any machine of
:mod:`._tasks_counters`.

The construction (Bhattamishra et al. 2020, their Shuffle-Dyck proof: no positional encoding, a
future mask, query and key weights zero so softmax attends uniformly to the prefix). The model
reads ``BOS w_1 .. w_L`` (``BOS`` = the id after the symbols, the start symbol of the library's
other recognizers; it supplies ``1/(i + 1)``). One layer, one head, ``W_QK = 0``: at position
``i`` (BOS is position 0) the attention output is the mean of the value rows over ``j <= i``; the
value of symbol ``s`` is ``updates[s]`` on the counter coordinates and BOS writes the initial
values there and 1 on the coordinate ``b``, so the stream holds ``r_k = c_k(i) / (i + 1)`` and
``b = 1 / (i + 1)``. A ReLU MLP forms, for each counter, ``relu(r)``, ``relu(-r)`` and
``relu(b - r)``, and writes each symbol's *violation* ``V_s``: ``|r| = relu(r) + relu(-r)`` for
a ``== 0`` guard, ``relu(b - r)`` for ``>= 1``, ``relu(-r)`` for ``>= 0``, summed over the
symbol's guards. The output at every position (:func:`transformer_theory.core.forward_all`) has
one logit per symbol and one for the end: ``o_s = confidence (b/2 - V_s)``. Since the counters are
integers, a violated guard contributes at least ``b``, so ``o_s = confidence b / 2`` exactly when
``s`` may come next and ``o_s <= -confidence b / 2`` when not: margins of size at least
``1 / (2n)``, ``n = L + 1``.

The decision is the paper's output convention (next-character prediction, after Gers &
Schmidhuber 2001 and Suzgun et al. 2019): the output at position ``i`` is the set of symbols that
may come next (``o_s > 0``), and a string is accepted iff every symbol was in the set predicted
before it and the end is in the set after the last symbol (:func:`accepts`). The reading of that
convention through guards on ``counter >= 1`` and ``counter == 0``, the BOS token, the
``anbn``/``anbncn`` machines and the ``boolexp_n`` alphabet are this module's; the mechanism
(uniform causal attention computing each counter's depth-to-length ratio, a feed-forward
decision on it) is the paper's.

Shape letters: see :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from transformer_theory import _validate
from transformer_theory.papers.formal_languages._tasks_counters import CounterMachine
from transformer_theory.params import (
    AttentionParams,
    LayerParams,
    MLPParams,
    ModelConfig,
    ModelParams,
)

DType = jnp.dtype | type


def _layout(m: CounterMachine) -> tuple[int, int, int, int]:
    """``(first counter coordinate, b, first violation coordinate, width)``."""
    S, K = m.num_symbols, m.num_counters
    r0 = S + 1
    b = r0 + K
    v0 = b + 1
    return r0, b, v0, v0 + S + 1


def _check_confidence(confidence: float) -> float:
    if isinstance(confidence, (bool, np.bool_)):
        raise ValueError(f"confidence: expected a finite positive number, got {confidence!r}")
    _validate.check_positive("confidence", confidence)
    return float(confidence)


def counter_recognizer(
    m: CounterMachine, confidence: float = 1.0, dtype: DType = jnp.float64
) -> ModelParams:
    """The one-layer causal softmax recognizer of ``m`` (module docstring).

    Args:
      m: the machine (e.g. :func:`shuffle_dyck`).
      confidence: multiplies the readout; every output is ``+-confidence / (2 (i + 1))`` or
        beyond at position ``i``.
      dtype: float dtype of the parameters.

    Returns:
      ``ModelParams`` for ``S + 1`` ids (``BOS = S``) and ``S + 1`` outputs (symbol ``s``, then
      the end), read at every position by :func:`transformer_theory.core.forward_all`.
    """
    if not isinstance(m, CounterMachine):
        raise ValueError(f"m: expected a CounterMachine, got {type(m).__name__}")
    alpha = _check_confidence(confidence)
    S, K = m.num_symbols, m.num_counters
    r0, b, v0, D = _layout(m)
    cfg = ModelConfig(
        S + 1,
        2,
        D,
        S + 1,
        heads=(1,),
        attention="softmax",
        causal=True,
        positional="none",
        mlp_hidden=3 * K,
    )
    w_v = np.zeros((D, D))
    for s, u in enumerate(m.updates):
        w_v[r0 : r0 + K, s] = u
    w_v[r0 : r0 + K, m.bos] = m.start
    w_v[b, m.bos] = 1.0
    w1, w2 = np.zeros((3 * K, D)), np.zeros((D, 3 * K))
    for k in range(K):
        w1[3 * k, r0 + k] = 1.0  # relu(r)
        w1[3 * k + 1, r0 + k] = -1.0  # relu(-r)
        w1[3 * k + 2, [b, r0 + k]] = [1.0, -1.0]  # relu(b - r)
    units = {"zero": (0, 1), "positive": (2,), "nonnegative": (1,)}
    for o, group in enumerate((*m.guards, m.end_guards)):
        for k, relation in group:
            for unit in units[relation]:
                w2[v0 + o, 3 * k + unit] += 1.0
    w_o = np.zeros((S + 1, D))
    w_o[:, b] = alpha / 2
    w_o[np.arange(S + 1), v0 + np.arange(S + 1)] = -alpha

    def arr(x):
        return jnp.asarray(x, dtype)

    layer = LayerParams(
        attn=AttentionParams(w_v=arr(w_v[None]), w_qk=arr(np.zeros((1, D, D)))),
        mlp=MLPParams(arr(w1), arr(np.zeros(3 * K)), arr(w2), arr(np.zeros(D))),
    )
    return ModelParams(layers=(layer,), w_o=arr(w_o), config=cfg)


@jax.jit
def _all_margins(params, inputs_BxN):
    from transformer_theory.core import forward_all

    return jax.vmap(lambda t: forward_all(params, t))(inputs_BxN)


def next_symbol_margins(params: ModelParams, strings_BxN: ArrayLike) -> np.ndarray:
    """The outputs at every position of ``BOS w``: ``(B, L + 1, S + 1)``; entry ``[b, i, s]``
    positive iff symbol ``s`` (``S``: the end) may follow ``w_1 .. w_i``."""
    strings = jnp.asarray(strings_BxN)
    _validate.check_ndim("strings_BxN", strings, 2)
    S = params.config.vocab_size - 1
    _validate.check_token_ids("strings_BxN", strings, S)
    bos = jnp.full((strings.shape[0], 1), S, strings.dtype)
    return np.asarray(_all_margins(params, jnp.concatenate([bos, strings], axis=1)))


def accepts(margins_BxNxC: ArrayLike, strings_BxN: ArrayLike) -> np.ndarray:
    """The paper's convention: accepted iff every ``w_{i+1}`` was predicted at position ``i``
    (margin > 0) and the end is predicted at the last position. ``(B,)`` booleans."""
    margins, strings = np.asarray(margins_BxNxC), np.asarray(strings_BxN)
    _validate.check_ndim("margins_BxNxC", margins, 3)
    _validate.check_ndim("strings_BxN", strings, 2)
    B, L = strings.shape
    if margins.shape[:2] != (B, L + 1):
        raise ValueError(
            f"margins_BxNxC: expected shape ({B}, {L + 1}, C) for strings of shape {strings.shape},"
            f" got {margins.shape}"
        )
    read = np.take_along_axis(margins[:, :L, :], strings[:, :, None].astype(np.int64), 2)[..., 0]
    return np.all(read > 0, axis=1) & (margins[:, L, -1] > 0)


def recognize(params: ModelParams, strings_BxN: ArrayLike) -> np.ndarray:
    """:func:`accepts` on the model's :func:`next_symbol_margins`."""
    return accepts(next_symbol_margins(params, strings_BxN), strings_BxN)
