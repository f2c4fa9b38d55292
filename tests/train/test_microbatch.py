"""The microbatched train step is the whole-batch step: same loss, accuracy and update.

:func:`transformer_theory.train.loop.make_steps` may split a batch into ``c`` equal slices and
average their gradients (the mean of ``c`` slice means is the batch mean). On a float64 model
the loss, accuracy and updated parameters must equal the whole-batch step's to float64 rounding:
tolerance 1e-12 relative, since the two sum the same per-example terms in another order
(eps 2.2e-16 times ~100 terms). A dropped or double-counted slice changes the loss by ~1/c of
itself, far above that. The reference whole-batch gradient is ``jax.grad`` of the cross-entropy
written here, not the step under test.
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from transformer_theory.nn import from_params, to_params
from transformer_theory.nn.fast import dense_logits
from transformer_theory.params import ModelConfig, init_params
from transformer_theory.train.loop import (
    MICROBATCH_BYTES,
    MIN_MICROBATCH,
    auto_microbatches,
    make_steps,
)


def _setup(heads=(1, 2, 1)):
    cfg = ModelConfig(vocab_size=5, seq_len=6, width=16, num_classes=4, heads=heads)
    params = init_params(jax.random.key(0), cfg, dtype=jnp.float64)
    tokens = jax.random.randint(jax.random.key(1), (12, 6), 0, 5)
    labels = jax.random.randint(jax.random.key(2), (12,), 0, 4)
    return params, tokens, labels


@pytest.mark.parametrize("fast", [True, False])
def test_microbatched_step_equals_whole_batch(fast):
    params, tokens, labels = _setup()
    graphdef, state = nnx.split(from_params(params))
    tx = optax.sgd(0.1)
    opt_state = tx.init(state)

    def loss(p):
        logits = dense_logits(p, tokens)
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(12), labels])

    want_loss, want_grad = jax.value_and_grad(loss)(params)
    want_acc = float(np.mean(np.argmax(np.asarray(dense_logits(params, tokens)), -1) == labels))
    for c in (1, 2, 3, 4):
        step = make_steps(graphdef, tx, fast=fast, microbatches=c)[0]
        new_state, _, got_loss, got_acc = step(state, opt_state, tokens, labels)
        np.testing.assert_allclose(got_loss, want_loss, rtol=1e-12, err_msg=f"c={c}")
        # accuracy is averaged in float32 (eps 1.2e-7); a lost example moves it by 1/12
        assert float(got_acc) == pytest.approx(want_acc, abs=1e-6)
        # The update of SGD(0.1) is -0.1 times the gradient of the whole batch, in every array.
        got = to_params(nnx.merge(graphdef, new_state))
        want = jax.tree.map(lambda p, g: p - 0.1 * g, params, want_grad)
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=f"c={c}")


def test_microbatches_must_divide_the_batch_and_be_positive():
    params, tokens, labels = _setup(heads=(1,))
    graphdef, state = nnx.split(from_params(params))
    tx = optax.sgd(0.1)
    step = make_steps(graphdef, tx, microbatches=5)[0]
    with pytest.raises(ValueError, match="microbatches"):
        step(state, tx.init(state), tokens, labels)
    with pytest.raises(ValueError, match="microbatches"):
        make_steps(graphdef, tx, microbatches=0)


def test_auto_microbatches_is_the_smallest_cache_sized_split():
    """Checked against a brute-force reading of the rule, and at the paper's two sizes."""
    for batch, n, d in [(256, 20, 228), (256, 11, 212), (64, 8, 40), (96, 50, 400), (17, 64, 512)]:
        allowed = [c for c in range(1, batch + 1) if batch % c == 0]
        allowed = [c for c in allowed if batch // c >= MIN_MICROBATCH]
        fits = [c for c in allowed if (batch // c) * n * d * 4 <= MICROBATCH_BYTES]
        want = fits[0] if fits else (max(allowed) if allowed else 1)
        assert auto_microbatches(batch, n, d) == want, (batch, n, d)
    assert auto_microbatches(256, 20, 228) == 4  # contextual: 64 examples, 1.17 MB
    assert auto_microbatches(256, 11, 212) == 2  # reasoning: 128 examples, 1.19 MB
    assert auto_microbatches(64, 8, 40) == 1  # small runs are not split
