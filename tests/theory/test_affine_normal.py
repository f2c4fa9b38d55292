"""The affine check by exact normal equations (``affine_residuals(method="normal")``: exact
integer Gram counts, exact rational solve, a separate residual pass) against the TSQR method and
an independent float64 ``np.linalg.lstsq`` on the full rank-deficient ``[1, C]``.

Tolerances: a control's residual is O(1e-2 .. 1); both methods compute the distance of the same
data to the same span, so they agree to 1e-9 relative (the normal method's float64 sums of
``X^T W T`` carry ~ sqrt(B) eps relative error, amplified at most by the Gram condition, ~1e2
here). In scope both must be below ``affine_tolerance`` (rounding level).
"""

import numpy as np

from tests.helpers import assert_close
from tests.theory.test_checks import numpy_affine_residual
from transformer_theory.theory import checks, dependence
from transformer_theory.theory.checks.affine import _gram_counts


def test_gram_counts_are_exact_integer_products():
    rng = np.random.default_rng(0)
    tok = rng.integers(0, 5, size=(200, 6))
    X = np.concatenate([np.ones((200, 1), np.int64), dependence.position_counts(tok, 5)], axis=1)
    np.testing.assert_array_equal(_gram_counts(tok, 5), X.T @ X)


def test_normal_equations_match_qr_and_lstsq():
    rng = np.random.default_rng(1)
    V, N, C = 4, 4, 2
    tok = rng.integers(0, V, size=(96, N)).astype(np.int32)
    tok[:, -1] = V - 1
    for name in ("relu-mlp", "relu-3h"):
        fam = checks.FAMILIES[name]
        params = checks.random_models(fam, V, N, C, 6, 2)
        normal = checks.affine_residuals(params, tok, chunk_size=32)
        qr = checks.affine_residuals(params, tok, chunk_size=32, method="qr")
        assert normal.rank == qr.rank and normal.num_sequences == 96
        if fam.in_scope("affine"):
            tol = checks.affine_tolerance(np.float64, params.config, qr.rank, qr.num_chunks)
            assert normal.residual_M.max() <= tol and qr.residual_M.max() <= tol
            continue
        _, lo, _ = checks.model_outputs(params, tok)
        for m in range(2):
            ref = numpy_affine_residual(np.asarray(lo[m]), tok, V)
            assert ref > 1e-3  # a real control
            assert_close(normal.residual_M[m], ref, rtol=1e-9)
            assert_close(qr.residual_M[m], ref, rtol=1e-9)


def test_verify_10m_smoke(monkeypatch, capsys, tmp_path):
    """The script reads the experiment's config and prints its study's verdict; a control
    family declared in scope fails it (exit 1)."""
    import importlib.util
    import pathlib

    from transformer_theory.jsonio import read_json

    script = pathlib.Path(__file__).parents[2] / "experiments" / "verify_10m.py"
    spec = importlib.util.spec_from_file_location("verify_10m_script", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--smoke", "--out", str(tmp_path)]) == 0
    assert "72 sequences" in capsys.readouterr().out
    record = read_json(str(tmp_path / "verify_10m.json"))
    assert record["sequences"] == 72 and record["holds"] and record["in_scope"]
    argv = ["--smoke", "--family", "relu-mlp", "--out", str(tmp_path / "control")]
    assert module.main(argv) == 0  # a control: its residual is large, and expected so
    assert not read_json(str(tmp_path / "control" / "verify_10m.json"))["holds"]
    monkeypatch.setattr(checks.Family, "in_scope", lambda self, prop: True)
    assert module.main(argv) == 1
