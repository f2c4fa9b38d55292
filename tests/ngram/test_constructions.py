"""Svete & Cotterell 2024, Theorems 3.1-3.3: the constructed transformer LMs against an n-gram
reference written here (a walk over BOS-padded history tuples), exhaustively on small alphabets.

Tolerances: an exact construction's per-position distribution is the n-gram's table row rounded
to float64 and renormalized by ``log_softmax``: a few ulps of ``|log p| <= 10`` per entry, so
1e-12 leaves a factor of ~100 to spare, while a wrong history changes an entry by a difference
between two Dirichlet rows (order 0.1-1).
"""

import json
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.ngram.test_lm import _reference_log_prob
from transformer_theory.analysis import ngram as an
from transformer_theory.cli import main
from transformer_theory.constructions import ngram as cn
from transformer_theory.core import positional
from transformer_theory.core.forward import forward_all, forward_trace, lm_inputs, lm_log_probs
from transformer_theory.tasks import ngram


def _reference_rows(lm, string):
    """``log p(. | history)`` over Sigma + EOS before every symbol and after the last, from a dict
    keyed by the BOS-padded history tuple."""
    m = lm.order - 1
    rows = {
        tuple(int(s) for s in hist): row
        for hist, row in zip(ngram.histories(lm.alphabet_size, lm.order), lm.log_probs_AxC)
    }
    window = (lm.alphabet_size,) * m
    out = []
    for s in list(string) + [None]:
        out.append(rows[window])
        if s is not None:
            window = (window + (int(s),))[1:]
    return np.array(out)


@pytest.mark.parametrize("order", [2, 3, 4])
@pytest.mark.parametrize("construction", cn.CONSTRUCTIONS)
def test_every_next_symbol_distribution_is_the_ngrams(order, construction):
    """All 2^4 strings of length 4 over a binary alphabet (with exact zeros in the table): the
    distribution at every position, EOS included, equals the n-gram's row for that history --
    which fixes log q(y') = log p(y') for every string y' of length <= 4."""
    lm = ngram.NGramLM.random(order, 2, order, zero_fraction=0.3)
    attention = "sparse" if order == 3 else "hard"
    params = cn.build(lm, construction, attention=attention, max_len=4)
    strings = lm.strings_of_length(4)
    fn = jax.jit(
        jax.vmap(lambda s: jax.nn.log_softmax(forward_all(params, lm_inputs(params.config, s))))
    )
    got = np.asarray(fn(jnp.asarray(strings)))[:, order - 2 :]  # the positions that predict
    for string, rows in zip(strings, got):
        want = _reference_rows(lm, string)
        np.testing.assert_array_equal(np.isneginf(rows), np.isneginf(want))
        fin = np.isfinite(want)
        np.testing.assert_allclose(rows[fin], want[fin], rtol=0, atol=1e-12)


def test_string_log_probs_and_the_mass_up_to_L():
    """log q(y) of every string up to length 4 equals the reference walk, and the mass the model
    gives to those strings is the n-gram's own mass (a forward recursion, not enumerated)."""
    lm = ngram.NGramLM.random(7, 3, 3, zero_fraction=0.2)
    params = cn.build(lm, "3.3", max_len=4)
    rec = an.equivalence_record(lm, params, 4)
    assert rec["equivalent"] and rec["exhaustive"] and rec["strings"] == sum(3**k for k in range(5))
    assert rec["max_abs_logprob_diff"] < 1e-12
    assert math.isclose(rec["mass_transformer"], rec["mass_ngram"], rel_tol=0, abs_tol=1e-12)
    strings = lm.strings_of_length(4)
    got = an.transformer_log_prob(params, strings)  # compiled above for this length
    want = np.array([_reference_log_prob(lm, s) for s in strings])
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
    np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=0, atol=1e-12)


def test_heads_attend_where_the_proof_says():
    """3.1: head h attends to t - h (one-hot); 3.3: the head averages the last n - 1 positions."""
    lm = ngram.NGramLM.random(1, 2, 4)
    multi, single = cn.build(lm, "3.1"), cn.build(lm, "3.3")
    tokens = lm_inputs(multi.config, jnp.asarray([0, 1, 1, 0, 1]))
    n = tokens.shape[0]
    maps = jax.jit(forward_trace)(multi, tokens).attention[0]
    for h in range(3):
        np.testing.assert_array_equal(maps[h], np.eye(n)[np.maximum(np.arange(n) - h, 0)])
    avg = jax.jit(forward_trace)(single, tokens).attention[0][0]
    for i in range(n):
        want = np.zeros(n)
        want[max(0, i - 2) : i + 1] = 1.0 / (i + 1 - max(0, i - 2))
        np.testing.assert_allclose(avg[i], want, rtol=0, atol=1e-15)


def test_literal_slide_query_map_is_not_a_unit_cosine():
    """The slides' first display maps the query to (sqrt(1/t), sqrt(1 - 1/(t+h))). Its score
    against u(j + h) still peaks at j = t - h for t > h (the positions predictions read), but the
    peak is not the cosine 1 the proof argues with (it exceeds 1); the score line's u(t) gives
    exactly the unit cosine at the target and less elsewhere."""

    def u(s):
        return np.stack([np.sqrt(1.0 / s), np.sqrt(1.0 - 1.0 / s)], -1)

    for h in (1, 2, 3):
        for t in range(h + 1, 400):
            keys = u(np.arange(1 + h, t + h + 1.0))
            literal = keys @ np.array([np.sqrt(1.0 / t), np.sqrt(1.0 - 1.0 / (t + h))])
            corrected = keys @ u(float(t))
            assert np.argmax(literal) + 1 + h == t == np.argmax(corrected) + 1 + h
            assert literal.max() > 1.0  # not a cosine: the "= 1 exactly at the target" fails
            assert abs(corrected.max() - 1.0) < 1e-15 and np.sort(corrected)[-2] < 1.0


