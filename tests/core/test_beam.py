"""Beam search (Conti 2024, §1.2.5): greedy at width 1, exhaustive at width V^(L-1), against a
plain-Python beam search on lookup-table models, and the counterexample to "a larger beam is
never worse"."""

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory.core import beam, encdec


@functools.cache
def tiny_model(vocab=5, seed=0):
    init = jax.jit(encdec.init_seq2seq, static_argnums=(1, 2, 3, 4, 5), static_argnames="dtype")
    return init(jax.random.key(seed), vocab, 8, 2, 16, 1, dtype=jnp.float64)


def test_beam_one_is_greedy_and_scores_are_teacher_forced():
    params = tiny_model()

    @jax.jit
    @jax.vmap
    def decode(s):
        toks, lps = beam.beam_decode(params, s, 1, 5, 1)
        greedy = encdec.greedy_decode(params, s, 1, 5)
        return greedy, toks[0], lps[0], beam.sequence_logprob(params, s, toks[0], 1)

    src = jax.random.randint(jax.random.key(0), (6, 4), 0, 5)
    greedy, toks, lps, teacher = decode(src)
    np.testing.assert_array_equal(toks, greedy)
    assert_close(lps, teacher)


def test_wide_beam_finds_the_best_of_all_sequences():
    # V = 5, length 3: 125 sequences enumerated; a beam of V^2 = 25 keeps every prefix.
    params = tiny_model()
    src = jnp.array([0, 3, 2, 4])
    score = jax.jit(jax.vmap(lambda t: beam.sequence_logprob(params, src, t, 1)))
    every = jnp.array(list(itertools.product(range(5), repeat=3)))
    best = float(jnp.max(score(every)))
    toks, lps = jax.jit(lambda s: beam.beam_decode(params, s, 1, 3, 25))(src)
    assert_close(lps[0], best)
    assert np.all(np.diff(np.asarray(lps)) <= 0)  # best first
    narrow = jax.jit(lambda s: beam.beam_decode(params, s, 1, 3, 2))(src)
    assert float(narrow[1][0]) <= best  # a narrower beam: never above the optimum


def python_beam(table, vocab, length, k):
    """Reference: explicit lists of (score, prefix), sorted, truncated to k each step."""
    beams = [(0.0, ())]
    for _ in range(length):
        cand = [(s + table(p)[v], p + (v,)) for s, p in beams for v in range(vocab)]
        beams = sorted(cand, key=lambda c: -c[0])[:k]
    return beams


def table_logprob(rng_seed, vocab, length):
    """A random next-token model indexed by the whole prefix (a lookup table)."""
    rng = np.random.default_rng(rng_seed)
    logits = rng.normal(size=(vocab ** (length + 1), vocab)) * 2
    lp = logits - np.log(np.exp(logits).sum(1, keepdims=True))

    def code(prefix):
        c = 0
        for v in prefix:
            c = c * vocab + v + 1  # bijective base-V code of the prefix
        return c

    return lambda p: lp[code(p)], lp, code


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_matches_plain_python_beam_search(k):
    vocab, length = 3, 4
    table, lp, _ = table_logprob(k, vocab, length)
    lp_j = jnp.asarray(lp)

    def logprob_fn(buf, t):  # prefix = buf[1 : t + 1], coded as in table_logprob
        pos = jnp.arange(length + 1)
        digits = jnp.where((pos >= 1) & (pos <= t), buf + 1, 0)
        weights = jnp.where(pos <= t, vocab ** jnp.maximum(t - pos, 0), 0)
        return lp_j[jnp.sum(digits * weights)]

    toks, lps = jax.jit(lambda: beam.beam_search(logprob_fn, 0, length, k, vocab))()
    ref = python_beam(table, vocab, length, k)
    assert_close(lps[: len(ref)], np.array([s for s, _ in ref]))
    np.testing.assert_array_equal(np.asarray(toks[0]), ref[0][1])


