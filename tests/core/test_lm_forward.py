"""The causal-LM extension of the one parameter format: per-position outputs, BOS, EOS, -inf.

References are written here in NumPy float64 (a one-layer causal softmax transformer, the
Svete & Cotterell positional codes, the window polynomial), independently of ``core``.
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from transformer_theory import core, params
from transformer_theory.core import positional


def _lm_config(**kw):
    base = dict(
        vocab_size=3, seq_len=8, width=7, num_classes=3, causal=True, causal_lm=True,
        attention="softmax", positional="svete", positional_window=2, bos_pad=2,
    )  # fmt: skip
    base.update(kw)
    return params.ModelConfig(**base)


def _numpy_lm_log_probs(p, string):
    """One-layer, one-head causal softmax LM with the svete code, in NumPy float64."""
    cfg = p.config
    toks = [cfg.vocab_size - 1] * cfg.bos_pad + list(string)
    n = len(toks)
    x = np.zeros((n, cfg.width))
    for i, tok in enumerate(toks):
        x[i, tok] = 1.0
        for h in range(cfg.positional_window):
            t = i + 1 + h
            x[i, cfg.vocab_size + 2 * h] = np.sqrt(1 / t)
            x[i, cfg.vocab_size + 2 * h + 1] = np.sqrt(1 - 1 / t)
    w_qk = np.asarray(p.layers[0].attn.w_qk[0])
    w_v = np.asarray(p.layers[0].attn.w_v[0])
    out = []
    for i in range(n):
        s = np.array([x[j] @ w_qk @ x[i] for j in range(i + 1)])
        a = np.exp(s - s.max())
        a /= a.sum()
        h = x[i] + sum(a[j] * (w_v @ x[j]) for j in range(i + 1))
        z = np.asarray(p.w_o) @ h
        out.append(z - z.max() - np.log(np.exp(z - z.max()).sum()))
    targets = list(string) + [cfg.num_classes - 1]
    return np.array([out[cfg.bos_pad - 1 + t][y] for t, y in enumerate(targets)])


def test_lm_log_probs_match_a_numpy_transformer():
    p = params.init_params(jax.random.key(0), _lm_config(), dtype=jnp.float64)
    log_probs, log_prob = jax.jit(core.lm_log_probs), jax.jit(core.lm_log_prob)
    for string in [(), (0,), (1, 0, 1), (0, 0, 1, 1, 0)]:
        got = log_probs(p, jnp.asarray(string, jnp.int32))
        assert_close(got, _numpy_lm_log_probs(p, string))
        assert_close(log_prob(p, jnp.asarray(string, jnp.int32)), got.sum())


def test_forward_all_last_row_is_forward_and_is_causal():
    p = params.init_params(jax.random.key(1), _lm_config(), dtype=jnp.float64)
    toks = jnp.array([2, 2, 0, 1, 1, 0])
    allpos = core.forward_all(p, toks)
    assert allpos.shape == (6, 3)
    assert_close(allpos[-1], core.forward(p, toks))
    changed = core.forward_all(p, toks.at[-1].set(1))
    assert_close(allpos[:-1], changed[:-1])  # the future does not reach the past
    assert not np.allclose(allpos[-1], changed[-1])


def test_string_probabilities_sum_to_at_most_one():
    """Every string up to length 4 over 2 symbols: an LM that ends every string with EOS puts
    mass < 1 on them, and more than on the empty string alone."""
    p = params.init_params(jax.random.key(2), _lm_config(), dtype=jnp.float64)
    batch = jax.jit(jax.vmap(core.lm_log_prob, in_axes=(None, 0)))
    total = 0.0
    for length in range(5):
        strings = np.array(list(itertools.product(range(2), repeat=length)), np.int32)
        total += float(jnp.exp(batch(p, strings.reshape(2**length, length))).sum())
    empty = float(jnp.exp(batch(p, np.zeros((1, 0), np.int32)))[0])
    assert empty < total < 1.0


def test_output_logits_extended_reals():
    w = jnp.array([[0.5, -jnp.inf, 1.0], [-jnp.inf, 2.0, 0.0]])
    h = jnp.array([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0]])
    got = np.asarray(core.output_logits(w, h))
    np.testing.assert_array_equal(got, [[2.5, -np.inf], [-np.inf, 2.0]])
    # A plain matmul is NaN there: the convention matters.
    assert np.isnan(np.asarray(h @ w.T)).any()
    # Finite weights: the plain product and its gradient.
    wf = jnp.array([[0.5, -1.0, 1.0]])
    assert_close(core.output_logits(wf, h), h @ wf.T)
    g = jax.grad(lambda x: core.output_logits(wf, x).sum())(h)
    assert_close(g, jnp.broadcast_to(wf, h.shape))


def test_svete_window_code_and_chiang_cholak():
    code = positional.positional_code("svete", 5, jnp.float64, window=3)
    t = np.arange(1, 6)[:, None] + np.arange(3)[None, :]
    want = np.stack([np.sqrt(1 / t), np.sqrt(1 - 1 / t)], -1).reshape(5, 6)
    assert_close(code, want)
    assert_close(positional.positional_code("svete", 5, jnp.float64), want[:, :2])
    cc = positional.positional_code("chiang_cholak", 4, jnp.float64)
    assert_close(cc, np.array([[0, 1], [0.25, -1], [0.5, 1], [0.75, -1]]))


@pytest.mark.parametrize("window", [1, 2, 3])
def test_window_polynomial_peaks_exactly_on_the_last_positions(window):
    for t in range(window, 12):
        c = positional.window_score_polynomial(t, window)
        for j in range(1, t + 1):
            score = sum(ck * j**k for k, ck in enumerate(c))  # integers: exact in float64
            want = -np.prod([(j - t + h) ** 2 for h in range(window)])
            assert score == want
            assert (score == 0) == (t - window < j <= t)
            assert score == 0 or score <= -1


def test_ngram_window_code_layout():
    toks = jnp.array([3, 0, 1, 2, 1])
    code = np.asarray(positional.ngram_window_code(toks, 4, 2, jnp.float64))
    assert code.shape == (5, 2 * 5 + 2 * 5)
    t = np.arange(1, 6)
    np.testing.assert_array_equal(code[:, :5], np.power.outer(t, np.arange(5)))
    np.testing.assert_array_equal(code[:, 10:12], np.eye(2)[t % 2])
    slots = code[:, 12:].reshape(5, 4, 2)
    for i, tok in enumerate(np.asarray(toks)):
        want = np.zeros((4, 2))
        want[tok, t[i] % 2] = 1
        np.testing.assert_array_equal(slots[i], want)
    emb = core.embed(
        params.init_params(
            jax.random.key(0),
            _lm_config(vocab_size=4, num_classes=4, positional="ngram_window", width=4 + 20),
            dtype=jnp.float64,
        ),
        toks,
    )
    np.testing.assert_array_equal(np.asarray(emb)[:, 4:], code)


def test_causal_lm_config_is_validated():
    with pytest.raises(ValueError, match="causal_lm"):
        _lm_config(causal=False)
    with pytest.raises(ValueError, match="num_classes"):
        _lm_config(num_classes=2)
    with pytest.raises(ValueError, match="bos_pad"):
        _lm_config(bos_pad=0)
    with pytest.raises(ValueError, match="params"):
        core.lm_log_probs(
            params.init_params(jax.random.key(0), _lm_config(causal_lm=False)), jnp.array([0])
        )
    p = params.init_params(jax.random.key(0), _lm_config())
    with pytest.raises(ValueError, match="string_N"):
        core.lm_log_probs(p, jnp.array([2]))  # BOS is not a symbol of a string
