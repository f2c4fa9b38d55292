"""Weak equivalence of an n-gram construction (Svete & Cotterell 2024, Theorems 3.1-3.3): ``log
q(y)`` of the constructed transformer against ``log p(y)`` of the n-gram LM on EVERY string up to
a length (or sampled strings when there are too many), EOS included, and the probability mass both
give to those strings.

- :func:`transformer_log_probs` / :func:`transformer_log_prob`: a construction's ``log q``,
  per symbol and per string, in float64 (a :class:`~transformer_theory.params.ModelParams` or
  the paper's 3.3, :class:`._constructions.Paper33`).
- :func:`logprob_tolerance`: how far rounding alone may move ``log q(y)``.
- :func:`equivalence_record`: the check, as a JSON-ready record.

Shapes use the letters of :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate
from transformer_theory.core.forward import lm_log_probs
from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM
from transformer_theory.params import ModelParams
from transformer_theory.precision import significand_bits

__all__ = [
    "equivalence_record",
    "logprob_tolerance",
    "param_dtype",
    "transformer_log_prob",
    "transformer_log_probs",
]


@jax.jit
def _string_log_probs(params, strings_BxN):
    if isinstance(params, cn.Paper33):
        return jax.vmap(lambda s: cn.paper33_log_probs(params, s).astype(jnp.float64))(strings_BxN)
    return jax.vmap(lambda s: lm_log_probs(params, s).astype(jnp.float64))(strings_BxN)


def param_dtype(params: ModelParams | cn.Paper33) -> jnp.dtype:
    """The float dtype of a construction (:class:`ModelParams` or the paper's 3.3)."""
    return params.dtype if isinstance(params, cn.Paper33) else params.w_o.dtype


def transformer_log_prob(
    params: ModelParams | cn.Paper33, strings_BxN: np.ndarray, batch: int = 4096
) -> np.ndarray:
    """``log q(y)`` (EOS included) of every string of one length under a causal LM, float64."""
    return transformer_log_probs(params, strings_BxN, batch).sum(axis=1)


def transformer_log_probs(
    params: ModelParams | cn.Paper33, strings_BxN: np.ndarray, batch: int = 4096
) -> np.ndarray:
    """``log q(y_t | y_<t)`` for every symbol, then ``log q(EOS | y)``: ``(B, N + 1)``, float64.

    ``params``: a causal-LM :class:`ModelParams` or the paper's 3.3 (:class:`~transformer_theory.
    constructions.ngram.Paper33`)."""
    strings = np.asarray(strings_BxN, np.int64)
    out = [
        np.asarray(_string_log_probs(params, jnp.asarray(strings[i : i + batch])))
        for i in range(0, len(strings), batch)
    ]
    return np.concatenate(out) if out else np.zeros((0, strings.shape[1] + 1))


def logprob_tolerance(lm: NGramLM, length: int, dtype: Any) -> float:
    """How far ``log q(y)`` of an exact construction may be from ``log p(y)`` by rounding alone.

    Each of the ``L + 1`` terms is ``log_softmax`` of a row that equals the n-gram's log table
    rounded to the dtype (the AND unit gives exactly 1, ``W_O`` holds the table): the entry's own
    rounding ``u |log p|`` plus the normalizer's few ulps. ``4 u (max |log p| + 2)`` per term is
    that with a factor of 2 to spare (``u = 2^-p``); a wrong attention changes a term by a
    difference between two rows of the table instead.
    """
    table = lm.log_probs_AxC[np.isfinite(lm.log_probs_AxC)]
    u = 2.0 ** -significand_bits(dtype)
    return float((length + 1) * 4 * u * (np.abs(table).max() + 2.0))


def _strings(lm: NGramLM, length: int, exhaustive_limit: int, samples: int, rng):
    count = lm.alphabet_size**length
    if count <= exhaustive_limit:
        return lm.strings_of_length(length), True
    return rng.integers(0, lm.alphabet_size, size=(samples, length)), False


def equivalence_record(
    lm: NGramLM,
    params: ModelParams | cn.Paper33,
    max_len: int,
    *,
    exhaustive_limit: int = 50_000,
    samples: int = 2_000,
    seed: int = 0,
) -> dict:
    """Compare ``log q(y)`` with ``log p(y)`` on the strings of every length ``0..max_len``.

    Lengths with at most ``exhaustive_limit`` strings are enumerated; longer ones use ``samples``
    uniformly random strings (so impossible strings are checked too). ``equivalent`` means: the
    same strings have probability 0 (``-inf``) under both, no NaN, and every other difference is
    within :func:`logprob_tolerance`. ``mass_transformer`` (only when every length was enumerated)
    is ``sum_{|y| <= max_len} q(y)``, to set beside ``mass_ngram`` = the n-gram's own mass up to
    ``max_len`` (:meth:`NGramLM.mass_up_to`, a forward recursion, not an enumeration).
    """
    _validate.check_positive("max_len", max_len, allow_zero=True)
    dtype = param_dtype(params)
    rng = np.random.default_rng(seed)
    worst, worst_ratio, strings, mismatches, nans = 0.0, 0.0, 0, 0, 0
    exhaustive, mass_q = True, 0.0
    for length in range(max_len + 1):
        batch, enumerated = _strings(lm, length, exhaustive_limit, samples, rng)
        exhaustive &= enumerated
        ref = lm.log_prob(batch)
        got = transformer_log_prob(params, batch)
        nans += int(np.isnan(got).sum())
        mismatches += int((np.isfinite(ref) != np.isfinite(got)).sum())
        both = np.isfinite(ref) & np.isfinite(got)
        if both.any():
            diff = float(np.abs(got[both] - ref[both]).max())
            worst = max(worst, diff)
            worst_ratio = max(worst_ratio, diff / logprob_tolerance(lm, length, dtype))
        if enumerated:
            mass_q += float(np.exp(got[np.isfinite(got)]).sum())
        strings += len(batch)
    return {
        "strings": strings,
        "exhaustive": bool(exhaustive),
        "max_abs_logprob_diff": worst,
        "tolerance_used": worst_ratio,
        "support_mismatches": mismatches,
        "nan": nans,
        "equivalent": bool(mismatches == 0 and nans == 0 and worst_ratio <= 1.0),
        "mass_transformer": mass_q if exhaustive else None,
        "mass_ngram": lm.mass_up_to(max_len),
    }
