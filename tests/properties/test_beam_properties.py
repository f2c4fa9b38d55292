"""Beam search returns the true top-k where it provably must (hypothesis, random small tables).

``core.beam.beam_search`` is run on a next-token model given by a random table
``log p(y_t | y_<t) = T[t, prefix, y_t]`` (each row log-softmax normalized), and compared with the
top-k of all ``V^L`` sequences enumerated in NumPy. Beam search is not exact in general (its
docstring builds a counterexample), so the property is stated where it holds:

- any table, ``beam_size = V^(L-1)``: the beam keeps every prefix, so the last step ranks all
  ``V^L`` sequences and the beam is the true top ``V^(L-1)``;
- a table where ``y_t``'s distribution does not depend on the prefix (position-wise independent
  tokens), any ``beam_size = k``: a sequence in the true top-k has a prefix in the top-k prefixes
  (had ``k`` prefixes beaten it, the same ``k`` prefixes with its suffix would beat the sequence),
  so beam search keeps it.

Tables are continuous random draws: ties have probability zero, so the top-k is unique.
Log-probabilities agree to 1e-12 (sums of ``L <= 4`` float64 table entries of size O(1)).
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from transformer_theory.core.beam import beam_search

SIZES = [(2, 3), (3, 2), (3, 3), (2, 4)]  # (V, L)
BOS = 0


def _prefix_index(buffer, t, vocab):
    # buffer = [bos, y_0, ..., y_{L-1}]; the prefix before y_t is y_0 .. y_{t-1} = buffer[1 : t+1]
    length = buffer.shape[0] - 1
    s = jnp.arange(1, length + 1)
    weights = jnp.where(s <= t, vocab ** (s - 1), 0)
    return jnp.sum(weights * buffer[1:])


@functools.cache
def _beam(vocab, length, beam_size):
    def run(table):
        def logprob_fn(buffer, t):
            return table[t, _prefix_index(buffer, t, vocab)]

        return beam_search(logprob_fn, BOS, length, beam_size, vocab)

    return jax.jit(run)


def _table(rng, vocab, length, independent):
    raw = rng.standard_normal((length, vocab**length, vocab)) * 2
    if independent:
        raw = np.broadcast_to(raw[:, :1], raw.shape).copy()
    return raw - np.log(np.exp(raw).sum(axis=-1, keepdims=True))


def _true_top(table, vocab, length, k):
    scored = []
    for seq in itertools.product(range(vocab), repeat=length):
        lp = sum(table[t, sum(seq[s] * vocab**s for s in range(t)), seq[t]] for t in range(length))
        scored.append((lp, seq))
    scored.sort(key=lambda x: -x[0])
    return [s for _, s in scored[:k]], np.array([lp for lp, _ in scored[:k]])


def _check(table, vocab, length, k):
    tokens, logprobs = _beam(vocab, length, k)(jnp.asarray(table))
    seqs, lps = _true_top(table, vocab, length, k)
    assert [tuple(int(x) for x in row) for row in np.asarray(tokens)] == seqs
    np.testing.assert_allclose(np.asarray(logprobs), lps, rtol=0, atol=1e-12)


@given(size=st.sampled_from(SIZES), seed=st.integers(0, 2**32 - 1))
def test_full_beam_is_the_true_top_k_for_any_table(size, seed):
    vocab, length = size
    table = _table(np.random.default_rng(seed), vocab, length, independent=False)
    _check(table, vocab, length, vocab ** (length - 1))


@given(size=st.sampled_from(SIZES), k=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_any_beam_is_the_true_top_k_for_independent_positions(size, k, seed):
    vocab, length = size
    table = _table(np.random.default_rng(seed), vocab, length, independent=True)
    _check(table, vocab, length, k)


# ----------------------------------------------------------------- with eos and length penalty

EOS_V, EOS, EOS_L = 3, 2, 3
# Every hypothesis: m - 1 non-eos tokens then eos (m <= L), or L non-eos tokens (cut at L).
ALL_HYPOTHESES = sum((EOS_V - 1) ** (m - 1) for m in range(1, EOS_L + 1)) + (EOS_V - 1) ** EOS_L
# A beam of that size holds every candidate of every step ((V - 1)^(L - 1) live prefixes times
# V tokens = 12 <= 15), so every eos candidate finishes and every prefix survives: the returned
# hypotheses are ALL hypotheses, ranked by score.


def _length_penalty(m, alpha, penalty):
    return ((5 + m) / 6) ** alpha if penalty == "gnmt" else m**alpha


def _all_hypotheses(table, alpha, penalty):
    out = []
    for m in range(1, EOS_L + 2):
        for body in itertools.product(range(EOS_V - 1), repeat=min(m - 1, EOS_L)):
            seq = body + ((EOS,) if m <= EOS_L else ())
            if len(seq) > EOS_L:
                continue
            lp = sum(
                table[t, sum(seq[s] * EOS_V**s for s in range(t)), seq[t]] for t in range(len(seq))
            )
            out.append((lp / _length_penalty(len(seq), alpha, penalty), lp, seq))
    out.sort(key=lambda x: -x[0])
    return out


@functools.cache
def _beam_eos(alpha, penalty, early_stopping):
    from transformer_theory.core.beam import beam_search_eos

    def run(table):
        def logprob_fn(buffer, t):
            return table[t, _prefix_index(buffer, t, EOS_V)]

        return beam_search_eos(
            logprob_fn,
            BOS,
            EOS,
            EOS_L,
            ALL_HYPOTHESES,
            EOS_V,
            alpha=alpha,
            penalty=penalty,
            early_stopping=early_stopping,
        )

    return jax.jit(run)


@given(
    setting=st.sampled_from([(0.0, "gnmt", True), (0.6, "gnmt", False), (1.5, "power", True)]),
    seed=st.integers(0, 2**32 - 1),
)
def test_eos_beam_keeping_every_candidate_ranks_all_hypotheses(setting, seed):
    alpha, penalty, early = setting
    table = _table(np.random.default_rng(seed), EOS_V, EOS_L, independent=False)
    hyp = _beam_eos(alpha, penalty, early)(jnp.asarray(table))
    ref = _all_hypotheses(table, alpha, penalty)
    assert len(ref) == ALL_HYPOTHESES
    np.testing.assert_allclose(np.asarray(hyp.scores_K), [r[0] for r in ref], rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(hyp.logprobs_K), [r[1] for r in ref], rtol=0, atol=1e-12)
    tokens, lengths = np.asarray(hyp.tokens_KxL), np.asarray(hyp.lengths_K)
    got = [tuple(int(x) for x in tokens[i, : lengths[i]]) for i in range(ALL_HYPOTHESES)]
    assert got == [r[2] for r in ref]
    np.testing.assert_array_equal(np.asarray(hyp.finished_K), [r[2][-1] == EOS for r in ref])
