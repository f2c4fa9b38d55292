"""The one exact engine (:mod:`transformer_theory.exact`) against references written here.

- A NumPy float64 forward pass written in this file (not the library's): the rationals must equal
  it up to float64 rounding, and the balls must contain the exact value and lie near it.
- Small integer models whose outputs are integers computed here by hand in Python ints: the
  rational pass must equal them EXACTLY.
- What each arithmetic refuses (softmax in rationals, an undecided hard tie in balls).
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import flint
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory import exact
from transformer_theory.params import ModelConfig, init_params

# The library's and this file's float64 passes round differently; a handful of matmuls of O(1)
# entries: 1e-12 relative leaves three orders of headroom over eps64 ~ 2.2e-16.
TOL = 1e-12


def _norm(kind, x, scale, bias, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    if kind == "layernorm":
        y = (x - mu) / np.sqrt(var + eps)
    elif kind == "layernorm_sigma":
        y = (x - mu) / (np.sqrt(var) + eps)
    elif kind == "rmsnorm":
        y = x / np.sqrt((x**2).mean(-1, keepdims=True) + eps)
    else:
        return x
    return y * np.asarray(scale) + np.asarray(bias)


def _reference(params, tokens):
    """A NumPy float64 forward pass over one-hot embeddings (this file's own)."""
    cfg = params.config
    n = len(tokens)
    h = np.zeros((n, cfg.width))
    h[np.arange(n), tokens] = 1.0
    h[np.arange(n), cfg.vocab_size + np.arange(n)] = 1.0
    mask = np.tril(np.ones((n, n), bool)) if cfg.causal else np.ones((n, n), bool)
    for lay in params.layers:
        x = h if lay.norm1 is None else _norm(cfg.norm1, h, lay.norm1.scale, lay.norm1.bias, 1e-5)
        outs = []
        for hd in range(np.shape(lay.attn.w_v)[0]):
            if cfg.qk_dim is None:
                s = x @ np.asarray(lay.attn.w_qk[hd]).T @ x.T
            else:
                s = (x @ np.asarray(lay.attn.w_q[hd]).T) @ (x @ np.asarray(lay.attn.w_k[hd]).T).T
            if cfg.attention == "relu":
                w = np.where(mask, np.maximum(s, 0), 0)
            else:
                s = np.where(mask, s, -np.inf)
                e = np.exp(s - s.max(-1, keepdims=True))
                w = e / e.sum(-1, keepdims=True)
            outs.append(w @ (x @ np.asarray(lay.attn.w_v[hd]).T))
        h = h + (np.mean(outs, 0) if cfg.head_mean else np.sum(outs, 0))
        if lay.mlp is not None:
            m = lay.mlp
            h = (
                h
                + np.maximum(h @ np.asarray(m.w1).T + np.asarray(m.b1), 0) @ np.asarray(m.w2).T
                + np.asarray(m.b2)
            )
    if params.final_norm is not None:
        h = _norm(cfg.final_norm, h, params.final_norm.scale, params.final_norm.bias, 1e-5)
    return h @ np.asarray(params.w_o).T


CONFIGS = [
    dict(attention="relu"),
    dict(attention="relu", heads=(2, 1), causal=True, head_mean=False, mlp_hidden=5),
    dict(attention="softmax", qk_dim=4, heads=(2,), norm1="layernorm", final_norm="rmsnorm"),
    dict(attention="softmax", qk_dim=4, causal=True, mlp_hidden=3, norm1="layernorm_sigma"),
]


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: "-".join(f"{v}" for v in kw.values()))
def test_both_arithmetics_match_an_independent_float64_pass(kw):
    cfg = ModelConfig(vocab_size=3, seq_len=4, width=8, num_classes=3, **kw)
    params = init_params(jax.random.PRNGKey(1), cfg, dtype=jnp.float64)
    for tokens in ([0, 2, 1, 1], [2, 2, 0, 1]):
        ref = _reference(params, np.array(tokens))
        balls = exact.evaluate(params, np.array(tokens), arithmetic="enclosed").logits
        for i in range(len(tokens)):
            for c in range(3):
                b = balls[i][c]
                assert abs(float(b.mid()) - ref[i, c]) <= TOL * (1 + abs(ref[i, c]))
                assert float(b.rad()) < 1e-20 + 1e-25 * abs(float(b.mid()))  # 128-bit balls
        if kw["attention"] == "relu":
            rat = exact.evaluate(params, np.array(tokens), arithmetic="exact").logits
            for i in range(len(tokens)):
                for c in range(3):
                    q = Fraction(int(rat[i][c].p), int(rat[i][c].q))
                    assert abs(float(q) - ref[i, c]) <= TOL * (1 + abs(ref[i, c]))
                    # the ball holds the exact value (compared at the balls' 128 bits)
                    old, flint.ctx.prec = flint.ctx.prec, 128
                    try:
                        assert balls[i][c].contains(flint.arb(rat[i][c]))
                    finally:
                        flint.ctx.prec = old


