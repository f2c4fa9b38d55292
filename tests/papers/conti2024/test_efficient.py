"""Efficient attention measured against exact attention (Conti 2024, §2.1).

The error study must give 0 where a variant is exact (a window covering the sequence, Linformer
pooling at full rank; BigBird's exactness is tested in tests/core/test_blocked.py), match a NumPy
float64 computation of the same error, and the cost study must show the dense reference's memory
growing quadratically and the blocked window's linearly.
"""

import re

import jax
import numpy as np
import pytest

from transformer_theory.papers.conti2024 import _models_efficient as efficient
from transformer_theory.papers.conti2024 import _theory_cost as estimates
from transformer_theory.papers.conti2024._records import CostRow


def cost_row(variant, n, *, seconds, xla_bytes):
    """A measured cost row with the given seconds and bytes (the other fields filler)."""
    return CostRow(variant, None, n, 64, seconds, seconds, 0.0, xla_bytes, xla_bytes)


def np_window_error(q, k, v, window):
    """Relative error of the sliding window |i - j| <= window // 2, written out in NumPy."""
    n = q.shape[0]
    s = q @ k.T / np.sqrt(q.shape[1])
    near = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]) <= window // 2

    def attend(mask):
        z = np.where(mask, s, -np.inf)
        w = np.exp(z - z.max(1, keepdims=True))
        return (w / w.sum(1, keepdims=True)) @ v

    exact, approx = attend(np.ones_like(near)), attend(near)
    return np.linalg.norm(approx - exact) / np.linalg.norm(exact)


def test_errors_match_numpy_and_vanish_where_exact():
    n = 16
    q, k, v = (
        np.asarray(x, np.float64)
        for x in efficient.random_inputs(jax.random.key(0), 2, n, 8, "local")
    )
    recs = efficient.error_vs_budget(
        q,
        k,
        v,
        variants=["sliding_window", "linformer"],
        budgets={"sliding_window": [4, 32], "linformer": [n]},
    )
    by = {(r.variant, r.budget): r for r in recs}
    ref = np.mean([np_window_error(q[b], k[b], v[b], 4) for b in range(2)])
    # float32 attention vs float64 reference on O(1) entries: relative 1e-4 is ~1000 eps32.
    assert by["sliding_window", 4].error == pytest.approx(ref, rel=1e-4)
    assert ref > 0.05  # a narrow window on 16 positions really differs
    for key in (("sliding_window", 32), ("linformer", n)):
        assert by[key].error < 1e-5, by[key]


def test_local_inputs_concentrate_attention_and_budgets_cover_them():
    q, k, _ = efficient.random_inputs(jax.random.key(1), 1, 64, 16, "local")
    s = np.asarray(q[0] @ k[0].T) / 4.0
    w = np.exp(s - s.max(1, keepdims=True))
    w /= w.sum(1, keepdims=True)
    near = np.abs(np.arange(64)[:, None] - np.arange(64)[None, :]) <= 4
    assert (w * near).sum(1).mean() > 0.5  # most of each row within 4 positions
    assert efficient.default_budgets("sliding_window", 64)[-1] == 128
    assert efficient.default_budgets("taylor", 64) == [None]
    p = efficient.pooling_projection(3, 8)
    np.testing.assert_allclose(p.sum(1), 1.0)
    assert (p > 0).sum() == 8  # every position in exactly one segment


def test_dense_memory_is_quadratic_and_blocked_linear():
    recs = efficient.cost_vs_length([512, 2048], variants=["sliding_window", "dense"], repeats=1)
    slopes = efficient.fit_slopes(recs, min_n=512)
    assert slopes["dense"]["xla_bytes"] > 1.7, slopes  # n^2 scores dominate
    assert slopes["sliding_window"]["xla_bytes"] < 1.1, slopes
    assert all(r.seconds > 0 and r.temp_bytes > 0 for r in recs)


