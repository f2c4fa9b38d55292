"""Chen & Zou 2024, Lemmas 1-3 and Theorem 1 (Lemma 4 + Lemma 3): the constructions do what the
lemmas say."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.constructions.test_reference import all_logits, paper_forward
from tests.helpers import assert_close
from transformer_theory.constructions import (
    check_construction,
    constrained_attention,
    instructive_attention,
    lemma3_classifier,
    lemma4_layer,
    masking_magnitude,
    theorem1,
)
from transformer_theory.constructions._common import assemble, construction_config
from transformer_theory.core.forward import forward_trace, last_hidden
from transformer_theory.tasks import SequenceClassification


def _one_layer(w_qk, d, n, D):
    cfg = construction_config(d, n, D, 2, (1,))
    return assemble(cfg, [(w_qk[None], np.eye(D)[None])], np.zeros((2, D)), jnp.float64)


def test_lemma1_attention_map_is_alpha_for_every_sequence():
    """Lemma 1: relu(H^T W_QK H) = alpha whatever the tokens -- all 3^3 sequences of length 3."""
    d, n, D = 3, 3, 8
    alpha = np.random.default_rng(0).uniform(0, 2, (n, n))
    params = _one_layer(instructive_attention(alpha, d, D), d, n, D)
    seqs = jnp.array(list(itertools.product(range(d), repeat=n)))
    maps = jax.jit(jax.vmap(lambda t: forward_trace(params, t).attention[0][0]))(seqs)
    # The library's weights are [query, key]; alpha is the paper's [key, query]. Exact: P = I.
    assert_close(maps, np.broadcast_to(alpha.T, maps.shape), rtol=0, atol=0)


def test_lemma2_masked_entries_get_exactly_zero_weight():
    """Lemma 2 with ReLU: masked (key, query) pairs get weight 0 on every input, unmasked ones keep
    the base scores; the default magnitude is the eq. 4 bound + 1."""
    d, n, D = 3, 4, 7
    rng = np.random.default_rng(1)
    base = np.zeros((D, D))
    base[: d + n, : d + n] = rng.normal(size=(d + n, d + n))
    allowed = rng.uniform(size=(n, n)) < 0.5
    w = constrained_attention(allowed, d, D, base)
    seqs = jnp.array(list(itertools.product(range(d), repeat=n)))
    p_masked, p_base = _one_layer(w, d, n, D), _one_layer(base, d, n, D)
    got = jax.jit(jax.vmap(lambda t: forward_trace(p_masked, t).attention[0][0]))(seqs)
    want = jax.jit(jax.vmap(lambda t: forward_trace(p_base, t).attention[0][0]))(seqs)
    mask_qk = allowed.T[None]  # [query, key]
    assert np.all(np.asarray(got)[:, ~allowed.T] == 0.0)
    assert_close(np.where(mask_qk, got, 0.0), np.where(mask_qk, want, 0.0))
    # The bound is attained by some input, so a magnitude just below it must be refused.
    need = masking_magnitude(base, d, n)[~allowed].max()
    with pytest.raises(ValueError, match="magnitude"):
        constrained_attention(allowed, d, D, base, magnitude=need - 1e-3)


def _numpy_margins(x, y, w):
    o = x @ w
    correct = o[np.arange(len(y)), y]
    o[np.arange(len(y)), y] = -np.inf
    return correct - o.max(axis=1)


@pytest.mark.parametrize("n,dim,classes", [(1, 3, 4), (2, 2, 2), (40, 5, 40), (60, 8, 75)])
def test_lemma3_separates_pairwise_independent_vectors(n, dim, classes):
    """Lemma 3: every vector is classified to its own (distinct, arbitrary) label with a positive
    margin, recomputed here in NumPy; more vectors than dimensions (40 in R^5) is the hard case."""
    rng = np.random.default_rng(n)
    x = rng.normal(size=(n, dim))
    y = rng.permutation(classes)[:n]
    w, margins = lemma3_classifier(x, y, classes)
    ref = _numpy_margins(x, y, w)
    assert w.shape == (dim, classes) and w.dtype == np.float64
    assert ref.min() > 0
    assert_close(margins, ref)


def test_lemma3_rejects_bad_input():
    x = np.eye(3)
    with pytest.raises(ValueError, match="labels_B"):
        lemma3_classifier(x, np.array([0, 0, 1]))
    with pytest.raises(ValueError, match="labels_B"):
        lemma3_classifier(x, np.array([0, 1, 3]))
    with pytest.raises(ValueError, match="num_classes"):
        lemma3_classifier(x, np.array([0, 1, 2]), num_classes=2)
    # x_2 = 2 x_0: no linear map can give them different argmaxes.
    with pytest.raises(ValueError, match="x_BxD"):
        lemma3_classifier(np.array([[1.0, 2.0], [0.0, 1.0], [2.0, 4.0]]), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="x_BxD"):
        lemma3_classifier(np.ones(3), np.array([0]))


def test_lemma4_last_stream_is_the_concatenated_tokens():
    """Lemma 4: after the one layer the last stream is [x_0; ...; x_{k-1}; 0] exactly, for all 3^3
    inputs."""
    d, n = 4, 4  # 3 symbols + CLS
    w_qk, w_v = lemma4_layer(d, n)
    D = max(n * d, d + n)
    params = assemble(
        construction_config(d, n, D, 2, (n,)), [(w_qk, w_v)], np.zeros((2, D)), jnp.float64
    )
    seqs = np.array([list(s) + [d - 1] for s in itertools.product(range(d - 1), repeat=n - 1)])
    got = jax.jit(jax.vmap(lambda t: last_hidden(params, t)))(jnp.asarray(seqs))
    want = np.zeros((len(seqs), D))
    for r, s in enumerate(seqs):
        for i, tok in enumerate(s[:-1]):
            want[r, i * d + tok] = 1.0
    assert_close(got, want, atol=1e-14)


def test_lemma4_printed_display_is_the_value_and_printed_width_is_short():
    """Lemma 4 displays ``alpha_i[:, n-1] = n [0_{id}; x_i; 0]``: a d'-vector, where a map column
    has n entries. It is the head's value ``W_V_i H alpha_i[:, n-1]`` for the map ``e_i`` of the
    next sentence (checked here on every input). The printed width ``max{kd, d + k}`` cannot hold
    the eq. 3 embedding (d + n) for k = 1, and ``lemma4_layer`` refuses it; ``kd`` is enough
    whenever it covers the embedding (Theorem 1's ``max{nd, d + n}`` is d more than needed)."""
    d, n = 3, 4  # 2 symbols + CLS, k = 3
    k = n - 1
    D = max(k * d, d + n)  # 9: less than Theorem 1's 12
    w_qk, w_v = lemma4_layer(d, n, D)
    params = assemble(
        construction_config(d, n, D, 2, (n,)), [(w_qk, w_v)], np.zeros((2, D)), jnp.float64
    )
    for s in itertools.product(range(d - 1), repeat=k):
        tokens = np.array(list(s) + [d - 1])
        H = np.zeros((D, n))
        H[tokens, np.arange(n)] = 1.0
        H[d + np.arange(n), np.arange(n)] = 1.0
        for i in range(k):
            alpha_col = np.eye(n)[i]  # the map: key i, for the last query
            display = np.zeros(D)
            display[i * d + tokens[i]] = n  # n [0_{id}; x_i; 0]
            assert_close(w_v[i] @ H @ alpha_col, display, rtol=0, atol=0)
            relu = np.maximum(H.T @ w_qk[i] @ H, 0.0)  # the map the head actually computes
            assert_close(relu[:, n - 1], alpha_col, rtol=0, atol=0)
        want = np.zeros(D)
        want[np.arange(k) * d + tokens[:k]] = 1.0
        assert_close(last_hidden(params, jnp.asarray(tokens)), want, rtol=0, atol=0)
    for d, n in ((3, 2), (2, 3)):  # k = 1; k = 2 over one symbol
        k = n - 1
        with pytest.raises(ValueError, match="width"):
            lemma4_layer(d, n, width=max(k * d, d + k))


@pytest.mark.parametrize("alphabet,length,num", [(2, 3, 8), (4, 4, 60)])
def test_theorem1_memorizes_every_sequence(alphabet, length, num):
    """Theorem 1: one layer, n heads, d' = max{nd, d+n} classifies all N sequences (margins > 0),
    checked against the labels with the NumPy reference on a few rows."""
    task = SequenceClassification(alphabet, length, num, seed=3)
    params = theorem1(task)
    cfg = params.config
    assert (cfg.depth, cfg.heads, cfg.width) == (
        1,
        (length + 1,),
        max((length + 1) * (alphabet + 1), alphabet + length + 2),
    )
    assert cfg.attention == "relu" and not cfg.causal and cfg.head_mean
    tokens, labels = map(np.asarray, task.all())
    logits = all_logits(params, tokens)
    margins = _numpy_margins(logits.copy(), labels, np.eye(logits.shape[1]))
    assert margins.min() > 0
    for t in tokens[:3]:
        assert_close(paper_forward(t, params), all_logits(params, t[None])[0], atol=1e-10)
    res = check_construction(params, task, chunk_size=16)
    assert res["accuracy"] == 1.0 and res["examples"] == num
    assert_close(res["min_margin"], margins.min(), atol=1e-12)


def test_lemma_inputs_raise_naming_the_argument():
    with pytest.raises(ValueError, match="alpha_NxN"):
        instructive_attention(-np.ones((3, 3)), 2, 6)
    with pytest.raises(ValueError, match="alpha_NxN"):
        instructive_attention(np.ones((3, 2)), 2, 6)
    with pytest.raises(ValueError, match="width"):
        instructive_attention(np.ones((3, 3)), 2, 4)
    with pytest.raises(ValueError, match="allowed_NxN"):
        constrained_attention(np.ones((3, 3)), 2, 6)
    with pytest.raises(ValueError, match="width"):
        lemma4_layer(3, 3, width=5)
    with pytest.raises(ValueError, match="task"):
        theorem1(object())
