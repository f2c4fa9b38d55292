"""Bad input and sizes beyond the machine or the float format: a ValueError naming the argument
(API) or one line and exit 2 (CLI), never a silent wrong answer or a traceback; and the
bit-counting pieces of the quantized qSA sweep against NumPy references written here."""

import itertools
import json
import math

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from tests.helpers import assert_close
from transformer_theory import precision
from transformer_theory.cli import main
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.papers.sanford2023 import _models as baselines
from transformer_theory.papers.sanford2023 import _models_separations as sep
from transformer_theory.papers.sanford2023 import _tasks as ts

# ---------------------------------------------------------------------------------------------
# API


@pytest.mark.parametrize("modulus", [0, 1, -3, 2.5, True])
@pytest.mark.parametrize("task", ["match2", "match3", "match3bigram", "match3local"])
def test_match_labels_refuse_a_modulus_below_two(task, modulus):
    # match2(x, modulus=0) used to return labels (NumPy's x % 0 is 0 with a warning)
    with pytest.raises(ValueError, match="modulus"):
        ts.match_labels(task, np.array([[1, 2, 3]]), modulus)


def test_all_subsets_counts_before_it_enumerates():
    rows = ts.all_subsets(5, 2, limit=10)  # C(5, 2) = 10: exactly at the limit
    want = [[j in c for j in range(5)] for c in itertools.combinations(range(5), 2)]
    np.testing.assert_array_equal(rows, np.array(want))
    with pytest.raises(ValueError, match=r"q: this would enumerate 10 "):
        ts.all_subsets(5, 2, limit=9)
    # C(64, 12) ~ 3.3e12 rows used to be attempted (hours, then out of memory)
    with pytest.raises(ValueError, match=f"{math.comb(64, 12):,}"):
        ts.all_subsets(64, 12)


def test_exact_scale_is_log2_of_c():
    # c = M^2 log(6N), independent float64 NumPy; beyond 2^53 at N = 8, M = 8^9 (the probe)
    for n, m in ((4, 16), (64, 4096), (8, 8**9)):
        want = np.log2(float(m) ** 2 * np.log(6.0 * n))
        assert abs(registry.exact_scale("match2", n, m) - want) < 1e-9
    assert registry.exact_scale("match2", 8, 8**9) > 53 > registry.exact_scale("match2", 8, 8**8)
    assert registry.exact_scale("match2", 4, 4**40) > 53  # M beyond int64: computed, not overflowed
    # Match3Local's c_1 = log(300 T M) / (1 - cos(pi / T)), T = N + 2K, in float64 NumPy where
    # the cancellation is harmless (T small), and finite where 1 - cos rounds to 0 (T ~ 1e12).
    for n, k, m in ((4, 1, 16), (8, 2, 64), (16, 3, 256)):
        t = n + 2 * k
        c1 = (np.log(300.0 * t) + np.log(m)) / (1 - np.cos(np.pi / t))
        want = max(np.log2(3.0 * m), np.log2(c1))
        assert abs(registry.exact_scale("match3local", n, m, k) - want) < 1e-9
    assert 53 < registry.exact_scale("match3local", 4, 16, 10**12) < 200


# ---------------------------------------------------------------------------------------------
# CLI


def _cli(argv, tmp_path, capsys):
    try:
        rc = main(["sanford", *argv, "--out", str(tmp_path / "out")])
    except SystemExit as exc:  # argparse's own refusal (a non-finite --eps): usage, then one line
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--task", "qsa", "--eps", "nan"], "--eps"),  # was a traceback
        (["--task", "qsa", "--eps", "inf"], "--eps"),
        (["--task", "match2", "--n", "8", "--modulus-power", "9"], "float64"),  # was exit 1
        (["--task", "match2", "--modulus-power", "40"], "float64"),  # was an int64 overflow
        (["--task", "qsa", "--n", "64", "--q", "10"], "C(N, q)"),  # was hours, then OOM
        (["--task", "match3local", "--window", str(10**12)], "--window"),  # ZeroDivisionError
    ],
    ids=["eps-nan", "eps-inf", "modulus-power-9", "modulus-power-40", "qsa-n64-q10", "window"],
)
def test_cli_refuses_in_one_line_before_work(argv, message, tmp_path, capsys):
    rc, out, err = _cli(argv, tmp_path, capsys)
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert message in lines[-1]  # the error line (argparse prints its usage before it)
    assert len(lines) == 1 or lines[0].startswith("usage:")
    assert not (tmp_path / "out").exists()  # refused before the output directory


def test_cli_refuses_a_match_sequence_beyond_the_memory_budget(tmp_path, capsys, monkeypatch):
    # one Match3Bigram sequence at N = 64, M = 64^3 has a 2M-wide MLP: ~1 GiB of activations
    monkeypatch.setenv("TT_MEMORY_BUDGET", "512M")
    rc, _, err = _cli(
        ["--task", "match3bigram", "--n", "64", "--modulus-power", "3"], tmp_path, capsys
    )
    assert rc == 2 and "GiB" in err and "--modulus-power" in err