def test_fit_slopes_on_exact_power_laws():
    recs = [
        cost_row(v, n, seconds=3e-6 * n**p, xla_bytes=7 * n**p)
        for v, p in (("lin", 1), ("quad", 2))
        for n in (256, 1024, 4096)
    ]
    slopes = efficient.fit_slopes(recs, min_n=1024)
    assert slopes["lin"]["seconds"] == pytest.approx(1.0)
    assert slopes["quad"]["xla_bytes"] == pytest.approx(2.0)


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: efficient.default_budgets("nonsense", 8), "variant"),
        (lambda: efficient.random_inputs(jax.random.key(0), 1, 8, 3, "local"), "dim"),
        (lambda: efficient.random_inputs(jax.random.key(0), 1, 8, 4, "nonsense"), "kind"),
        (
            lambda: efficient.error_vs_budget(
                np.ones((1, 4, 2)), np.ones((1, 5, 2)), np.ones((1, 4, 2))
            ),
            "k_BxNxE",
        ),
        (lambda: efficient.cost_vs_length([8], variants=["nonsense"]), "variants"),
    ],
)
def test_bad_arguments_are_named(call, needle):
    with pytest.raises(ValueError, match=needle):
        call()


@pytest.mark.parametrize("variant", list(efficient.VARIANTS))
def test_memory_estimate_bounds_xla_account(variant):
    # The estimate must not undercount XLA's own account of the compiled program (at the largest
    # budget the error study uses, the most expensive), and must not be vacuous: within 4x.
    # Measured ratios are 1.2-2.4 at n = 128..2,048 (estimates.MEMORY_MARGIN's comment).
    from transformer_theory import budget

    n, d = 32, 8
    budgets = efficient.default_budgets(variant, n)
    b = efficient.COST_BUDGETS[variant] if budgets == [None] else max(budgets)
    if variant in ("dense", "window_dense_mask", "linear_elu", "taylor"):
        b = efficient.COST_BUDGETS[variant]
    fn = efficient.VARIANTS[variant].build(b, n, jax.random.key(0))
    x = jax.ShapeDtypeStruct((n, d), np.float32)
    xla = budget.compiled_bytes(fn, x, x, x)
    est = estimates.estimate_bytes(variant, n, d, b)
    assert xla <= est <= 4 * xla, (xla, est)


def run_cli(argv, capfd):
    from transformer_theory.cli import main as cli_main

    capfd.readouterr()
    code = cli_main(["efficient-attention", "--no-progress", *argv])
    out, err = capfd.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv, option",
    [
        (["--max-len", "262144"], "--max-len"),  # dense scores alone: 256 GiB
        (["--error-len", "100000", "--max-len", "256"], "--error-len"),
    ],
)
def test_cli_refuses_sizes_that_do_not_fit_before_any_work(
    argv, option, tmp_path, capfd, monkeypatch
):
    monkeypatch.setenv("TT_MEMORY_BUDGET", "512M")  # the same line on any machine
    out = tmp_path / "o"
    code, _, err = run_cli(["--out", str(out), *argv], capfd)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert option in err and "needs about" in err and "512.0 MiB" in err, err
    assert not out.exists()  # refused before the output directory, let alone any measurement


def test_cli_dense_only_one_point_sweep(tmp_path, capfd):
    # `--variants dense` is a valid choice with no approximation: no error study (it divided by
    # zero after writing an empty errors.json); a one-point sweep has no slope ("n/a", not nan).
    from transformer_theory import jsonio

    argv = ["--out", str(tmp_path), "--variants", "dense", "--min-len", "64", "--max-len", "64"]
    code, out, err = run_cli([*argv, "--repeats", "1"], capfd)
    assert code == 0, err
    # The table at --max-len: the dense row's two slope columns read n/a (not nan).
    assert "nan" not in out and re.search(r"^dense\s.*\bn/a\s+n/a$", out, re.M), out
    cost = jsonio.read_json(str(tmp_path / "cost.json"))
    assert cost["slopes"] == {} and [r["n"] for r in cost["records"]] == [64]
    assert not (tmp_path / "errors.json").exists() and "error study is skipped" in out


def test_slopes_need_three_lengths():
    recs = [cost_row("v", n, seconds=1e-6 * n, xla_bytes=4 * n) for n in (1024, 2048)]
    assert efficient.fit_slopes(recs, min_n=1024, min_points=3) == {}
    recs.append(cost_row("v", 4096, seconds=1e-6 * 4096, xla_bytes=4 * 4096))
    slopes = efficient.fit_slopes(recs, min_n=1024, min_points=3)
    assert slopes["v"]["xla_bytes"] == pytest.approx(1.0)