# A language model over {a, b, c} (0, 1, 2) given as next-token distributions by prefix; every
# row sums to 1 (the "other" mass is token c). The printed counterexample of an earlier version
# had rows summing to 0.71, 0.26, 1.72: renormalized, beams 1 and 2 tie on it.
COUNTER = {
    (): [0.45, 0.44, 0.11],
    (0,): [0.46, 0.44, 0.10],
    (1,): [0.5, 0.5, 0.0],
    (0, 0): [1.0, 0.0, 0.0],
    (1, 0): [1 / 3, 1 / 3, 1 / 3],
    (1, 1): [1 / 3, 1 / 3, 1 / 3],
}


def counter_table(p):
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(COUNTER.get(p, [1 / 3] * 3)))


def test_a_larger_beam_can_find_a_less_likely_sequence():
    # "A larger beam is never worse" is false for beam search: the beam of 1 follows a, a, a
    # (.45 * .46 * 1 = .207); the beam of 2 keeps b a and b b (.44 * .5 = .22 each, above
    # a a's .207), which then spread uniformly: .22 / 3 = .0733.
    for row in COUNTER.values():
        assert sum(row) == pytest.approx(1.0, abs=1e-15)  # a language model, not a score table
    one = python_beam(counter_table, 3, 3, 1)[0]
    two = python_beam(counter_table, 3, 3, 2)[0]
    assert one[1] == (0, 0, 0) and np.exp(one[0]) == pytest.approx(0.45 * 0.46)
    assert np.exp(two[0]) == pytest.approx(0.44 * 0.5 / 3) and two[0] < one[0]
    # The library's beam search agrees (fixed length, no eos).
    lp_j = jnp.asarray(np.stack([counter_table(p) for p in prefixes(3, 3)]))
    for k, ref in ((1, one), (2, two)):
        toks, lps = beam.beam_search(table_fn(lp_j, 3, 3), 0, 3, k, 3)
        np.testing.assert_array_equal(np.asarray(toks[0]), ref[1])
        assert_close(lps[0], ref[0])


# --- beam search with eos and a length penalty ------------------------------------------------


def prefixes(vocab, length):
    """Every prefix of length 0..length, in the order of table_logprob's bijective code."""
    out = [()]
    for m in range(1, length + 1):
        out += list(itertools.product(range(vocab), repeat=m))
    return out


def table_fn(lp_j, vocab, length):
    """logprob_fn reading row code(buf[1 : t + 1]) of lp_j (table_logprob's code)."""

    def logprob_fn(buf, t):
        pos = jnp.arange(length + 1)
        digits = jnp.where((pos >= 1) & (pos <= t), buf + 1, 0)
        weights = jnp.where(pos <= t, vocab ** jnp.maximum(t - pos, 0), 0)
        return lp_j[jnp.sum(digits * weights)]

    return logprob_fn


def lp_norm(m, alpha, penalty):
    return ((5.0 + m) / 6.0) ** alpha if penalty == "gnmt" else float(m) ** alpha


def brute_force(table, vocab, eos, max_len, alpha, penalty):
    """Every hypothesis: m - 1 non-eos tokens then eos (m <= max_len), or max_len non-eos tokens
    (cut at max_len); returns [(score, logprob, tokens, finished)], best first."""
    out = []
    others = [v for v in range(vocab) if v != eos]
    for m in range(1, max_len + 1):
        for body in itertools.product(others, repeat=m - 1):
            y = body + (eos,)
            lp = sum(table(y[:i])[y[i]] for i in range(m))
            out.append((lp / lp_norm(m, alpha, penalty), lp, y, True))
    for y in itertools.product(others, repeat=max_len):
        lp = sum(table(y[:i])[y[i]] for i in range(max_len))
        out.append((lp / lp_norm(max_len, alpha, penalty), lp, y, False))
    return sorted(out, key=lambda h: -h[0])


