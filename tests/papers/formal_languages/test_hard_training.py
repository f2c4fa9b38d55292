"""Straight-through hard attention (transformer_theory.papers.formal_languages._models): the
forward pass is leftmost-hard (average-hard) attention exactly, against a NumPy reference; the
backward pass is the softmax Jacobian, against ``diag(p) - p p^T`` written out in NumPy; a model
trained this way is the hard-attention model the core evaluates; and a two-step smoke run of the
training loop (through train.fit)."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from transformer_theory.core.forward import forward
from transformer_theory.papers.formal_languages import _models
from transformer_theory.papers.formal_languages import _tasks as tasks
from transformer_theory.params import init_params


def hard_reference(scores, mask, mode):
    """One-hot on the first maximizer among allowed keys (or uniform over them); zero rows where
    nothing is allowed."""
    out = np.zeros_like(scores)
    for i, (row, allowed) in enumerate(zip(scores, mask)):
        if not allowed.any():
            continue
        top = max(row[allowed])
        winners = [j for j in range(len(row)) if allowed[j] and row[j] == top]
        if mode == "leftmost":
            out[i, winners[0]] = 1.0
        else:
            out[i, winners] = 1.0 / len(winners)
    return out


def softmax_vjp_reference(scores, mask, cotangent):
    """``J^T c`` per row, ``J = diag(p) - p p^T`` over the allowed keys (zero elsewhere)."""
    grads = np.zeros_like(scores)
    for i, (row, allowed, c) in enumerate(zip(scores, mask, cotangent)):
        if not allowed.any():
            continue
        e = np.where(allowed, np.exp(row - row[allowed].max()), 0.0)
        p = e / e.sum()
        grads[i] = (np.diag(p) - np.outer(p, p)).T @ c
    return grads


# Scores with ties (small integers) in rows 0-2, a causal-style mask, and a fully masked row 3.
SCORES = np.array(
    [
        [1.0, 3.0, 3.0, 0.0, 3.0],
        [2.0, 2.0, 2.0, 2.0, 2.0],
        [-1.0, 0.5, -4.0, 0.5, 0.25],
        [5.0, 1.0, 0.0, 0.0, 2.0],
        [0.1, -0.2, 0.3, 0.3, -7.0],
    ]
)
MASK = np.array(
    [
        [True, True, True, False, True],
        [False, True, True, True, False],
        [True, True, True, True, True],
        [False, False, False, False, False],
        [True, False, True, True, True],
    ]
)


@pytest.mark.parametrize("mode", ["leftmost", "average"])
def test_straight_through_forward_is_hard_attention_exactly(mode):
    got = jax.jit(lambda s, m: _models.straight_through_weights(s, m, mode=mode))(
        jnp.asarray(SCORES), jnp.asarray(MASK)
    )
    # Exact: hard + (soft - soft) adds 0.0 to each entry; 1/2 and 1/3 are the same float64
    # quotients in NumPy and XLA (one correctly rounded division).
    np.testing.assert_array_equal(np.asarray(got), hard_reference(SCORES, MASK, mode))


@pytest.mark.parametrize("mode", ["leftmost", "average"])
def test_straight_through_gradient_is_the_softmax_one(mode):
    rng = np.random.default_rng(0)
    scores = SCORES  # with its ties: the softmax gradient does not care
    cotangent = rng.normal(size=SCORES.shape)

    def vjp(s, m, c):
        _, pullback = jax.vjp(lambda x: _models.straight_through_weights(x, m, mode=mode), s)
        return pullback(c)[0]

    got = jax.jit(vjp)(jnp.asarray(scores), jnp.asarray(MASK), jnp.asarray(cotangent))
    # float64 rounding of exponentials and sums of 5 O(1) terms.
    want = softmax_vjp_reference(scores, MASK, cotangent)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-14)
    # Plain hard attention has no gradient at all: the estimator is what trains it.
    hard_grad = jax.grad(lambda s: jnp.sum(hard_reference_jax(s, mode) * cotangent))(scores)
    assert not np.any(np.asarray(hard_grad))


def hard_reference_jax(scores, mode):
    from transformer_theory.core.attention import hard_weights

    return hard_weights(scores, jnp.asarray(MASK), mode=mode)


@pytest.mark.parametrize(
    "language, small, mode",
    [("parity", False, "straight_through_leftmost"), ("dyck1", True, "straight_through_average")],
)
def test_straight_through_model_is_the_core_hard_model(language, small, mode):
    # PARITY's full model (two layers, two heads, MLP, the Chiang & Cholak code, final LayerNorm)
    # and Dyck-1's causal one in float64 (small: one compile less; the weights are tested above
    # for both modes): the training forward equals core.forward of the deployed hard model.
    config = _models.model_config(language, small=small)
    params = init_params(jax.random.key(3), config, dtype=jnp.float64)
    strings, _ = tasks.sample(language, 10, 6, seed=1)
    inputs = jnp.asarray(np.concatenate([np.full((6, 1), tasks.BOS, np.int32), strings], 1))
    st = jax.jit(jax.vmap(lambda t: _models.straight_through_forward(params, t, mode)))
    core = jax.jit(jax.vmap(lambda t: forward(_models.deployed(params, mode), t)))
    # The same operations in two programs; 1e-12 allows a different fusion, nothing more.
    np.testing.assert_allclose(np.asarray(st(inputs)), np.asarray(core(inputs)), rtol=1e-12)


def test_annealed_mode_is_softmax_at_the_temperature():
    # The annealed forward is the softmax model with scores divided by the temperature: at 1 the
    # core's softmax model; at 1/4, the core's softmax model with W_QK (hence every score) x 4.
    config = _models.model_config("dyck1", small=True)
    params = init_params(jax.random.key(5), config, dtype=jnp.float64)
    strings, _ = tasks.sample("dyck1", 6, 4, seed=2)
    inputs = jnp.asarray(np.concatenate([np.full((4, 1), tasks.BOS, np.int32), strings], 1))
    annealed = jax.jit(
        jax.vmap(
            lambda t, tau: _models.straight_through_forward(params, t, "annealed_leftmost", tau),
            in_axes=(0, None),
        )
    )
    sharp = params.replace(
        layers=tuple(
            layer.replace(attn=layer.attn.replace(w_qk=4.0 * layer.attn.w_qk))
            for layer in params.layers
        )
    )
    core = jax.jit(jax.vmap(forward, in_axes=(None, 0)))
    # Scaling by 4 is exact in binary floating point; 1e-12 allows a different fusion.
    np.testing.assert_allclose(annealed(inputs, 1.0), core(params, inputs), rtol=1e-12)
    np.testing.assert_allclose(annealed(inputs, 0.25), core(sharp, inputs), rtol=1e-12)
    with pytest.raises(ValueError, match="final_temperature"):
        _models.train_hard_attention(
            "dyck1",
            "annealed_leftmost",
            steps=1,
            batch=2,
            seed=0,
            lengths=(4,),
            final_temperature=0.0,
        )


def test_training_smoke_and_loss_is_the_hard_models():
    params, losses = _models.train_hard_attention(
        "dyck1", "straight_through_leftmost", steps=2, batch=4, seed=0, lengths=(4,), small=True
    )
    assert len(losses) == 2 and np.all(np.isfinite(losses))
    assert _models.deployed(params, "straight_through_leftmost").config.attention == (
        "hard_leftmost"
    )
    # The first step's loss is the cross-entropy of the leftmost-hard model at initialization on
    # the first batch (seed 0 * 100003 + 0), evaluated by core.forward.
    init = init_params(jax.random.key(0), _models.model_config("dyck1", small=True))
    hard = _models.deployed(init, "straight_through_leftmost")
    strings, labels = tasks.sample("dyck1", 4, 4, seed=0)
    inputs = jnp.asarray(np.concatenate([np.full((4, 1), tasks.BOS, np.int32), strings], 1))
    logits = jax.vmap(lambda t: forward(hard, t))(inputs)
    want = optax.softmax_cross_entropy_with_integer_labels(logits, jnp.asarray(labels, jnp.int32))
    # float32 parameters, two programs: a few float32 ulps of an O(1) loss.
    np.testing.assert_allclose(losses[0], float(want.mean()), rtol=1e-5)
    assert not np.allclose(np.asarray(params.w_o), np.asarray(init.w_o))  # it did take steps


def test_bad_arguments():
    with pytest.raises(ValueError, match="mode"):
        _models.straight_through_weights(jnp.zeros((2, 2)), mode="rightmost")
    with pytest.raises(ValueError, match="mode"):
        _models.train_hard_attention("parity", "hard", steps=1, batch=2, seed=0, lengths=(4,))
    with pytest.raises(ValueError, match="lengths"):
        _models.train_hard_attention("dyck1", "softmax", steps=1, batch=2, seed=0, lengths=(5,))
    with pytest.raises(ValueError, match="steps"):
        _models.train_hard_attention(
            "dyck1", "softmax", steps=float("nan"), batch=2, seed=0, lengths=(4,)
        )


def dyck2_stack(string, depth):
    """Dyck-(2, depth) membership by a stack written here: 0, 1 open, 2, 3 close types 0, 1."""
    stack = []
    for x in string:
        if x < 2:
            stack.append(x)
            if len(stack) > depth:
                return False
        elif not stack or stack.pop() != x - 2:
            return False
    return not stack


def test_dyck2_sample_labels_are_the_stacks_and_balanced():
    d = _models.DYCK2_DEPTH
    for length in (2, 4, 8, 16):
        strings, labels = _models.sample("dyck2", length, 30, seed=length)
        assert strings.shape == (30, length) and strings.min() >= 0 and strings.max() <= 3
        want = np.array([dyck2_stack(list(s), d) for s in strings])
        np.testing.assert_array_equal(labels, want)
        assert labels.sum() == 15  # "always no" scores 0.5
        # Hard non-members: as many opening as closing brackets in every swap/dip string.
        if length >= 4:
            opens = (strings[~labels] < 2).sum(1)
            assert np.mean(opens == length // 2) >= 0.6
    assert not _models.has_both_classes("dyck2", 5)
    assert _models.bos("dyck2") == 4 and _models.bos("dyck1") == tasks.BOS
    with pytest.raises(ValueError, match="language"):
        _models.sample("dyck3", 4, 2, seed=0)


def test_has_both_classes_is_the_samplers_rule_and_the_sampler_is_sample():
    # _models.has_both_classes restates _tasks.has_both_classes (PARITY, Dyck-1) and the even
    # lengths of dyck_k_sample (Dyck-2); the resolved sampler draws what sample draws.
    for length in range(0, 12):
        for language in ("parity", "dyck1"):
            assert _models.has_both_classes(language, length) == tasks.has_both_classes(
                language, length
            )
        assert _models.has_both_classes("dyck2", length) == (length >= 2 and length % 2 == 0)
    for language in _models.LANGUAGES:
        draw = _models.sampler(language)
        a, b = draw(4, 6, 3), _models.sample(language, 4, 6, seed=3)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        model = _models.deployed(
            init_params(jax.random.key(0), _models.model_config(language, small=True)), "softmax"
        )
        assert _models.accuracy_on(model, language, *a) == _models.accuracy(
            model, language, 4, 6, 3
        )


def test_annealed_hard_phase_is_the_core_leftmost_model():
    # hard = 1: the curriculum's forward value is the leftmost-hard model's (Dyck-2's causal
    # model with its positional code), whatever the temperature; hard = 0: softmax at 1 is the
    # core softmax model.
    config = _models.model_config("dyck2", small=True)
    assert config.vocab_size == 5 and config.causal
    params = init_params(jax.random.key(7), config, dtype=jnp.float64)
    strings, _ = _models.sample("dyck2", 8, 6, seed=3)
    inputs = jnp.asarray(np.concatenate([np.full((6, 1), 4, np.int32), strings], 1))
    curr = jax.jit(
        jax.vmap(
            lambda t, tau, h: _models.straight_through_forward(
                params, t, "annealed_leftmost", tau, h
            ),
            in_axes=(0, None, None),
        )
    )
    hard = jax.jit(jax.vmap(lambda t: forward(_models.deployed(params, "annealed_leftmost"), t)))
    soft = jax.jit(jax.vmap(lambda t: forward(params, t)))
    # The same operations in two programs; 1e-12 allows a different fusion, nothing more.
    np.testing.assert_allclose(curr(inputs, 0.1, 1.0), hard(inputs), rtol=1e-12)
    np.testing.assert_allclose(curr(inputs, 1.0, 0.0), soft(inputs), rtol=1e-12)
    assert not np.allclose(curr(inputs, 0.1, 0.0), hard(inputs), rtol=1e-6)


def test_dyck2_training_smoke_and_curriculum_arguments():
    params, losses = _models.train_hard_attention(
        "dyck2",
        "annealed_leftmost",
        steps=2,
        batch=4,
        seed=0,
        lengths=(4,),
        hard_fraction=0.5,
        schedule="cosine",
        small=True,
    )
    assert len(losses) == 2 and np.all(np.isfinite(losses))
    model = _models.deployed(params, "annealed_leftmost")
    assert model.config.attention == "hard_leftmost"
    # accuracy: core.forward's argmax against the stack of this file, counted here.
    strings, _ = _models.sample("dyck2", 4, 8, seed=1)
    inputs = jnp.asarray(np.concatenate([np.full((8, 1), 4, np.int32), strings], 1))
    preds = np.argmax(np.asarray(jax.vmap(lambda t: forward(model, t))(inputs)), -1)
    want = np.mean(preds == [dyck2_stack(list(s), _models.DYCK2_DEPTH) for s in strings])
    assert _models.accuracy(model, "dyck2", 4, 8, seed=1) == want
    with pytest.raises(ValueError, match="hard_fraction"):
        _models.train_hard_attention(
            "dyck2", "softmax", steps=1, batch=2, seed=0, lengths=(4,), hard_fraction=0.5
        )
    with pytest.raises(ValueError, match="hard_fraction"):
        _models.train_hard_attention(
            "dyck2", "annealed_leftmost", steps=1, batch=2, seed=0, lengths=(4,), hard_fraction=2
        )
    with pytest.raises(ValueError, match="schedule"):
        _models.train_hard_attention(
            "dyck2", "softmax", steps=1, batch=2, seed=0, lengths=(4,), schedule="x"
        )
    with pytest.raises(ValueError, match="lengths"):
        _models.train_hard_attention("dyck2", "softmax", steps=1, batch=2, seed=0, lengths=(3,))
