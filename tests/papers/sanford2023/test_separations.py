"""The networks of the trained separations (nn/baselines.py), the qSA encoding and records
(analysis/separations.py) and the smoke runs of the two experiment scripts, against float64 NumPy
references written here."""

import importlib.util
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from tests.helpers import assert_close
from transformer_theory import precision
from transformer_theory.papers.sanford2023 import _models as baselines
from transformer_theory.papers.sanford2023 import _models_separations as sep
from transformer_theory.papers.sanford2023 import _tasks as ts

EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXPERIMENTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------------
# fake quantization


@pytest.mark.parametrize("bits", [2, 3, 5])
def test_fake_quantize_rounds_to_the_symmetric_grid(bits):
    x = np.random.default_rng(bits).normal(size=(3, 7))
    got = np.asarray(precision.fake_quantize(jnp.asarray(x), bits))
    levels = 2 ** (bits - 1) - 1
    step = np.abs(x).max() / levels
    assert_close(got, np.round(x / step) * step)  # NumPy reference of the grid
    assert len(np.unique(got)) <= 2 * levels + 1
    assert np.abs(got - x).max() <= step / 2 + 1e-12  # round-to-nearest: half a step at most


def test_fake_quantize_per_example_scales_each_row_alone():
    x = np.array([[1.0, 0.26], [100.0, 0.26]])
    got = np.asarray(precision.fake_quantize(jnp.asarray(x), 2, per_example=True))
    # one level per sign: 0.26 rounds to 0 against 1 and against 100; a shared scale would
    # round the first row's 1.0 to 0 too
    assert_close(got, np.array([[1.0, 0.0], [100.0, 0.0]]))


def test_fake_quantize_passes_the_gradient_straight_through():
    x = jnp.asarray([0.3, -1.2, 0.7])
    grad = jax.grad(lambda v: jnp.sum(precision.fake_quantize(v, 2) * jnp.arange(3.0)))(x)
    assert_close(grad, np.array([0.0, 1.0, 2.0]))  # the identity's gradient, not round's (zero)
    assert precision.fake_quantize(x, None) is x
    with pytest.raises(ValueError, match="bits"):
        precision.fake_quantize(x, 1)


# ---------------------------------------------------------------------------------------------
# the qSA networks


def test_attention_unit_matches_a_numpy_softmax_reference():
    net = baselines.SparseAveragingAttention(5, 3, 2, rngs=nnx.Rngs(0))
    x = np.random.default_rng(1).normal(size=(2, 4, 5))
    got = net(jnp.asarray(x, jnp.float64))
    wq, wk, wv = (np.asarray(m.kernel[...], np.float64) for m in (net.query, net.key, net.value))
    scores = np.einsum("bie,bje->bij", x @ wq, x @ wk)
    attn = np.exp(scores - scores.max(-1, keepdims=True))
    attn /= attn.sum(-1, keepdims=True)
    assert_close(got, attn @ (x @ wv), dtype="float32")


def test_attention_unit_with_m_equal_n_expresses_qsa():
    """Queries alpha * 1[y_i], keys e_j, values z_j: the softmax weight off y_i is at most
    e^{-alpha} per key, so the error is at most 2 N e^{-alpha} (||z|| <= 1); 1e-6 for float32
    rounding of the layers."""
    n, q, dim, alpha = 6, 2, 2, 12.0
    net = baselines.SparseAveragingAttention(dim + 2 * n, n, dim, rngs=nnx.Rngs(0))
    wq = np.zeros((dim + 2 * n, n))
    wq[dim : dim + n] = alpha * np.eye(n)
    wk = np.zeros((dim + 2 * n, n))
    wk[dim + n :] = np.eye(n)
    wv = np.zeros((dim + 2 * n, dim))
    wv[:dim] = np.eye(dim)
    for module, w in ((net.query, wq), (net.key, wk), (net.value, wv)):
        module.kernel = nnx.Param(jnp.asarray(w))
    z, members = ts.qsa_sample(3, 50, n, q, dim)
    out = np.asarray(net(jnp.asarray(ts.qsa_features(z, members), jnp.float64)))
    err = np.linalg.norm(out - ts.qsa_target(z, members), axis=-1).max()
    assert err <= 2 * n * np.exp(-alpha) + 1e-6
    wq[dim : dim + n] = 0.0  # no query: uniform attention, far from qSA
    net.query.kernel = nnx.Param(jnp.asarray(wq))
    out = np.asarray(net(jnp.asarray(ts.qsa_features(z, members), jnp.float64)))
    assert np.linalg.norm(out - ts.qsa_target(z, members), axis=-1).max() > 0.1


