"""The n-gram LM: probabilities against a walk over a dict of BOS-padded tuples, the mass of all
strings up to L against the forward recursion, sampling against exact probabilities."""

import itertools
import math

import numpy as np
import pytest

from transformer_theory.papers.svete_cotterell2024 import _tasks as ngram


def _reference_log_prob(lm, string):
    """Walk the string with a dict ``history tuple -> row`` (BOS written as 'B')."""
    m = lm.order - 1
    rows = {}
    for hist, row in zip(ngram.histories(lm.alphabet_size, lm.order), lm.log_probs_AxC):
        rows[tuple("B" if s == lm.alphabet_size else int(s) for s in hist)] = row
    window = ("B",) * m
    total = 0.0
    for s in list(string) + ["EOS"]:
        row = rows[window]
        total += row[lm.alphabet_size if s == "EOS" else s]
        window = (window + (s,))[1:] if m else ()
    return total


@pytest.mark.parametrize("alphabet, order", [(2, 1), (2, 2), (3, 3), (2, 4)])
def test_histories_are_indexed_consistently(alphabet, order):
    hist = ngram.histories(alphabet, order)
    assert len(hist) == ngram.num_histories(alphabet, order) == len({tuple(h) for h in hist})
    np.testing.assert_array_equal(ngram.history_ids(alphabet, order, hist), np.arange(len(hist)))


@pytest.mark.parametrize("alphabet, order", [(2, 1), (2, 2), (3, 3), (2, 4)])
def test_log_prob_every_string_matches_the_reference_walk(alphabet, order):
    lm = ngram.NGramLM.random(order, alphabet, order, zero_fraction=0.3)
    for length in range(5):
        strings = lm.strings_of_length(length)
        got = lm.log_prob(strings)
        want = np.array([_reference_log_prob(lm, s) for s in strings])
        np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
        fin = np.isfinite(want)
        np.testing.assert_allclose(got[fin], want[fin], rtol=1e-13)


def test_exact_zeros_make_impossible_strings():
    lm = ngram.NGramLM.random(0, 2, 2, zero_fraction=0.5)
    assert np.isneginf(lm.log_probs_AxC).any()
    assert not np.isneginf(lm.log_probs_AxC[:, -1]).any()  # EOS always possible: tight
    lp = np.concatenate([lm.log_prob(lm.strings_of_length(k)) for k in range(6)])
    assert np.isneginf(lp).any() and np.isfinite(lp).any()


@pytest.mark.parametrize("alphabet, order, zeros", [(2, 2, 0.0), (3, 3, 0.3), (2, 4, 0.2)])
def test_mass_up_to_L_enumeration_equals_forward_recursion(alphabet, order, zeros):
    lm = ngram.NGramLM.random(7, alphabet, order, zero_fraction=zeros)
    total = 0.0
    for length in range(7):
        total += math.fsum(np.exp(lm.log_prob(lm.strings_of_length(length))))
        assert total == pytest.approx(lm.mass_up_to(length), rel=1e-12)
    assert total <= 1.0
    assert lm.mass_up_to(400) == pytest.approx(1.0, abs=1e-9)  # tight: all mass ends


def test_samples_follow_the_probabilities():
    """Frequencies of the strings of length <= 2 in 40k samples lie within 5 standard errors."""
    lm = ngram.NGramLM.random(3, 2, 2)
    strings, lengths = lm.sample(11, 40_000, 6)
    counts = {}
    for s, n in zip(strings, lengths):
        if n <= 2:
            counts[tuple(s[:n])] = counts.get(tuple(s[:n]), 0) + 1
    for length in range(3):
        for s in itertools.product(range(2), repeat=length):
            p = math.exp(_reference_log_prob(lm, s))
            se = math.sqrt(p * (1 - p) / 40_000)
            assert abs(counts.get(s, 0) / 40_000 - p) < 5 * se + 1e-9


def test_lm_batch_targets_and_weights():
    strings = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0]])
    lengths = np.array([1, 3, 4])  # ends after 1; ends exactly at max_len; cut (no EOS drawn)
    inputs, targets, weights = ngram.lm_batch(strings, lengths, bos_pad=2, bos=2, eos=2)
    np.testing.assert_array_equal(inputs[1], [2, 2, 0, 1, 1])
    # position 1 (the last BOS) predicts y_1, position 1 + t predicts y_{t+1}, then EOS.
    np.testing.assert_array_equal(targets[0], [0, 1, 2, 0, 0])
    np.testing.assert_array_equal(weights[0], [0, 1, 1, 0, 0])
    np.testing.assert_array_equal(targets[1], [0, 0, 1, 1, 2])
    np.testing.assert_array_equal(weights[1], [0, 1, 1, 1, 1])
    np.testing.assert_array_equal(targets[2], [0, 1, 1, 0, 0])
    np.testing.assert_array_equal(weights[2], [0, 1, 1, 1, 0])


def test_low_rank_lm_has_a_low_rank_log_table():
    lm = ngram.NGramLM.random(0, 4, 3, rank=2)
    centered = lm.log_probs_AxC - lm.log_probs_AxC.mean(axis=1, keepdims=True)
    s = np.linalg.svd(centered, compute_uv=False)
    assert (s[2:] < 1e-9 * s[0]).all() and s[1] > 1e-3


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="log_probs_AxC"):
        ngram.NGramLM(2, 2, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="zero_fraction"):
        ngram.NGramLM.random(0, 2, 2, zero_fraction=1.0)
    lm = ngram.NGramLM.random(0, 2, 2)
    with pytest.raises(ValueError, match="strings_BxN"):
        lm.log_prob(np.array([[0, 2]]))
    with pytest.raises(ValueError, match="windows_BxN"):
        ngram.history_ids(2, 3, np.array([[0, 2]]))