def python_beam_eos(table, vocab, eos, max_len, k, alpha, penalty, early_stopping):
    """The rules of core.beam's module docstring, transcribed with lists."""
    beams, finished, count = [(0.0, ())], [], 0
    for t in range(max_len):
        cand = [(s + table(p)[v], p + (v,)) for s, p in beams for v in range(vocab)]
        cand = [c for c in cand if np.isfinite(c[0])]
        ranked = sorted(cand, key=lambda c: -c[0])
        new = [c for c in ranked[:k] if c[1][-1] == eos]
        count += len(new)
        finished += [(s / lp_norm(t + 1, alpha, penalty), s, p, True) for s, p in new]
        finished = sorted(finished, key=lambda h: -h[0])[:k]
        beams = [c for c in ranked if c[1][-1] != eos][:k]
        if early_stopping and count >= k:
            beams = []
            break
    finished += [(s / lp_norm(max_len, alpha, penalty), s, p, False) for s, p in beams]
    return sorted(finished, key=lambda h: -h[0])[:k]


def check_hypotheses(hyp, ref, eos, max_len):
    """hyp (library) against ref [(score, logprob, tokens, finished)] best first."""
    n = len(ref)
    assert_close(hyp.scores_K[:n], np.array([r[0] for r in ref]))
    assert_close(hyp.logprobs_K[:n], np.array([r[1] for r in ref]))
    assert np.all(np.isneginf(np.asarray(hyp.scores_K[n:])))
    for i, (_, _, y, done) in enumerate(ref):
        assert int(hyp.lengths_K[i]) == len(y) and bool(hyp.finished_K[i]) == done
        padded = list(y) + [eos] * (max_len - len(y))
        np.testing.assert_array_equal(np.asarray(hyp.tokens_KxL[i]), padded)


SETTINGS = [(0.0, "gnmt"), (0.6, "gnmt"), (1.0, "power")]


@pytest.mark.parametrize("alpha, penalty", SETTINGS)
def test_eos_beam_keeping_every_prefix_is_the_brute_force_optimum(alpha, penalty):
    # V = 3 (eos = 2), max_len 4: 2^4 cut + 15 ended hypotheses; a beam of 27 keeps every prefix
    # and every eos candidate is among the 27 best of its step (at most 3 * 8 candidates).
    vocab, eos, max_len, k = 3, 2, 4, 27
    fn = jax.jit(
        lambda lp: beam.beam_search_eos(
            table_fn(lp, vocab, max_len),
            0,
            eos,
            max_len,
            k,
            vocab,
            alpha=alpha,
            penalty=penalty,
            early_stopping=False,
        )
    )
    for seed in range(6):
        table, lp, _ = table_logprob(100 + seed, vocab, max_len)
        ref = brute_force(table, vocab, eos, max_len, alpha, penalty)
        check_hypotheses(fn(jnp.asarray(lp)), ref[:k], eos, max_len)


@pytest.mark.parametrize("k, early_stopping", [(1, True), (2, False), (3, True)])
def test_eos_beam_matches_plain_python_rules(k, early_stopping):
    vocab, eos, max_len = 4, 1, 4
    alpha = (0.0, 0.7, 1.5)[k - 1]  # one alpha per case (each is a compile)
    fn = jax.jit(
        lambda lp: beam.beam_search_eos(
            table_fn(lp, vocab, max_len),
            0,
            eos,
            max_len,
            k,
            vocab,
            alpha=alpha,
            early_stopping=early_stopping,
        )
    )
    for seed in range(8):
        table, lp, _ = table_logprob([k, seed], vocab, max_len)
        hyp = fn(jnp.asarray(lp))
        ref = python_beam_eos(table, vocab, eos, max_len, k, alpha, "gnmt", early_stopping)
        check_hypotheses(hyp, ref, eos, max_len)
        best = brute_force(table, vocab, eos, max_len, alpha, "gnmt")[0][0]
        assert float(hyp.scores_K[0]) <= best + 1e-12  # never above the optimum