def test_fully_connected_shapes_and_parameter_count():
    n, feat, width, dim = 3, 5, 7, 2
    net = baselines.FullyConnected(n, feat, width, dim, hidden_layers=2, rngs=nnx.Rngs(0))
    assert net(jnp.zeros((4, n, feat))).shape == (4, n, dim)
    expected = (n * feat + 1) * width + (width + 1) * width + (width + 1) * n * dim
    assert baselines.param_count(net) == expected
    with pytest.raises(ValueError, match="width"):
        baselines.FullyConnected(n, feat, 0, dim, rngs=nnx.Rngs(0))


def test_recurrent_answers_position_i_in_the_second_pass():
    """Against the GRU cell stepped by hand over x_1..x_N, x_1..x_N: answer ``i`` is read after
    ``N + i + 1`` steps, so it has seen the whole sequence (a one-pass causal RNN would not)."""
    n, feat, hidden, dim = 3, 4, 5, 2
    net = baselines.Recurrent(feat, hidden, dim, rngs=nnx.Rngs(0))
    assert baselines.param_count(net) == 3 * hidden * (feat + hidden + 1) + (hidden + 1) * dim
    x = jnp.asarray(np.random.default_rng(0).normal(size=(2, n, feat)), jnp.float32)
    got = net(x)
    h, states = jnp.zeros((2, hidden)), []
    for t in range(2 * n):
        h, _ = net.rnn.cell(h, x[:, t % n])
        states.append(h)
    assert_close(got, net.readout(jnp.stack(states[n:], axis=1)), dtype="float32")


def test_qsa_features_and_thresholds():
    z, members = ts.qsa_sample(0, 2, 4, 2, 3)
    x = ts.qsa_features(z, members)
    assert x.shape == (2, 4, 3 + 8)
    assert_close(x[..., :3], z, dtype="float32")
    assert (x[..., 3:7] == members).all() and (x[..., 7:] == np.eye(4)).all()
    assert sep.qsa_threshold("attention", 16, 3, 2) == 3
    assert sep.qsa_threshold("fnn", 16, 3, 2) == 16
    assert sep.qsa_threshold("rnn", 16, 1, 1) == 7.5
    assert sep.qsa_threshold("rnn", 16, 2, 1) is None  # the RNN bound is for q = 1, d' = 1 only
    with pytest.raises(ValueError, match="model"):
        sep.qsa_threshold("cnn", 16, 1, 1)
    with pytest.raises(ValueError, match="width"):
        sep.qsa_trained_record("attention", 4, 1, 1, 0)


# ---------------------------------------------------------------------------------------------
# the experiment scripts


def test_qsa_separation_smoke(tmp_path):
    assert _load("sanford_qsa_separation").main(["--smoke", "--out", str(tmp_path)]) == 0
    records = json.loads((tmp_path / "records.json").read_text())
    assert {r["model"] for r in records} == {"attention", "fnn", "rnn"}
    assert all(r["mean_max_error"] >= 0 and 0 <= r["within_epsilon"] <= 1 for r in records)
    assert (tmp_path / "qsa_separation.png").exists()


@pytest.mark.parametrize(
    "name, argv, message",
    [
        ("sanford_qsa_separation", ["--set", "q=5", "--set", "seq_len=4"], "--q"),
        ("sanford_match_width", ["--set", "tasks=match4"], "--tasks"),
    ],
)
def test_bad_arguments_exit_2_before_training(name, argv, message, tmp_path, capsys):
    assert _load(name).main(argv + ["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
