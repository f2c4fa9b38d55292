"""Checks of the n-gram constructions of Svete & Cotterell 2024 (Theorems 3.1-3.3): weak
equivalence, the precision each needs, and soft attention's distance from the n-gram LM.

- :func:`equivalence_record`: ``log q(y)`` of the constructed transformer against ``log p(y)`` of
  the n-gram LM on EVERY string up to a length (or sampled strings when there are too many), EOS
  included, and the probability mass both give to those strings.
- :func:`selection_scan`: the first input position at which the attention no longer selects what
  the proof says (3.1/3.2: the one key ``t - h``; 3.3: the ``n - 1`` window keys uniformly), in the
  parameters' dtype -- the longest string length up to which the construction stays exact.
- :func:`predicted_exact_length`: the same limit derived from the score's gap and the dtype's
  rounding (a sufficient condition, so the measured limit is at least this).
- :func:`soft_kl` / :func:`beta_for_kl`: with softmax attention at score scale ``beta``, the KL
  divergence from the n-gram LM over all strings up to a length, and the ``beta`` a target KL
  needs as the length grows.

Every function returns JSON-ready data; ``transformer-theory ngram`` writes and plots them.
Shapes use the letters of :mod:`transformer_theory.glossary`.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate
from transformer_theory.constructions import ngram as cn
from transformer_theory.core import attention as core_attention
from transformer_theory.core.forward import embed, lm_log_probs
from transformer_theory.core.layers import attention_scores
from transformer_theory.core.positional import window_score_polynomial
from transformer_theory.tasks.ngram import NGramLM

DTYPES = {"float64": jnp.float64, "float32": jnp.float32, "bfloat16": jnp.bfloat16}


def significand_bits(dtype) -> int:
    """``p``: 53 (float64), 24 (float32), 8 (bfloat16); unit roundoff ``u = 2^-p``."""
    return int(jnp.finfo(dtype).nmant) + 1


# ----------------------------------------------------------------------------- weak equivalence
@jax.jit
def _string_log_probs(params, strings_BxN):
    return jax.vmap(lambda s: lm_log_probs(params, s).astype(jnp.float64))(strings_BxN)


def transformer_log_prob(params, strings_BxN: np.ndarray, batch: int = 4096) -> np.ndarray:
    """``log q(y)`` (EOS included) of every string of one length under a causal LM, float64."""
    return transformer_log_probs(params, strings_BxN, batch).sum(axis=1)


def transformer_log_probs(params, strings_BxN: np.ndarray, batch: int = 4096) -> np.ndarray:
    """``log q(y_t | y_<t)`` for every symbol, then ``log q(EOS | y)``: ``(B, N + 1)``, float64."""
    strings = np.asarray(strings_BxN, np.int64)
    out = [
        np.asarray(_string_log_probs(params, jnp.asarray(strings[i : i + batch])))
        for i in range(0, len(strings), batch)
    ]
    return np.concatenate(out) if out else np.zeros((0, strings.shape[1] + 1))


def logprob_tolerance(lm: NGramLM, length: int, dtype) -> float:
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
    params,
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
    dtype = params.w_o.dtype
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


# ----------------------------------------------------------------------------- precision
def _intended_QxK(construction: str, order: int, head: int, queries_Q, num_keys: int):
    """The weights the proof prescribes: one-hot on ``max(i - h, 0)`` (3.1/3.2, head/layer
    ``h``), or uniform on the window ``max(0, i - w + 1) .. i`` (3.3)."""
    w = order - 1
    i = queries_Q[:, None]
    j = jnp.arange(num_keys)[None, :]
    if construction == "3.3":
        inside = (j <= i) & (j >= jnp.maximum(i - w + 1, 0))
        return inside / jnp.sum(inside, axis=1, keepdims=True)
    return (j == jnp.maximum(i - head, 0)).astype(jnp.float32)


def _heads(params, construction):
    """``(layer, head index within it, offset h)`` of every head of the construction."""
    if construction == "3.2":
        return [(layer, 0, h) for h, layer in enumerate(params.layers)]
    layer = params.layers[0]
    return [(layer, h, h) for h in range(layer.attn.w_qk.shape[0])]


def _selection_ok(params, construction, h_KxD, queries_Q):
    """Per query: does every head's attention equal the prescribed weights (same support, values
    within 8 ulps -- sparsemax's ``z - tau`` may round a 1 to ``1 - ulp``)?"""
    cfg = params.config
    n = h_KxD.shape[0]
    tol = 8 * float(jnp.finfo(h_KxD.dtype).eps)
    ok = jnp.ones(queries_Q.shape, bool)
    for layer, head, offset in _heads(params, construction):
        scores = attention_scores(layer, h_KxD, cfg, queries_Q)[head]
        mask = jnp.arange(n)[None, :] <= queries_Q[:, None]
        got = core_attention.attention_weights(scores, cfg.attention, mask).astype(jnp.float32)
        want = _intended_QxK(construction, cfg.positional_window + 1, offset, queries_Q, n)
        same = ((got > 0) == (want > 0)) & (jnp.abs(got - want) <= tol)
        ok &= jnp.all(same, axis=1)
    return ok