def test_eos_beam_one_is_greedy_until_eos():
    vocab, eos, max_len = 4, 3, 5
    fn = jax.jit(
        lambda lp: beam.beam_search_eos(table_fn(lp, vocab, max_len), 0, eos, max_len, 1, vocab)
    )
    for seed in range(6):
        table, lp, _ = table_logprob([7, seed], vocab, max_len)
        y, total = (), 0.0
        while len(y) < max_len:  # greedy: argmax, stop after eos
            v = int(np.argmax(table(y)))
            total += table(y)[v]
            y += (v,)
            if v == eos:
                break
        check_hypotheses(fn(jnp.asarray(lp)), [(total, total, y, y[-1] == eos)], eos, max_len)


def test_length_penalty_changes_the_winner():
    # V = {a, eos}, max_len 2: p(a) = .6, p(eos) = .4; after a, eos .6 and a .4. Hypotheses:
    # (eos) log .4 = -0.916; (a, eos) log .36 = -1.022; (a, a) cut, log .24 = -1.427. Scored by
    # log-probability (alpha = 0) the short one wins; with |y|^1, (a, eos) scores -0.511.
    lp = {(): [np.log(0.6), np.log(0.4)], (0,): [np.log(0.4), np.log(0.6)]}

    def table(p):
        return np.asarray(lp.get(p, [np.log(0.5), np.log(0.5)]))

    rows = np.stack([table(p) for p in prefixes(2, 2)])
    run = lambda alpha: beam.beam_search_eos(  # noqa: E731
        table_fn(jnp.asarray(rows), 2, 2),
        0,
        1,
        2,
        2,
        2,
        alpha=alpha,
        penalty="power",
        early_stopping=False,
    )
    assert list(np.asarray(run(0.0).tokens_KxL[0])) == [1, 1]  # eos at once: log .4
    assert list(np.asarray(run(1.0).tokens_KxL[0])) == [0, 1]  # a, eos: log .3 / 2


def test_beam_decode_eos_scores_are_teacher_forced():
    params = tiny_model()
    src = jnp.array([0, 3, 2, 4])
    bos, eos, max_len, k, alpha = 1, 2, 3, 2, 0.6

    @jax.jit
    def run(s):
        hyp = beam.beam_decode_eos(params, s, bos, eos, max_len, k, alpha=alpha)

        def per_token(toks):  # teacher-forced log p(y_t | y_<t, x) from the model's logits
            inputs = jnp.concatenate([jnp.full((1,), bos, jnp.int32), toks[:-1]])
            lp = jax.nn.log_softmax(encdec.seq2seq_logits(params, s, inputs), axis=-1)
            return jnp.take_along_axis(lp, toks[:, None], axis=-1)[:, 0]

        return hyp, jax.vmap(per_token)(hyp.tokens_KxL)

    hyp, per = run(src)
    assert np.isfinite(np.asarray(hyp.scores_K)).all()
    for i in range(k):
        m = int(hyp.lengths_K[i])
        lp = float(np.asarray(per[i, :m], np.float64).sum())
        assert_close(hyp.logprobs_K[i], lp)
        assert_close(hyp.scores_K[i], lp / ((5 + m) / 6) ** alpha)


def test_bad_arguments_are_named():
    params = tiny_model()
    with pytest.raises(ValueError, match="beam_size"):
        beam.beam_decode(params, jnp.array([0, 1]), 1, 3, 0)
    with pytest.raises(ValueError, match="src_N"):
        beam.beam_decode(params, jnp.array([0, 9]), 1, 3, 2)
    with pytest.raises(ValueError, match="bos"):
        beam.beam_search(lambda b, t: jnp.zeros(3), 5, 2, 1, 3)
    with pytest.raises(ValueError, match="eos"):
        beam.beam_search_eos(lambda b, t: jnp.zeros(3), 0, 3, 2, 1, 3)
    with pytest.raises(ValueError, match="alpha"):
        beam.beam_search_eos(lambda b, t: jnp.zeros(3), 0, 2, 2, 1, 3, alpha=float("nan"))
    with pytest.raises(ValueError, match="penalty"):
        beam.beam_decode_eos(params, jnp.array([0, 1]), 1, 2, 3, 2, penalty="nonsense")