def _integer_model():
    """One ReLU layer, one head, small integer weights: outputs are integers (times 1, head mean
    of one head)."""
    cfg = ModelConfig(vocab_size=2, seq_len=3, width=5, num_classes=2)
    params = init_params(jax.random.PRNGKey(0), cfg, dtype=jnp.float64)
    rng = np.random.default_rng(3)
    w_qk = rng.integers(-2, 3, (1, 5, 5)).astype(np.float64)
    w_v = rng.integers(-2, 3, (1, 5, 5)).astype(np.float64)
    w_o = rng.integers(-2, 3, (2, 5)).astype(np.float64)
    lay = params.layers[0]
    lay = lay.replace(attn=lay.attn.replace(w_qk=jnp.asarray(w_qk), w_v=jnp.asarray(w_v)))
    return params.replace(layers=(lay,), w_o=jnp.asarray(w_o)), w_qk[0], w_v[0], w_o


def test_rationals_equal_python_integer_arithmetic_on_every_input():
    params, w_qk, w_v, w_o = _integer_model()
    W_qk, W_v, W_o = (np.asarray(a, np.int64).tolist() for a in (w_qk, w_v, w_o))

    def mv(m, v):
        return [sum(a * b for a, b in zip(row, v)) for row in m]

    for tokens in itertools.product(range(2), repeat=3):  # all 8 inputs
        hs = []
        for i, t in enumerate(tokens):
            v = [0] * 5
            v[t] = 1
            v[2 + i] = 1
            hs.append(v)
        out = []
        for i in range(3):
            q = mv(W_qk, hs[i])
            acc = list(hs[i])
            for j in range(3):
                w = max(0, sum(a * b for a, b in zip(hs[j], q)))
                acc = [a + w * b for a, b in zip(acc, mv(W_v, hs[j]))]
            out.append(mv(W_o, acc))
        got = exact.evaluate(params, np.array(tokens), arithmetic="exact").logits
        assert [[int(v) for v in row] for row in got] == out, tokens
        m = exact.margins(params, [np.array(tokens)], [0])
        assert m["min_margin"] == Fraction(out[-1][0] - out[-1][1])


def test_a_broken_weight_moves_the_exact_margin():
    params, *_ = _integer_model()
    base = exact.margins(params, [np.array([0, 1, 1])], [0])["min_margin"]
    # the last position's one-hot code (width index 4) reaches the last stream with weight 1
    broken = params.replace(w_o=params.w_o.at[0, 4].add(0.5))
    assert exact.margins(broken, [np.array([0, 1, 1])], [0])["min_margin"] != base


def test_the_dyadic_path_equals_the_general_rational_pass():
    params, *_ = _integer_model()
    tokens = np.array(list(itertools.product(range(2), repeat=3)))
    x, den = exact.dyadic_last_streams(params, tokens)
    for b, t in enumerate(tokens):
        last = exact.evaluate(params, t, arithmetic="exact").streams[-1]
        for d in range(5):
            assert Fraction(int(last[2, d].p), int(last[2, d].q)) == Fraction(int(x[b, d]), den)


def test_what_each_arithmetic_refuses():
    cfg = ModelConfig(vocab_size=2, seq_len=3, width=5, num_classes=2, attention="softmax")
    params = init_params(jax.random.PRNGKey(0), cfg, dtype=jnp.float64)
    with pytest.raises(ArithmeticError, match="enclosed"):
        exact.evaluate(params, np.array([0, 1, 1]), arithmetic="exact")
    with pytest.raises(ValueError, match="arithmetic"):
        exact.evaluate(params, np.array([0, 1, 1]), arithmetic="float")
    with pytest.raises(ValueError, match="inputs"):
        exact.evaluate(params, np.array([0, 5, 1]))
    with pytest.raises(ArithmeticError):
        exact.fraction(float("nan"))
    # a hard-attention tie between two equal scores is decided exactly in rationals
    hard = cfg.replace(attention="hard_average")
    p = init_params(jax.random.PRNGKey(0), hard, dtype=jnp.float64)
    zero = p.layers[0].replace(attn=p.layers[0].attn.replace(w_qk=jnp.zeros((1, 5, 5))))
    p = p.replace(layers=(zero,))
    w = exact.evaluate(p, np.array([0, 1, 1]), arithmetic="exact").weights[0][0]
    assert all(v == flint.fmpq(1, 3) for row in w for v in row)


# ---------------------------------------------------------------- params against their config
# Issue 48: the exact engine never validated the params, and returned numbers for a classifier of
# the wrong size, a layer the config does not have or a head too many.


def _mismatched():
    params, *_ = _integer_model()  # config: 2 classes, heads=(1,), width 5
    lay = params.layers[0]
    two_heads = lay.replace(attn=lay.attn.replace(w_v=jnp.zeros((2, 5, 5)), w_qk=lay.attn.w_qk))
    return {
        "params.w_o": params.replace(w_o=jnp.zeros((3, 5))),
        "params.layers": params.replace(layers=(lay, lay)),
        "params.layers[0].attn.w_v": params.replace(layers=(two_heads,)),
    }