def selection_scan(
    params,
    construction: str,
    *,
    limit: int = 131_072,
    exhaustive_upto: int = 2_048,
    backward: int = 4_096,
) -> dict:
    """The first input position whose attention is not the proof's, in the parameters' dtype.

    The scores read only the positional code, which no layer writes, so they are computed on the
    embedding (for 3.2 every layer reads the same code as the first). Every query ``i <
    exhaustive_upto`` is checked against every key; beyond, single queries at ``2^k`` positions
    and then a bisection find a failure, and every query in the ``backward`` positions before it
    is checked too (the earliest failure there is reported). Near the threshold failures are
    intermittent (whether two nearly equal scores round apart depends on the position), so beyond
    ``exhaustive_upto`` the reported position is the first failure in that stretch: a failure
    before it but more than ``backward`` positions earlier would be missed. The derived bound
    :func:`predicted_exact_length` is a guarantee below it.

    Returns ``first_failing_position`` (0-based input position, or None if none up to
    ``limit``), ``longest_exact_length`` (the longest string length all of whose positions are
    exact: a string of length ``L`` uses positions ``w - 1 .. w - 1 + L``; -1 when even the empty
    string's one prediction fails; the BOS-only positions before ``w - 1`` predict nothing and
    are not checked), and how it was found.
    """
    _validate.check_choice("construction", construction, cn.CONSTRUCTIONS)
    _validate.check_positive("limit", limit)
    cfg = params.config
    if cfg.attention == "softmax":
        raise ValueError("params: softmax attention never selects exactly; use soft_kl")
    w = cfg.positional_window
    bos = cfg.vocab_size - 1
    # tokens do not enter the scores (only the positional code does); BOS everywhere
    h = embed(params, jnp.full((limit,), bos, jnp.int32))
    check = jax.jit(_selection_ok, static_argnums=1)

    def ok_at(positions) -> np.ndarray:
        return np.asarray(check(params, construction, h, jnp.asarray(positions, jnp.int32)))

    chunk = 256

    def first_bad(start, stop):
        for lo in range(start, stop, chunk):
            q = np.arange(lo, min(lo + chunk, stop))
            bad = np.flatnonzero(~ok_at(np.pad(q, (0, chunk - len(q)), mode="edge"))[: len(q)])
            if bad.size:
                return int(q[bad[0]])
        return None

    def result(first, method):
        return {
            "first_failing_position": None if first is None else int(first),
            "longest_exact_length": None if first is None else int(first) - w,
            "checked_up_to": limit if first is None else int(first),
            "exhaustive_upto": min(exhaustive_upto, limit),
            "method": method,
        }

    top = min(exhaustive_upto, limit)
    found = first_bad(w - 1, top)  # positions before w - 1 read only BOS and predict nothing
    if found is not None:
        return result(found, "exhaustive")
    good, probe = top - 1, top
    while probe < limit:
        if not ok_at([probe])[0]:
            break
        good, probe = probe, probe * 2
    else:
        if good == limit - 1 or ok_at([limit - 1])[0]:
            return result(None, "exhaustive + doubling")
        probe = limit - 1
    lo, hi = good, probe  # ok at lo, failing at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok_at([mid])[0] else (lo, mid)
    earlier = first_bad(max(hi - backward, top), hi)
    return result(
        hi if earlier is None else earlier,
        f"exhaustive to {top}, doubling, bisection, every query in the {backward} before",
    )


def window_budget(t: int, window: int) -> float:
    """3.3: ``sum_k |c_k(t)| t^k``, the largest magnitude any product or partial sum of the score
    at query ``t`` reaches (``c`` from :func:`window_score_polynomial`, key powers ``j^k <=
    t^k``). While it is below ``2^p`` every step is an exact integer operation in a ``p``-bit
    significand, so the window's scores are exactly 0 -- the ties average-hard attention needs."""
    c = window_score_polynomial(int(t), window)
    return float(np.sum(np.abs(c) * float(t) ** np.arange(len(c))))


