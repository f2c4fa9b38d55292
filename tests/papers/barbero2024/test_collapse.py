"""Representational collapse: the one-layer distance against an independent float64 NumPy model,
the 1/n rate against the limit derived from the weights, precision handling and bit identity."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from tests.papers.barbero2024 import _reference
from transformer_theory.core.positional import embed_long
from transformer_theory.papers.barbero2024 import _models as models
from transformer_theory.papers.barbero2024 import _tasks as copying
from transformer_theory.papers.barbero2024 import _theory_collapse as collapse


def random_model(positional, depth=1, heads=2, seed=0, scale=1.5):
    return _reference.random_model(positional, depth, heads, seed=seed, scale=scale)


@pytest.mark.parametrize("positional", models.POSITIONAL)
def test_one_layer_distance_matches_numpy_reference(positional):
    params = random_model(positional)
    lengths = [9]  # one compile per model: the tests share two CPU cores
    rec = collapse.collapse_curve(params, lengths, ("float64",))
    for n, d in zip(lengths, rec["precisions"]["float64"]["distance"]):
        v = copying.pattern_tokens("ones_zero", n)
        ya = _reference.last_representation(params, params.config, v)
        yb = _reference.last_representation(params, params.config, copying.repeat_last(v))
        # a few hundred float64 operations of O(1) values: the suite's float64 tolerance
        assert_close(d, np.linalg.norm(ya - yb))


def test_one_layer_rate_is_the_derived_limit():
    # scale 1: score gaps b - a of order one, so that n >> e^(b - a) at the lengths measured
    params = random_model("none", heads=2, seed=3, scale=1.0)
    k = collapse.one_layer_limit(params)
    lengths = [250, 1000]
    d = collapse.collapse_curve(params, lengths, ("float64",))["precisions"]["float64"]["distance"]
    gaps = [abs(n * di - k) / k for n, di in zip(lengths, d)]
    # n d(n) = K (1 + O(1/n)): the relative gap shrinks about 4x from n = 250 to n = 1000
    assert gaps[1] < 2e-2 and gaps[1] < gaps[0] / 2.5, (k, gaps)


def test_one_layer_limit_refuses_positions_in_scores():
    with pytest.raises(ValueError, match="params"):
        collapse.one_layer_limit(random_model("rope"))
    with pytest.raises(ValueError, match="params"):
        collapse.one_layer_limit(random_model("none", depth=2))


def test_model_runs_in_the_requested_precision():
    params = random_model("rope")
    v = copying.pattern_tokens("ones_zero", 6)
    y = {}
    for prec in collapse.PRECISIONS:
        y[prec], _ = collapse.pair_representations(params, v, v, prec)
        assert y[prec].dtype == jnp.dtype(prec)
    # bfloat16 keeps 8 significant bits (relative rounding 2^-9 per operation), float32 24
    err16 = float(jnp.max(jnp.abs(y["bfloat16"].astype(jnp.float64) - y["float64"])))
    err32 = float(jnp.max(jnp.abs(y["float32"].astype(jnp.float64) - y["float64"])))
    assert 1e-4 < err16 < 0.2 and err32 < 1e-5, (err16, err32)


def test_compare_is_bitwise():
    y = jnp.array([1.0, -2.0, 0.5], jnp.float32)
    assert collapse.compare(y, y)["identical"]
    nudged = y.at[1].set(jnp.nextafter(y[1], jnp.float32(0)))
    c = collapse.compare(y, nudged)
    assert not c["identical"] and c["equal_coords"] == 2 and 0 < c["distance"] < 1e-6
    # +0.0 and -0.0 compare equal as numbers but are different bits
    assert not collapse.compare(jnp.zeros(1), -jnp.zeros(1))["identical"]


def test_identical_lengths():
    lengths = [2, 4, 8, 16, 32]
    assert collapse.first_true(lengths, [False, True, False, True, True]) == 4
    assert collapse.identical_from(lengths, [False, True, False, True, True]) == 16
    assert collapse.identical_from(lengths, [True, True, True, True, False]) is None
    assert collapse.first_true(lengths, [False] * 5) is None


def test_fit_rate_recovers_a_power_law():
    n = np.array([8, 16, 64, 256, 1024])
    fit = collapse.fit_rate(n, 3.0 / n)
    assert abs(fit["slope"] + 1) < 1e-12 and abs(fit["constant"] - 3.0) < 1e-12
    assert collapse.fit_rate(n, 2.0 / n**2, floor=1e-4)["points"] == 3  # below the floor: left out
    assert collapse.fit_rate(n[:2], 3.0 / n[:2])["slope"] is None


def test_embed_long_keeps_the_code_of_seq_len():
    cfg = models.causal_pre_ln_config(1, 1, "sinusoidal", width=16, seq_len=6)
    e = np.asarray(embed_long(cfg, jnp.zeros(40, jnp.int32), dtype=jnp.float64))
    assert_close(e[:, cfg.vocab_size : cfg.embed_dim], _reference.sinusoid(40, cfg.pos_dim))


def test_left_padding_is_the_unpadded_model():
    # the absolute code (shifted by the padding) and ALiBi (|i - j| over the padded positions) in
    # one model; two layers, so that a padding row leaking into the second layer would show
    base = random_model("sinusoidal", depth=2)
    params = base.replace(config=base.config.replace(relative="alibi"))
    last = jax.jit(collapse.last_representation)
    v = np.array([1, 0, 2, 1, 3])
    ref = last(params, embed_long(params.config, v, dtype=jnp.float64))
    padded = np.concatenate([[copying.PAD] * 3, v])
    valid = jnp.asarray(padded != copying.PAD)
    emb = embed_long(params.config, padded, dtype=jnp.float64, valid_N=valid)
    assert_close(last(params, emb, copying.attention_mask(valid)), ref)
    ref_np = _reference.last_representation(params, params.config, v)
    assert_close(ref, ref_np)


def test_bad_arguments_name_the_argument():
    params = random_model("none")
    with pytest.raises(ValueError, match="precision"):
        collapse.collapse_curve(params, [4], ("float16",))
    with pytest.raises(ValueError, match="lengths"):
        collapse.collapse_curve(params, [0], ("float64",))
    with pytest.raises(ValueError, match="params"):
        collapse.collapse_curve(params.replace(config=params.config.replace(causal=False)), [4])
    onehot = params.config.replace(positional="onehot", width=12)
    with pytest.raises(ValueError, match="tokens_N"):
        embed_long(onehot, jnp.zeros(7, jnp.int32))
    with pytest.raises(ValueError, match="pattern"):
        copying.pattern_tokens("spiral", 4)


def test_patterns_and_separators():
    assert copying.pattern_tokens("ones_zero", 4).tolist() == [1, 1, 1, 0]
    assert copying.pattern_tokens("zeros_one", 3).tolist() == [0, 0, 1]
    assert copying.pattern_tokens("ones_zero", 5, separator_every=2).tolist() == [
        1,
        1,
        2,
        1,
        1,
        2,
        0,
    ]
    r = copying.pattern_tokens("random", 50)
    assert r[:20].tolist() == copying.pattern_tokens("random", 20).tolist()
    assert copying.repeat_last([1, 0]).tolist() == [1, 0, 0]


def test_length_grid_one_point_is_the_longest_length():
    # was [2]: `collapse --max-len 4096 --points 1` measured n = 2 while recording 4096
    assert copying.length_grid(8, 1) == [8]
    assert copying.length_grid(4096, 1, min_len=4) == [4096]
    assert copying.length_grid(64, 4)[-1] == 64


def test_length_grid_of_many_points_is_every_length_without_an_array_of_points():
    # was a MemoryError: np.geomspace(2, 64, 10^12) (7.3 TiB)
    assert copying.length_grid(64, 10**12) == list(range(2, 65))
    # the shortcut gives what the geometric grid gives: at the smallest count that takes it, and
    # below it (where the geometric grid is computed) the grid still misses lengths
    every = 2 * np.log(64 / 2) / np.log(64 / 63)
    first = int(every) + 2
    rounded = np.unique(np.round(np.geomspace(2, 64, first)).astype(int)).tolist()
    assert copying.length_grid(64, first) == rounded == list(range(2, 65))
    assert copying.length_grid(64, 40) != list(range(2, 65))


@pytest.mark.parametrize("positional", ["none", "sinusoidal"])
@pytest.mark.parametrize("depth,heads,width", [(1, 1, 32), (3, 2, 24)])
def test_model_bytes_is_the_size_of_the_model_built(positional, depth, heads, width):
    cfg = models.causal_pre_ln_config(depth, heads, positional, width=width)
    params = jax.eval_shape(lambda: models.random_model(cfg))
    built = sum(x.size * x.dtype.itemsize for x in jax.tree.leaves(params))
    assert models.model_bytes(depth, heads, width=width) == built
    # sizes no config could hold (a tuple of 10^12 head counts): arithmetic, at once
    assert models.model_bytes(10**12, 1, width=32) == 10**12 * (
        models.model_bytes(2, 1) - models.model_bytes(1, 1)
    ) + (2 * models.model_bytes(1, 1) - models.model_bytes(2, 1))
    with pytest.raises(ValueError, match="depth"):
        models.model_bytes(0, 1)


def _last_token_distance(params, n, alibi):
    """``||y_n - y'_{n+1}||`` of a one-layer model for ``v = (1^(n-1), 0)``, in float64 NumPy from
    the equations, O(n): only the last query's row of attention reaches ``y``. Independent of the
    library (and of ``_reference``'s full O(n^2) pass, which it matches at small n)."""
    cfg = params.config
    # every weight to NumPy once (indexing a JAX array dispatches a JAX op each time)
    layer = jax.tree.map(np.asarray, params.layers[0])
    final = jax.tree.map(np.asarray, params.final_norm)
    a = layer.attn

    def ln(x, norm):
        return _reference.layernorm(x, norm.scale, norm.bias, cfg.norm_eps)

    def y(tokens):
        m = len(tokens)
        h = np.eye(cfg.width)[np.asarray(tokens)]  # one-hot token in the first coordinates
        x = ln(h, layer.norm1)
        heads = a.w_v.shape[0]
        outs = []
        for hd in range(heads):
            s = (x @ a.w_k[hd].T) @ (a.w_q[hd] @ x[-1]) / np.sqrt(cfg.qk_dim)
            if alibi:
                s = s - 2.0 ** (-8.0 * (hd + 1) / heads) * np.arange(m - 1, -1, -1)
            w = np.exp(s - s.max())
            outs.append((w / w.sum()) @ (x @ a.w_v[hd].T))
        z = h[-1] + np.mean(outs, axis=0)
        u = ln(z, layer.norm2)
        mlp = layer.mlp
        hidden = np.maximum(mlp.w1 @ u + mlp.b1, 0.0)
        return ln(z + mlp.w2 @ hidden + mlp.b2, final)

    v = [1] * (n - 1) + [0]
    return float(np.linalg.norm(y(v) - y(v + [0])))


def test_alibi_distance_tends_to_a_nonzero_constant_and_the_verdict_says_so():
    params = random_model("alibi", heads=1)  # one head, slope 2^-8: the bend at n ~ 256
    # the O(n) reference is the library's distance (one length beyond 1/m = 256: ALiBi at work)
    lib = collapse.collapse_curve(params, [400], ("float64",))["precisions"]["float64"]
    assert_close(lib["distance"][0], _last_token_distance(params, 400, alibi=True))
    lengths = [2**k for k in range(3, 17)]  # 8 .. 65,536
    d = np.array([_last_token_distance(params, n, alibi=True) for n in lengths])
    # beyond n ~ 1/m the ones' attention mass is a converged geometric series: e^(-m n) is
    # e^(-256) at 65,536, so the distance there is its limit to float64 rounding
    limit = d[-1]
    assert abs(d[-3] - limit) < 1e-9 * limit, d
    # and far above where a 1/n decay continued from n = 1,024 would be (60x here; 10x asked)
    assert limit > 10 * d[lengths.index(1024)] * 1024 / lengths[-1], d
    rate = collapse.asymptotic_rate(lengths, d)
    assert rate["plateau"] and rate["verdict"] == f"plateau at {limit:.3g}: no collapse"
    assert rate["plateau_value"] == limit and rate["change"] < 1e-9
    # one power law across the bend (what the README used to report as ALiBi's rate, -0.55)
    # describes neither regime: neither 1/n before the bend nor the flat tail after it
    across = collapse.fit_rate(lengths, d)["slope"]
    assert -0.8 < across < -0.2 and abs(rate["slope"]) < 1e-6, (across, rate)


def test_no_positions_verdict_is_one_over_n():
    params = random_model("none", heads=2, seed=3, scale=1.0)
    lengths = [2**k for k in range(3, 17)]
    d = [_last_token_distance(params, n, alibi=False) for n in lengths]
    rate = collapse.asymptotic_rate(lengths, d)
    # n d(n) = K (1 + O(1/n)): over the last decade (n >= 6,554) the slope is -1 to ~1e-3
    assert abs(rate["slope"] + 1) < 5e-3 and not rate["plateau"], rate
    assert rate["verdict"] == f"collapses ~ n^{rate['slope']:.2f}" == "collapses ~ n^-1.00"
    assert rate["tail_from"] == 8192 and rate["tail_to"] == 65536


def test_asymptotic_rate_verdicts_from_synthetic_curves():
    n = np.array([16, 64, 256, 1024, 4096])
    # an O(1) distance that oscillates (an absolute code in the stream): no decay, no plateau
    wavy = 2.0 + 0.3 * np.array([1, -1, 1, -1, 1])
    assert collapse.asymptotic_rate(n, wavy)["verdict"].startswith("no decay (tail slope")
    # below the rounding floor (or beyond where rounding dominates) nothing is judged
    r = collapse.asymptotic_rate(n, 1e-9 / n, floor=1e-6)
    assert r["verdict"].startswith("undetermined") and r["slope"] is None
    assert collapse.asymptotic_rate(n, 3.0 / n, until=256)["verdict"].startswith("undetermined")
    # a plateau needs two lengths at least an octave apart at the end of the grid
    assert not collapse.asymptotic_rate([8, 16, 4000, 4096], [4.0, 2.0, 1.0, 1.0])["plateau"]
    with pytest.raises(ValueError, match="distances"):
        collapse.asymptotic_rate(n, [1.0, 2.0])


def test_confusable_pairs_hold_the_inputs_and_the_answers_scored():
    (p,) = copying.CopyingTask("copy_last", 2, 4).confusable_pairs([3])
    assert p.n == 3 and p.answers == (0, 1)  # both marked bits are scored
    assert p.a.tolist() == [1, 1, 0, copying.QUERY] and p.b.tolist() == [1, 1, 1, copying.QUERY]
    (q,) = copying.CopyingTask("count_ones", 1, 4).confusable_pairs([2])
    assert q.answers == (2,)  # the count n only: n + 1 may have no class
    assert q.a.tolist() == [1, 1, copying.QUERY] and q.b.tolist() == [1, 1, 1, copying.QUERY]
