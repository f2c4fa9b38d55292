"""Svete & Cotterell's (2024) n-gram constructions run as language models: the answers the checks
compare with the n-gram's (:mod:`._theory_equivalence`, :mod:`._theory_precision`,
:mod:`._theory_soft`), from a model already built (:mod:`._constructions`).

- :func:`transformer_log_probs` / :func:`transformer_log_prob`: ``log q`` in float64, per symbol
  and per string, of a :class:`~transformer_theory.params.ModelParams` (run by
  :func:`transformer_theory.core.lm_log_probs`) or of the paper's 3.3
  (:class:`._constructions.Paper33`, run by :func:`paper33_log_probs`); :func:`param_dtype`: the
  float format of either.
- :func:`paper33_states`, :func:`paper33_log_probs`, :func:`paper33_decoded`: the forward of the
  paper's 3.3 as the authors' ``TransfomerLM`` reads it (the ReLU inside its score is more than the
  library's bilinear ``W_QK`` expresses, so it has its own).
- :func:`log_probs_by_length`: :func:`transformer_log_probs` of the strings of every length the
  KL at ``max_len`` reads; :func:`softmax_log_probs`: those of the softmax construction built at
  one ``beta`` (:func:`._constructions.softmax_model`; the answers
  :func:`._theory_soft.soft_study` bisects ``beta`` over).

Shapes use the letters of :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory.core.forward import lm_log_probs
from transformer_theory.papers.svete_cotterell2024._constructions import Paper33, softmax_model
from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM
from transformer_theory.params import ModelParams

__all__ = [
    "log_probs_by_length",
    "paper33_decoded",
    "paper33_log_probs",
    "paper33_states",
    "param_dtype",
    "softmax_log_probs",
    "transformer_log_prob",
    "transformer_log_probs",
]


# ----------------------------------------------------------------------------- the paper's 3.3
def paper33_states(model: Paper33, tokens_N: jax.Array) -> jax.Array:
    """The AND layer's output ``(N, A)`` at every input position of ``tokens_N`` (``BOS^{n-1}
    y``): the one-hot of the history the position has decoded (exactly one-hot while the
    construction is exact)."""
    dtype = model.dtype
    n, w = model.order, model.order - 1
    V = model.alphabet_size + 1
    N = tokens_N.shape[0]
    t = jnp.arange(1, N + 1)
    # 10^-t rounded once from float64 (the authors' numpy computes it in float64)
    scale = jnp.asarray(10.0 ** -np.arange(1, N + 1, dtype=np.float64), dtype)
    values_NxV = scale[:, None] * jax.nn.one_hot(tokens_N, V, dtype=dtype)
    q_Nx2 = jnp.stack([jnp.ones(N), t - (n - 2.0)], axis=1).astype(dtype)
    k_Nx2 = jnp.stack([-t.astype(jnp.float64), jnp.ones(N)], axis=1).astype(dtype)
    scores = -jax.nn.relu(q_Nx2 @ k_Nx2.T)
    causal = t[None, :] <= t[:, None]
    scores = jnp.where(causal, scores, -jnp.inf)
    top = scores == jnp.max(scores, axis=1, keepdims=True)
    weights = top / jnp.sum(top, axis=1, keepdims=True).astype(dtype)
    a_NxV = weights.astype(dtype) @ values_NxV
    fz = sum(10.0**-k for k in range(1, n))
    a_NxV = jnp.asarray(fz, dtype) / jnp.sum(jnp.abs(a_NxV), axis=1, keepdims=True) * a_NxV
    x = jnp.repeat(a_NxV, w, axis=1)  # W1: each symbol's coordinate n - 1 times
    for ll in range(w):
        x = (
            jax.nn.relu(x @ model.digit_w[ll].T + model.digit_b[ll][None, :])
            @ model.digit_out[ll].T
        )
    return jax.nn.relu(x @ model.and_w.T + model.and_b[None, :])


def paper33_log_probs(model: Paper33, string_N: jax.Array) -> jax.Array:
    """``log q(y_t | y_<t)`` for ``t = 1..L`` and ``log q(EOS | y)`` under :class:`Paper33`, read
    as the authors' ``TransfomerLM`` reads it: the row of ``E`` at the argmax of the decoded
    one-hot (the digit steps' gain ``10^n`` turns rounding into ``1 +- 10^n u`` and ``+-10^n u``
    entries, harmless to an argmax, fatal to ``E h`` where ``E`` holds ``-inf``)."""
    w = model.order - 1
    bos = model.alphabet_size
    L = string_N.shape[0]
    tokens = jnp.concatenate([jnp.full((w,), bos, jnp.result_type(string_N)), string_N])
    states = paper33_states(model, tokens)[w - 1 :]
    log_q = model.log_probs_CxA.T[jnp.argmax(states, axis=1)]
    targets = jnp.concatenate([string_N, jnp.full((1,), bos, jnp.result_type(string_N))])
    return jnp.take_along_axis(log_q, targets[:, None], axis=-1)[:, 0].reshape(L + 1)


@jax.jit
def paper33_decoded(model: Paper33, strings_BxN: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The history id each position of each string decodes under :class:`Paper33` (the authors'
    argmax over the AND layer, :func:`paper33_states`), ``(B, N + 1)``, and each string's largest
    distance of the decoded one-hot from exact 0/1, ``(B,)``: what
    :func:`._theory_precision.paper33_scan` compares with the histories the strings have."""
    w = model.order - 1
    bos = jnp.full((strings_BxN.shape[0], w), model.alphabet_size, strings_BxN.dtype)
    tokens = jnp.concatenate([bos, strings_BxN], axis=1)
    states = jax.vmap(lambda x: paper33_states(model, x))(tokens)[:, w - 1 :]
    return jnp.argmax(states, axis=-1), jnp.max(jnp.abs(states - jnp.round(states)), axis=(1, 2))