def predicted_exact_length(
    construction: str,
    order: int,
    dtype,
    *,
    limit: int = 10**7,
    attention: str = "hard",
    max_len: int | None = None,
) -> int | None:
    """The longest string length the derivation guarantees exact in ``dtype`` (a lower bound on
    :func:`selection_scan`'s measurement).

    3.1/3.2: the score ``fl(a_1 b_1 + a_2 b_2)`` of code entries ``fl(sqrt(fl(1/s)))`` is within
    ``5u`` of ``<u(t), u(s)>`` (``u = 2^-p``: ``1.5u`` per entry, ``u`` per product and sum), so
    the peak stays unique while :func:`~transformer_theory.constructions.ngram.score_gap` exceeds
    ``10u``, at every shifted position up to ``t + n - 2``. 3.3: while :func:`window_budget` stays
    below ``2^p`` (exact integer arithmetic). Sparse 3.1/3.2 also needs the scaled lead to stay
    >= 1, which :func:`~transformer_theory.constructions.ngram.sparse_beta` guarantees up to the
    ``max_len`` it was built for (and no further): the bound is the smaller of the two. Found by
    bisection over ``t`` (both bounds decrease
    monotonically in ``t``); returns ``limit`` when it holds that far and None when it does not
    guarantee even the empty string.
    """
    _validate.check_choice("construction", construction, cn.CONSTRUCTIONS)
    _validate.check_choice("attention", attention, ("hard", "sparse"))
    if attention == "sparse" and construction != "3.3":
        if max_len is None:
            raise ValueError("max_len: sparse 3.1/3.2 are exact up to the max_len built for")
        hard = predicted_exact_length(construction, order, dtype, limit=limit)
        return None if hard is None else min(hard, max_len)
    p = significand_bits(dtype)
    w = order - 1
    if construction == "3.3":

        def holds(t):
            return window_budget(t, w) < 2.0**p

        last_shift = 0
    else:

        def holds(t):
            return bool(cn.score_gap(t) > 10 * 2.0**-p)

        last_shift = w - 1
    if not holds(1 + last_shift):
        return None
    lo, hi = 1, limit
    if holds(hi + last_shift):
        return limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if holds(mid + last_shift) else (lo, mid)
    # lo = last 1-based query position t that is safe; input position t - 1; string length t-1-w
    return lo - 1 - w if lo - 1 - w >= 0 else None


# ----------------------------------------------------------------------------- soft attention
def kl_first_outcomes(lm: NGramLM, params, max_len: int) -> float:
    """``KL(p || q)`` of the laws of the first ``max_len + 1`` outcomes of the n-gram LM ``p`` and
    the transformer LM ``params``, by enumeration (float64 sums).

    The outcomes partition ``Sigma*``: every string ``y`` with ``|y| <= max_len`` (probability
    ``p(y)``, EOS included), and every prefix ``x`` of length ``max_len + 1`` (probability ``p(x)
    = prod_t p(x_t | x_<t)``, whatever follows). Unlike ``sum_{|y| <= L} p(y) log(p(y)/q(y))``
    alone, which is negative when ``q`` ends strings earlier than ``p``, this is a KL divergence
    (``>= 0``, 0 iff the next-symbol distributions agree on the first ``max_len + 1`` steps), and
    it grows with ``max_len`` to ``KL(p || q)`` over ``Sigma*``.
    """
    _validate.check_positive("max_len", max_len, allow_zero=True)
    total = 0.0
    for length in range(max_len + 2):
        strings = lm.strings_of_length(length)
        ref = lm.log_probs(strings)
        got = transformer_log_probs(params, strings)
        if length == max_len + 1:  # prefixes: leave out the EOS term
            ref, got = ref[:, :-1], got[:, :-1]
        ref, got = ref.sum(axis=1), got.sum(axis=1)
        live = np.isfinite(ref)
        total += float(np.sum(np.exp(ref[live]) * (ref[live] - got[live])))
    return total


def soft_kl(lm: NGramLM, construction: str, beta: float, max_len: int) -> float:
    """:func:`kl_first_outcomes` of the construction with softmax attention at score scale
    ``beta`` (float64)."""
    if np.isneginf(lm.log_probs_AxC).any():
        raise ValueError(
            "lm: the soft study needs a table without exact zeros (a softmax spreads weight, "
            "and a -inf entry of W_O read by a partly active unit makes q(y) = 0 where p(y) > 0)"
        )
    params = cn.build(lm, construction, attention="softmax", beta=beta, max_len=max_len + 1)
    return kl_first_outcomes(lm, params, max_len)


def beta_for_kl(
    lm: NGramLM, construction: str, target: float, max_len: int, *, hi: float = 2.0**20
) -> float | None:
    """The smallest ``beta`` (to 1%, bisection on ``log beta``) with :func:`soft_kl` ``<=
    target``; None if even ``hi`` does not reach it."""
    if soft_kl(lm, construction, hi, max_len) > target:
        return None
    lo = 1e-3
    while hi / lo > 1.01:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if soft_kl(lm, construction, mid, max_len) <= target else (mid, hi)
    return hi
