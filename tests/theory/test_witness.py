"""Witness search on Theorem 2's toy set (Chen & Zou 2024, §13.1): found outside the theorem,
re-verified in float64.

The found witness is re-evaluated here twice, independently of the search: through the library's
``forward`` under ``jit`` after a save/load round trip, and through a NumPy float64 forward of one
softmax layer written in this file (Chen & Zou 2024, eq. 2-3 with softmax, eq. 18).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory import ModelConfig, forward, init_params, saveload, verify_outputs
from transformer_theory.theory import witness

A_, B_, X_, Y_, R_ = 0, 1, 2, 3, 4
TOY_TOKENS = np.array(
    [
        [A_, R_, X_, B_, R_, Y_, A_, R_],
        [A_, R_, Y_, B_, R_, X_, B_, R_],
        [A_, R_, Y_, B_, R_, X_, A_, R_],
        [A_, R_, X_, B_, R_, Y_, B_, R_],
    ]
)
TOY_LABELS = np.array([0, 0, 1, 1])


def toy_config(**kw):
    return ModelConfig(vocab_size=5, seq_len=8, width=13, num_classes=2, **kw)


def numpy_softmax_layer(params, tokens):
    """o = W_O (h_{n-1} + (1/m) sum_h softmax_j(h_j^T W_QK^h h_{n-1}) W_V^h h_j), float64."""
    n, V, D = 8, 5, 13
    H = np.zeros((n, D))
    H[np.arange(n), tokens] = 1.0
    H[np.arange(n), V + np.arange(n)] = 1.0
    a = params.layers[0].attn
    wqk, wv = np.asarray(a.w_qk, np.float64), np.asarray(a.w_v, np.float64)
    heads = []
    for h in range(wqk.shape[0]):
        s = H @ wqk[h] @ H[-1]
        w = np.exp(s - s.max())
        heads.append((w / w.sum()) @ (H @ wv[h].T))
    return np.asarray(params.w_o, np.float64) @ (H[-1] + np.mean(heads, axis=0))


def numpy_margins(logits, labels):
    true = logits[np.arange(len(labels)), labels]
    other = np.where(np.eye(logits.shape[1], dtype=bool)[labels], -np.inf, logits)
    return true - other.max(axis=1)


@pytest.fixture(scope="module")
def two_head_search(tmp_path_factory):
    rec = witness.search_witness(
        TOY_TOKENS,
        TOY_LABELS,
        toy_config(heads=(2,), attention="softmax"),
        jax.random.PRNGKey(0),
        300,
        restarts=4,
    )
    path = saveload.save_model(tmp_path_factory.mktemp("witness") / "softmax2.npz", rec.params)
    return rec, path


def test_two_softmax_heads_fit_the_toy_set_and_the_margin_reverifies(two_head_search):
    rec, path = two_head_search
    # Outside Prop. 10's scope (two heads): the search finds a witness with seed 0 (and 6/6 seeds
    # tried when the defaults were chosen); the record is honest either way.
    assert rec.found, verify_outputs.witness_line(rec.to_dict())
    assert not rec.in_scope and rec.accuracy == 1.0 and rec.params is not None
    assert "params" not in rec.to_dict()  # the record serializes data, the model goes to a file
    with jax.enable_x64(True):
        params = saveload.load_model(path)
        assert params.w_o.dtype == jnp.float64 and params.config.heads == (2,)
        logits = np.asarray(
            jax.jit(jax.vmap(lambda t: forward(params, t)))(jnp.asarray(TOY_TOKENS))
        )
        ref = np.stack([numpy_softmax_layer(params, t) for t in TOY_TOKENS])
    # float64 forward of a 13-wide layer: rounding ~1e-15 relative; 1e-10 is ample headroom.
    np.testing.assert_allclose(logits, ref, rtol=1e-10, atol=1e-10)
    m = numpy_margins(ref, TOY_LABELS)
    assert m.min() > rec.tolerance > 0
    np.testing.assert_allclose(m.min(), rec.min_margin, rtol=1e-9)
    # The dependence o0 + o1 = o2 + o3 of one-layer models is visibly broken by this model.
    assert np.abs(ref[0] + ref[1] - ref[2] - ref[3]).max() > 1.0


def test_in_scope_family_finds_no_witness_and_says_so():
    rec = witness.search_witness(
        TOY_TOKENS,
        TOY_LABELS,
        toy_config(heads=(1,), attention="softmax"),
        jax.random.PRNGKey(0),
        300,
        restarts=4,
    )
    # Theorem 2 + Prop. 10: impossible, so any "found" would be a bug.
    assert rec.in_scope and not rec.found and rec.params is None
    assert rec.min_margin <= rec.tolerance and rec.accuracy < 1.0
    line = verify_outputs.witness_line(rec.to_dict())
    assert "no witness found" in line and "evidence, not proof" in line
    d = rec.to_dict()
    assert d["kind"] == "witness" and d["config"]["heads"] == [1] and d["restarts"] == 4


def test_scope_and_description():
    assert witness.in_certificate_scope(toy_config(heads=(3,)))
    assert witness.in_certificate_scope(toy_config(attention="softmax"))
    assert not witness.in_certificate_scope(toy_config(heads=(2,), attention="softmax"))
    assert not witness.in_certificate_scope(toy_config(heads=(1, 1)))
    assert not witness.in_certificate_scope(toy_config(mlp_hidden=4))
    assert witness.describe_family(toy_config(heads=(1, 1))) == "relu, 2 layers, 1 head"


def test_save_load_round_trip_and_errors(tmp_path):
    cfg = toy_config(heads=(1, 1), mlp_hidden=4, final_norm="layernorm")
    rng = np.random.default_rng(3)
    shapes = jax.eval_shape(lambda: init_params(jax.random.PRNGKey(0), cfg))
    with jax.enable_x64(True):
        p = jax.tree.map(lambda s: jnp.asarray(rng.normal(size=s.shape), jnp.float64), shapes)
        path = saveload.save_model(tmp_path / "m", p)
        q = saveload.load_model(path)
    assert path.endswith(".npz") and q.config == cfg
    for a, b in zip(jax.tree.leaves(p), jax.tree.leaves(q)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(ValueError, match="no such file"):
        saveload.load_model(tmp_path / "none.npz")
    np.savez(tmp_path / "plain.npz", w=np.ones(2))
    with pytest.raises(ValueError, match="not written by save_model"):
        saveload.load_model(tmp_path / "plain.npz")
    data = dict(np.load(path))
    data.pop(".w_o")
    np.savez(tmp_path / "cut.npz", **data)
    with pytest.raises(ValueError, match="lacks the array '.w_o'"):
        saveload.load_model(tmp_path / "cut.npz")


@pytest.mark.parametrize(
    "tokens,labels,match",
    [
        (TOY_TOKENS[:, :7], TOY_LABELS, "seq_len"),
        (TOY_TOKENS + 1, TOY_LABELS, "tokens_BxN"),
        (TOY_TOKENS, TOY_LABELS[:3], "labels_B"),
        (TOY_TOKENS, TOY_LABELS + 1, "labels_B"),
        (TOY_TOKENS.astype(float), TOY_LABELS, "tokens_BxN"),
    ],
)
def test_invalid_inputs_raise(tokens, labels, match):
    with pytest.raises(ValueError, match=match):
        witness.search_witness(tokens, labels, toy_config(), jax.random.PRNGKey(0), 10)


def test_invalid_config_and_steps_raise():
    with pytest.raises(ValueError, match="config"):
        witness.search_witness(TOY_TOKENS, TOY_LABELS, {"heads": (2,)}, jax.random.PRNGKey(0), 10)
    with pytest.raises(ValueError, match="steps"):
        witness.search_witness(TOY_TOKENS, TOY_LABELS, toy_config(), jax.random.PRNGKey(0), 0)


def test_load_model_refuses_random_bytes_and_directories(tmp_path):
    (tmp_path / "noise.npz").write_bytes(np.random.default_rng(0).bytes(256))
    with pytest.raises(ValueError, match="not an .npz archive"):
        saveload.load_model(tmp_path / "noise.npz")
    with pytest.raises(ValueError, match="no such file"):
        saveload.load_model(tmp_path)