# ----------------------------------------------------------------------------- run as an LM
@jax.jit
def _string_log_probs(params, strings_BxN):
    if isinstance(params, Paper33):
        return jax.vmap(lambda s: paper33_log_probs(params, s).astype(jnp.float64))(strings_BxN)
    return jax.vmap(lambda s: lm_log_probs(params, s).astype(jnp.float64))(strings_BxN)


def param_dtype(params: ModelParams | Paper33) -> jnp.dtype:
    """The float dtype of a construction (:class:`ModelParams` or the paper's 3.3)."""
    return params.dtype if isinstance(params, Paper33) else params.w_o.dtype


def transformer_log_prob(
    params: ModelParams | Paper33, strings_BxN: np.ndarray, batch: int = 4096
) -> np.ndarray:
    """``log q(y)`` (EOS included) of every string of one length under a causal LM, float64."""
    return transformer_log_probs(params, strings_BxN, batch).sum(axis=1)


def transformer_log_probs(
    params: ModelParams | Paper33, strings_BxN: np.ndarray, batch: int = 4096
) -> np.ndarray:
    """``log q(y_t | y_<t)`` for every symbol, then ``log q(EOS | y)``: ``(B, N + 1)``, float64.

    ``params``: a causal-LM :class:`ModelParams` (run by
    :func:`transformer_theory.core.lm_log_probs`) or the paper's 3.3 (:class:`Paper33`, run by
    :func:`paper33_log_probs`)."""
    strings = np.asarray(strings_BxN, np.int64)
    out = [
        np.asarray(_string_log_probs(params, jnp.asarray(strings[i : i + batch])))
        for i in range(0, len(strings), batch)
    ]
    return np.concatenate(out) if out else np.zeros((0, strings.shape[1] + 1))


def log_probs_by_length(
    params: ModelParams | Paper33, strings_by_length: Sequence[np.ndarray], max_len: int
) -> list[np.ndarray]:
    """:func:`transformer_log_probs` of ``strings_by_length[0 .. max_len + 1]`` (one batch per
    length): the answers the KL over the first ``max_len + 1`` outcomes reads
    (:func:`._theory_soft.kl_of`)."""
    return [transformer_log_probs(params, s) for s in strings_by_length[: max_len + 2]]


def softmax_log_probs(
    lm: NGramLM,
    construction: str,
    strings_by_length: Sequence[np.ndarray],
    *,
    beta: float,
    max_len: int,
) -> list[np.ndarray]:
    """:func:`log_probs_by_length` under ``construction`` built for ``lm`` with softmax attention
    at score scale ``beta``, float64, laid out for the ``max_len + 1`` symbols read
    (:func:`._constructions.softmax_model`; :func:`._theory_soft.soft_study`'s answers at one
    ``beta``)."""
    params = softmax_model(lm, construction, beta=beta, max_len=max_len)
    return log_probs_by_length(params, strings_by_length, max_len)