@pytest.mark.parametrize("field", ["params.w_o", "params.layers", "params.layers[0].attn.w_v"])
def test_params_inconsistent_with_their_config_are_refused_by_every_entry(field):
    from transformer_theory.core import forward

    bad = _mismatched()[field]
    tokens = np.array([0, 1, 1])
    for call in (
        lambda: exact.evaluate(bad, tokens),
        lambda: exact.evaluate(bad, tokens, arithmetic="enclosed"),
        lambda: exact.margins(bad, [tokens], [0]),
        lambda: exact.dyadic_margins(bad, tokens[None], np.array([0])),
        lambda: forward(bad, jnp.asarray(tokens)),
    ):
        with pytest.raises(ValueError, match=re.escape(field)):
            call()


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_weights_are_a_value_error_naming_params(value):
    params, *_ = _integer_model()
    bad = params.replace(w_o=params.w_o.at[1, 2].set(value))
    for call in (
        lambda: exact.evaluate(bad, np.array([0, 1, 1])),
        lambda: exact.margins(bad, [np.array([0, 1, 1])], [0], arithmetic="enclosed"),
        lambda: exact.dyadic_margins(bad, np.array([[0, 1, 1]]), np.array([0])),
    ):
        with pytest.raises(ValueError, match=r"params\.w_o: expected finite"):
            call()


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(labels=[-1]), "labels"),  # read as the last class: a margin of the wrong class
        (dict(labels=[5]), "labels"),
        (dict(labels=[0.5]), "labels"),
        (dict(position=99), "position"),
        (dict(position=-4), "position"),
        (dict(position=1.0), "position"),
    ],
)
def test_margins_refuse_a_label_or_position_that_does_not_exist(kwargs, name):
    params, *_ = _integer_model()
    args = {"labels": [0], **kwargs}
    labels = args.pop("labels")
    with pytest.raises(ValueError, match=f"^{name}:"):
        exact.margins(params, [np.array([0, 1, 1])], labels, **args)


def test_a_margin_needs_two_classes():
    params, *_ = _integer_model()
    one = params.replace(config=params.config.replace(num_classes=1), w_o=params.w_o[:1])
    with pytest.raises(ValueError, match="^params:.*two classes"):
        exact.margins(one, [np.array([0, 1, 1])], [0])
    with pytest.raises(ValueError, match="^params:.*two classes"):
        exact.dyadic_margins(one, np.array([[0, 1, 1]]), np.array([0]))


@pytest.mark.parametrize(
    "tokens, labels, name",
    [
        ([[0, 1, 1]], [7], "labels"),
        ([[0, 1, 1]], [-1], "labels"),
        ([[0, 1, 1]], [0, 1], "labels_B"),
        ([[0, 1, 2]], [0], "tokens_BxN"),
        ([[0, 1]], [0], "tokens_BxN"),
    ],
)
def test_dyadic_margins_refuse_labels_and_tokens_out_of_range(tokens, labels, name):
    params, *_ = _integer_model()
    with pytest.raises(ValueError, match=f"^{name}:"):
        exact.dyadic_margins(params, np.array(tokens), np.array(labels))


def test_the_last_position_is_the_default_and_every_valid_position_is_read():
    params, *_ = _integer_model()
    tokens = np.array([0, 1, 1])
    logits = exact.evaluate(params, tokens).logits
    for position in (-3, -1, 0, 2):
        row = [Fraction(int(v.p), int(v.q)) for v in logits[position]]
        got = exact.margins(params, [tokens], [1], position=position)["min_margin"]
        assert got == row[1] - row[0]


@pytest.mark.parametrize(
    "call, name",
    [
        # flint's OverflowError for a precision beyond a C long; a label that is no sequence
        (
            lambda p: exact.evaluate(p, np.array([0, 1, 1]), arithmetic="enclosed", prec=2**70),
            "prec",
        ),
        (lambda p: exact.evaluate(p, np.array([0, 1, 1]), arithmetic="enclosed", prec=1), "prec"),
        (lambda p: exact.margins(p, [np.array([0, 1, 1])], 0), "labels"),
        (lambda p: exact.margins(p, "ab", [0, 0]), "inputs"),
        # 1-d tokens were blamed on the labels ("expected 3 labels")
        (lambda p: exact.dyadic_margins(p, np.array([0, 1, 1]), np.array([0])), "tokens_BxN"),
        (lambda p: exact.dyadic_margins(p, np.array([[0, 1, 1]]), np.array([[0]])), "labels_B"),
        (lambda p: exact.fraction("a"), "x"),
        (lambda p: exact.fraction(float("nan")), "x"),
        (lambda p: exact.arb_matrix(np.array([[np.nan]])), "a"),
    ],
)
def test_bad_arguments_of_the_engine_are_a_value_error_naming_them(call, name):
    params, *_ = _integer_model()
    with pytest.raises(ValueError, match=f"^{name}:"):
        call(params)


def test_a_non_finite_float_is_still_the_arithmetics_refusal():
    with pytest.raises(ArithmeticError):  # callers that caught ArithmeticError keep working
        exact.fraction(float("inf"))
