"""Mutants of Conti 2024's rows: each breaks the thing a row is about (a sign, a scale, a mask, a
rank constant, a search) in the library the check calls, and the row must no longer reach its
expected status (tests/mutants.py). A broken library under a printed statement or a correction
reads ``failed`` (the library's, never the thesis's, failure); a printed object that holds makes
a correction unneeded (``failed``); a check that skips elements of its domain, or whose witness
leaves its certified bound, reads ``failed``."""

import math

import jax.numpy as jnp
import numpy as np

from tests.mutants import mutant, status_of
from transformer_theory.core import attention, beam, linear, positional
from transformer_theory.papers.conti2024 import _checks as checks
from transformer_theory.papers.conti2024 import _theory_heads as heads
from transformer_theory.papers.conti2024 import _theory_linformer as linformer


@mutant("conti2024.softmax_jacobian")
def test_the_printed_jacobian_sign_in_the_library(monkeypatch):
    real = attention.softmax_jacobian

    def printed(s_K):  # the printed sign: -s_i (1 - s_i) on the diagonal of rows 2..n
        j = real(s_K)
        n = s_K.shape[0]
        flip = jnp.where(jnp.arange(n) > 0, -1.0, 1.0).astype(j.dtype)
        return j * jnp.where(jnp.eye(n, dtype=bool), flip[:, None], 1.0)

    monkeypatch.setattr(attention, "softmax_jacobian", printed)
    # the printed matrix fails AND so does the correction: the library's failure
    assert status_of("conti2024.softmax_jacobian", ns=(2,), draws=4) == "failed"


@mutant("conti2024.softmax_jacobian")
def test_a_printed_matrix_that_holds_leaves_the_correction_unneeded(monkeypatch):
    # the check's printed object replaced by diag(s) - s s^T: the printed statement now holds,
    # and a correction of a statement that holds is no correction (never 'verified')
    monkeypatch.setattr(
        checks,
        "_printed_jacobian",
        lambda s: [
            [(s[i] if i == j else 0) - s[i] * s[j] for j in range(len(s))] for i in range(len(s))
        ],
    )
    assert status_of("conti2024.softmax_jacobian", ns=(2,), draws=4) == "failed"


@mutant("conti2024.softmax_saturation")
def test_a_softmax_at_temperature_two_does_not_saturate_as_fast(monkeypatch):
    real = attention.softmax_weights
    monkeypatch.setattr(attention, "softmax_weights", lambda s, m=None: real(s / 2.0, m))
    # the exact Jacobian still saturates; the library's float64 one leaves its enclosure
    assert status_of("conti2024.softmax_saturation", ts=(20,)) == "failed"


@mutant("conti2024.softmax_saturation")
def test_a_saturation_bound_divided_by_100_is_unsound(monkeypatch):
    monkeypatch.setattr(checks, "SATURATION_CONSTANT", checks.SATURATION_CONSTANT / 100)
    assert status_of("conti2024.softmax_saturation", ts=(20,)) == "failed"


@mutant("conti2024.scale_sqrt_k")
def test_a_scale_of_one_over_k_in_the_library(monkeypatch):
    monkeypatch.setattr(attention, "scale_scores", lambda s, k: s / np.float64(k))
    assert status_of("conti2024.scale_sqrt_k", dims=(1, 2, 3)) == "failed"


@mutant("conti2024.scale_sqrt_k")
def test_sign_vectors_that_skip_one_are_an_incomplete_check(monkeypatch):
    every = checks._sign_vectors
    monkeypatch.setattr(checks, "_sign_vectors", lambda k: every(k)[1:])
    assert status_of("conti2024.scale_sqrt_k", dims=(1, 2, 3)) == "failed"


@mutant("conti2024.sinusoidal_shift")
def test_a_shift_map_rotating_the_wrong_way(monkeypatch):
    real = positional.sinusoidal_shift
    monkeypatch.setattr(positional, "sinusoidal_shift", lambda s, dim, **kw: real(s, dim, **kw).T)
    assert status_of("conti2024.sinusoidal_shift", n=16, dim=8, shifts=(1,)) == "failed"


@mutant("conti2024.causal_linear_attention")
def test_causal_linear_attention_that_looks_ahead(monkeypatch):
    real = linear.linear_attention

    def leaky(q, k, v, feature_map=None, *, causal=False):  # ignores the causal prefix
        return real(q, k, v, feature_map, causal=False)

    monkeypatch.setattr(linear, "linear_attention", leaky)
    assert status_of("conti2024.causal_linear_attention", ns=(5,), seeds=1) == "failed"


@mutant("conti2024.taylor_attention")
def test_taylor_attention_that_ignores_the_mask(monkeypatch):
    real = linear.taylor_attention
    monkeypatch.setattr(linear, "taylor_attention", lambda q, k, v, *, causal=False: real(q, k, v))
    assert status_of("conti2024.taylor_attention", ns=(7,), seeds=1) == "failed"


@mutant("conti2024.linformer_jl")
def test_a_rank_constant_four_times_too_small(monkeypatch):
    """The union bound's rank divided by 4 (about half the rank the hardest P needs): the
    binomial rule rejects it at the quick sizes (the full sizes' n = 256, 1024 reject it with
    more failures still: the failure rate at k / 4 grows with n)."""
    real = linformer.row_bound_rank
    monkeypatch.setattr(
        linformer, "row_bound_rank", lambda n, eps, delta: math.ceil(real(n, eps, delta) / 4)
    )
    assert status_of("conti2024.linformer_jl") == "failed"


@mutant("conti2024.heads_synthetic")
def test_a_classifier_that_always_says_positional(monkeypatch):
    real = heads.classify_map

    def always_positional(a, options=None):
        return dict(real(a, options or heads.HeadClassifySettings()), kind="positional")

    monkeypatch.setattr(heads, "classify_map", always_positional)
    assert status_of("conti2024.heads_synthetic", sizes=(8,), per=1) == "unreproduced"


@mutant("conti2024.heads_projection")
def test_a_projection_with_half_the_error_budget(monkeypatch):
    real = heads.project
    monkeypatch.setattr(heads, "project", lambda a, s, eps, m=None: real(a, s, eps / 2, m))
    assert status_of("conti2024.heads_projection", seeds=1) == "failed"


@mutant("conti2024.beam_larger_can_be_worse")
def test_a_beam_search_that_is_greedy_for_every_beam_finds_no_witness(monkeypatch):
    real = beam.beam_search

    def greedy_for_all(logprob_fn, bos, length, beam_size, vocab_size):
        return real(logprob_fn, bos, length, 1, vocab_size)

    monkeypatch.setattr(beam, "beam_search", greedy_for_all)
    assert status_of("conti2024.beam_larger_can_be_worse") == "open"


@mutant("conti2024.beam_eos")
def test_a_beam_search_that_ignores_the_length_penalty(monkeypatch):
    real = beam.beam_search_eos

    def unpenalized(logprob_fn, bos, eos, max_len, beam_size, vocab_size, **kw):
        return real(logprob_fn, bos, eos, max_len, beam_size, vocab_size, **{**kw, "alpha": 0.0})

    monkeypatch.setattr(beam, "beam_search_eos", unpenalized)
    assert status_of("conti2024.beam_eos") == "failed"