def test_score_gap_against_direct_cosines():
    t = np.arange(1.0, 200.0)
    s = np.arange(1.0, 202.0)
    cos = (
        np.sqrt(1 / t)[:, None] * np.sqrt(1 / s)[None]
        + np.sqrt(1 - 1 / t)[:, None] * np.sqrt(1 - 1 / s)[None]
    )
    cos[np.arange(len(t)), np.arange(len(t))] = -np.inf
    direct = 1.0 - cos.max(axis=1)
    # float64 cosines near 1 lose ~1e-16 absolutely; the gap is >= 1/(8 t^3) ~ 1.6e-8 here
    np.testing.assert_allclose(cn.score_gap(t), direct, rtol=1e-6)


def test_vectorized_window_polynomials_match_numpy_poly1d():
    for w in (1, 2, 3):
        t = np.arange(1, 40)
        want = []
        for x in t:
            poly = np.poly1d([-1.0])
            for h in range(w):
                poly = poly * np.poly1d([1.0, -(x - h)]) ** 2
            want.append(poly.coeffs[::-1])
        np.testing.assert_array_equal(positional.window_score_polynomials(t, w), np.array(want))


@pytest.mark.parametrize("construction", ["3.1", "3.3"])
def test_precision_scan_marks_where_float32_strings_stop_being_exact(construction):
    """The scan's longest exact length is at least the derived guarantee, strings of that length
    are exact end to end, and at the first failing position the model's output changes."""
    lm = ngram.NGramLM.random(3, 2, 3)
    params = cn.build(lm, construction, dtype=jnp.float32)
    scan = an.selection_scan(params, construction, limit=512)
    longest = scan["longest_exact_length"]
    assert scan["method"] == "exhaustive" and longest is not None
    assert longest >= an.predicted_exact_length(construction, 3, jnp.float32)
    rng = np.random.default_rng(0)
    fn = jax.jit(jax.vmap(lambda s: lm_log_probs(params, s)))
    for length, exact in ((longest, True), (longest + 1, False)):
        strings = rng.integers(0, 2, size=(64, length))
        got = np.asarray(fn(jnp.asarray(strings)), np.float64)
        want = np.array([_reference_rows(lm, s)[np.arange(length + 1), [*s, 2]] for s in strings])
        # float32: the table rounded (u |log p|, |log p| <= ~6) plus log_softmax's ulps
        close = np.abs(got - want) <= 1e-5
        assert close.all() if exact else not close[:, -1].all()


def test_soft_attention_converges_to_the_ngram():
    lm = ngram.NGramLM.random(5, 2, 3)
    kl = [an.soft_kl(lm, "3.3", beta, 2) for beta in (0.5, 2.0, 50.0)]
    # a KL divergence: non-negative up to float64 rounding of sums of ~1 terms
    assert kl[0] > kl[1] > kl[2] >= -1e-14 and kl[2] < 1e-12
    assert an.soft_kl(lm, "3.3", 2.0, 3) >= kl[1]  # more steps, more divergence
    with pytest.raises(ValueError, match="lm"):
        an.soft_kl(ngram.NGramLM.random(5, 2, 3, zero_fraction=0.5), "3.3", 1.0, 2)


def test_bad_arguments_name_themselves():
    lm = ngram.NGramLM.random(0, 2, 2)
    for kwargs, name in (
        ({"construction": "3.4"}, "construction"),
        ({"attention": "leftmost"}, "attention"),
        ({"attention": "softmax"}, "beta"),
        ({"max_len": -1}, "max_len"),
    ):
        with pytest.raises(ValueError, match=name):
            cn.build(lm, **kwargs)
    with pytest.raises(ValueError, match="order"):
        cn.build(ngram.NGramLM.random(0, 2, 1))


def test_ngram_command_writes_its_records(tmp_path):
    code = main(
        ["ngram", "--order", "2", "--alphabet", "2", "--max-len", "2", "--construction", "3.1"]
        + ["--precision", "float32", "--scan-limit", "256", "--out", str(tmp_path)]
    )
    assert code == 0
    result = json.loads((tmp_path / "ngram.json").read_text())
    (rec,) = result["records"]
    assert rec["equivalent"] and rec["strings"] == 7 and rec["max_abs_logprob_diff"] < 1e-5
    assert (tmp_path / "ngram_precision.png").stat().st_size > 0


def test_learnability_experiment_smoke(tmp_path):
    """experiments/ngram_learnability.py --smoke: a few Adam steps; the construction's KL is 0 to
    rounding, the trained and unigram KLs are non-negative divergences."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "experiments" / "ngram_learnability.py"
    spec = importlib.util.spec_from_file_location("ngram_learnability", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--smoke", "--out", str(tmp_path)])
    (row,) = json.loads((tmp_path / "ngram_learnability.json").read_text())["rows"]
    assert abs(row["kl_per_symbol_construction"]) < 1e-12
    assert row["kl_per_symbol_trained"] > 0 and row["kl_per_symbol_unigram"] > 0
