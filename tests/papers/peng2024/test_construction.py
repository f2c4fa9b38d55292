"""One-pass composition by one layer, built by hand (Peng et al. 2024, Theorem 1, the other side):
pair-token prompts decoded by a reference written here, the hand-built one-layer model on EVERY
prompt of n = 2 and n = 3 (float32 and 3-bit), a witness that 2 bits fail, the budget arithmetic,
and the messages-only rounding of the network against a NumPy forward."""

import math

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from transformer_theory.papers.peng2024 import _constructions as construction
from transformer_theory.papers.peng2024 import _tasks as tasks
from transformer_theory.papers.peng2024._models import CompositionTransformer, errors


def _decode(tokens, n):
    """The prompt's f, g, x and whether it asks for f(x), read token by token (the specification:
    f entry j n + f(j), g entry n^2 + j n + g(j), query 2 n^2 + x or 2 n^2 + n + x)."""
    f, g = {}, {}
    for t in tokens[:n]:
        f[int(t) // n] = int(t) % n
    for t in tokens[n : 2 * n]:
        g[(int(t) - n * n) // n] = int(t) % n
    q = int(tokens[-1]) - 2 * n * n
    assert len(f) == n and len(g) == n  # every argument exactly once per block
    return f, g, q % n, q >= n


@pytest.mark.parametrize("n", [2, 3])
def test_all_prompts_are_every_f_g_x_once_with_the_right_answer(n):
    tokens, answers = tasks.all_prompts(n, seed=1)
    assert tokens.shape == (n ** (2 * n + 1), 2 * n + 1)
    seen = set()
    for row, a in zip(tokens, answers):
        f, g, x, ask_f = _decode(row, n)
        assert not ask_f and a == g[f[x]]
        seen.add((tuple(f[j] for j in range(n)), tuple(g[j] for j in range(n)), x))
    assert len(seen) == n ** (2 * n + 1)
    # the blocks are shuffled: some prompt lists f's entries out of argument order
    assert any(list(row[:n] // n) != list(range(n)) for row in tokens)


def test_pair_sample_answers_and_auxiliary_queries():
    tokens, answers = tasks.pair_sample(3, 500, 5, aux=0.4)
    asks = 0
    for row, a in zip(tokens, answers):
        f, g, x, ask_f = _decode(row, 5)
        asks += ask_f
        assert a == (f[x] if ask_f else g[f[x]])
    assert 120 < asks < 280  # 500 draws at 0.4: mean 200, sd 11
    assert tokens.max() < tasks.pair_vocab(5)
    with pytest.raises(ValueError, match="aux"):
        tasks.pair_sample(0, 4, 3, aux=1.0)
    with pytest.raises(ValueError, match="n: every prompt"):
        tasks.all_prompts(4)


@pytest.mark.parametrize("n, bits", [(2, None), (2, 3), (3, None), (3, 3)])
def test_the_built_model_answers_every_prompt(n, bits):
    tokens, answers = tasks.all_prompts(n)
    model = construction.build(n, bits)
    d = construction.construction_width(n)
    assert model.blocks[0].w_q.shape == (construction.HEADS, d, d)
    assert model.embed.num_embeddings == tasks.pair_vocab(n)  # the construction's own count
    assert errors(model, tokens, answers) == 0


def test_two_bits_are_not_enough_for_the_built_model():
    # the witness that the smallest exact p at n = 3 is above 2
    tokens, answers = tasks.all_prompts(3)
    assert errors(construction.build(3, 2), tokens, answers) > 0


def test_the_built_model_on_samples_beyond_enumeration():
    tokens, answers = tasks.pair_sample(7, 500, 5)
    assert errors(construction.build(5, None), tokens, answers) == 0
    construction.build(44)  # 4 d = 4 (44 * 6 + 221) = 1940 >= 44^2 units
    with pytest.raises(ValueError, match="n: the MLP"):
        construction.build(45)  # 4 (45 * 6 + 226) = 1984 < 2025


def test_budget_is_counted_in_the_theorems_units():
    d = construction.construction_width(16)
    assert d == 16 * 4 + 5 * 16 + 1  # b = 4 bits per value of g
    assert construction.construction_width(5) == 5 * 3 + 26
    rows = construction.budget_table((2,), samples=16)
    (r,) = rows
    assert r["bits"] == 3 and r["exhaustive"] and r["errors_below"] > 0
    assert r["construction_bits"] == 2 * (construction.construction_width(2) + 1) * 3
    assert r["threshold_bits"] == 2.0 and r["ratio"] == r["construction_bits"] / 2


def test_messages_only_rounding_keeps_weights_and_rounds_head_outputs():
    float_net = CompositionTransformer(10, 5, 4, 2, 1, 3, rngs=nnx.Rngs(0))
    msg_net = CompositionTransformer(
        10, 5, 4, 2, 1, 3, bits=3, quantize="messages", rngs=nnx.Rngs(0)
    )
    all_net = CompositionTransformer(10, 5, 4, 2, 1, 3, bits=3, rngs=nnx.Rngs(0))
    tokens = jnp.asarray(np.random.default_rng(0).integers(0, 10, (6, 5)))
    # the same initial weights; rounding the messages only changes the output, and differently
    # from rounding everything
    assert np.array_equal(float_net.readout.kernel[...], msg_net.readout.kernel[...])
    f, m, a = (np.asarray(net(tokens)) for net in (float_net, msg_net, all_net))
    assert not np.allclose(f, m) and not np.allclose(m, a)
    # reference: the float network with the head outputs rounded by hand (numpy einsums)
    blk = float_net.blocks[0]
    h = (
        np.asarray(float_net.embed.embedding[...])[np.asarray(tokens)]
        + np.asarray(float_net.position[...])[None]
    )
    q = np.einsum("bnd,hde->bhne", h, np.asarray(blk.w_q[...]))
    k = np.einsum("bnd,hde->bhne", h, np.asarray(blk.w_k[...]))
    v = np.einsum("bnd,hde->bhne", h, np.asarray(blk.w_v[...]))
    s = np.einsum("bhne,bhke->bhnk", q, k) / math.sqrt(4)
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    heads = np.einsum("bhnk,bhke->bhne", w, v)
    scale = np.abs(heads).max(axis=(1, 2, 3), keepdims=True)
    step = scale / 3  # 3 bits: 2^2 - 1 = 3 levels on each side
    heads = np.round(heads / step) * step
    h = h + np.einsum("bhne,hed->bnd", heads, np.asarray(blk.w_out[...]))
    hidden = np.maximum(
        h @ np.asarray(blk.mlp_in.kernel[...]) + np.asarray(blk.mlp_in.bias[...]), 0
    )
    h = h + hidden @ np.asarray(blk.mlp_out.kernel[...]) + np.asarray(blk.mlp_out.bias[...])
    ref = h[:, -1] @ np.asarray(float_net.readout.kernel[...]) + np.asarray(
        float_net.readout.bias[...]
    )
    # float32 forward against a float64 reference of O(1) values: 1e-4 absolute; a rounding
    # boundary hit by float32 error would differ by a whole step (>= 0.1 here), not 1e-4
    assert np.allclose(m, ref, atol=1e-4)
    with pytest.raises(ValueError, match="quantize"):
        CompositionTransformer(10, 5, 4, 2, 1, 3, quantize="weights", rngs=nnx.Rngs(0))