def test_cli_prints_a_table_and_writes_strict_json(tmp_path, capsys):
    argv = ["--task", "match2", "--n", "3", "--samples", "50"]
    rc, out, _ = _cli(argv, tmp_path, capsys)
    assert rc == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("task") and any(line.startswith("match2") for line in lines)
    for line in lines:  # a table, not JSON lines
        with pytest.raises(json.JSONDecodeError):
            json.loads(line)

    def refuse(name):
        raise AssertionError(f"non-strict JSON constant {name}")

    text = (tmp_path / "out" / "sanford.json").read_text()
    (record,) = json.loads(text, parse_constant=refuse)
    assert record["within_exact_range"]["float64"] is True


# ---------------------------------------------------------------------------------------------
# bits of the quantized qSA networks


def test_fixed_scale_quantization_clips_and_rounds_to_the_grid():
    x = np.array([-2.0, -0.9, -0.2, 0.0, 0.16, 0.5, 1.7])
    got = np.asarray(precision.fake_quantize(jnp.asarray(x), 3, scale=1.0))
    want = np.round(np.clip(x, -1, 1) * 3) / 3  # 2^(3-1) - 1 = 3 levels per sign
    assert_close(got, want)
    assert precision.grid_bits(4, 3) == pytest.approx(4 * np.log2(7))
    with pytest.raises(ValueError, match="scale"):
        precision.fake_quantize(jnp.asarray(x), 3, scale=0.0)


def test_quantized_gru_state_is_on_the_grid_after_every_step():
    n, feat, hidden, dim, bits = 3, 4, 5, 2, 3
    net = baselines.Recurrent(feat, hidden, dim, state_bits=bits, rngs=nnx.Rngs(0))
    x = jnp.asarray(np.random.default_rng(0).normal(size=(2, n, feat)), jnp.float32)
    h, states = jnp.zeros((2, hidden)), []
    for t in range(2 * n):  # the float cell, then NumPy's rounding onto k/3, k in -3..3
        h, _ = nnx.GRUCell.__call__(net.rnn.cell, h, x[:, t % n])
        h = jnp.asarray(np.round(np.clip(np.asarray(h, np.float64), -1, 1) * 3) / 3, jnp.float32)
        states.append(h)
    ref = net.readout(jnp.stack(states[n:], axis=1))
    assert_close(net(x), ref, dtype="float32")
    with pytest.raises(ValueError, match="state_bits"):
        baselines.Recurrent(feat, hidden, dim, state_bits=1, rngs=nnx.Rngs(0))


def test_quantized_attention_query_is_on_the_grid():
    net = baselines.SparseAveragingAttention(5, 3, 2, query_bits=2, rngs=nnx.Rngs(0))
    x = np.random.default_rng(1).normal(size=(2, 4, 5))
    wq, wk, wv = (np.asarray(m.kernel[...], np.float64) for m in (net.query, net.key, net.value))
    q = np.round(np.tanh(x @ wq))  # p = 2: one level per sign, {-1, 0, 1}
    assert set(np.unique(np.asarray(net.queries(jnp.asarray(x))))) <= {-1.0, 0.0, 1.0}
    scores = np.einsum("bie,bje->bij", q, x @ wk)
    attn = np.exp(scores - scores.max(-1, keepdims=True))
    attn /= attn.sum(-1, keepdims=True)
    assert_close(net(jnp.asarray(x, jnp.float32)), attn @ (x @ wv), dtype="float32")


def test_bit_thresholds_in_bits():
    assert sep.qsa_bit_threshold("attention", 9, 4, 1) == 4  # m p >= q, needs N >= 2q + 1
    assert sep.qsa_bit_threshold("attention", 8, 4, 1) is None
    assert sep.qsa_bit_threshold("rnn", 8, 1, 1) == 2  # floor(N/2) / 2, the two-pass cut
    assert sep.qsa_bit_threshold("rnn", 17, 1, 1) == 4
    assert sep.qsa_bit_threshold("fnn", 8, 1, 1) is None


def test_qsa_bits_experiment_smoke(tmp_path):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "experiments" / "sanford_qsa_bits.py"
    spec = importlib.util.spec_from_file_location("sanford_qsa_bits", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--smoke", "--out", str(tmp_path)]) == 0
    (record,) = json.loads((tmp_path / "records.json").read_text())
    assert record["message_bits"] == pytest.approx(np.log2(3))  # m = 1, p = 2: {-1, 0, 1}
    assert record["bits_needed"] == 4 and (tmp_path / "qsa_bits.png").exists()
    assert mod.main(["--model", "rnn", "--set", "bits=1", "--out", str(tmp_path / "x")]) == 2
