"""The verifier's first-layer lookup path (``theory.checks.first_layer``) against the general
dense path on EVERY family, exhaustively over all sequences of a tiny vocabulary, and against an
independent float64 NumPy forward pass (eq. 6, written out in ``test_checks``).

Tolerance 1e-12 (relative to the largest entry): the two paths evaluate the same float64 products
in a different order (a gathered table entry vs the entry's product recomputed per sequence), so
they differ by a few ulps times the ``N + D`` terms summed, ~1e-14 here; 1e-12 leaves 100x margin
and is still ten orders of magnitude below a real mismatch (a wrong gather index is O(1)).
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import assert_close
from tests.theory.test_checks import numpy_one_layer
from transformer_theory.params import ModelConfig, init_params_batch
from transformer_theory.theory import checks
from transformer_theory.theory.checks import first_layer

V, N, C = 3, 3, 2
ALL = np.asarray(list(itertools.product(range(V), repeat=N)), np.int32)  # all 27, every last token
EXTRA = (
    checks.Family("hard-leftmost", attention="hard_leftmost", heads=(2,)),
    checks.Family("hard-average", attention="hard_average", heads=(2,), positional="sinusoidal"),
    checks.Family(
        "softmax-alibi-mlp",
        attention="softmax",
        heads=(2,),
        relative="alibi",
        mlp_hidden=4,
        final_norm="rmsnorm",
    ),
)
FAMS = list(checks.FAMILIES.values()) + list(EXTRA)


def _rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300)


@pytest.mark.parametrize("fam", FAMS, ids=[f.name for f in FAMS])
def test_lookup_path_equals_general_path(fam):
    params = checks.random_models(fam, V, N, C, 1, 2)
    assert first_layer.lookup_applies(params.config)
    fast = checks.model_outputs(params, jnp.asarray(ALL), path="lookup")
    slow = checks.model_outputs_general(params, jnp.asarray(ALL))
    for name, f, s in zip(("stream1", "logits", "Z"), fast, slow):
        assert f.shape == s.shape, name
        assert _rel(f, s) < 1e-12, (fam.name, name, _rel(f, s))


def test_lookup_path_matches_numpy_reference():
    fam = checks.Family("relu-3h", heads=(3,))
    params = checks.random_models(fam, V, N, C, 2, 2)
    s1, lo, _ = checks.model_outputs(params, jnp.asarray(ALL), path="lookup")
    # the folded classifier (logits straight from the w_o W_V table) and the unfolded stream
    (lo_folded, _) = checks.outputs.target_evaluator(params, "logits", ALL[:, -1], path="lookup")(
        ALL
    )
    for m in range(2):
        for i, t in enumerate(ALL):
            last, logits, _ = numpy_one_layer(params, m, t, "relu")
            assert_close(s1[m, i], last)
            assert_close(lo[m, i], logits)
            assert_close(lo_folded[m, i], logits)


def test_non_lookup_first_layer_falls_back_to_general_path():
    # the n-gram window code of Svete & Cotterell 2024 reads neighbouring tokens: not a lookup
    cfg = ModelConfig(V, N, 16, C, heads=(2,), positional="ngram_window")
    shapes = jax.eval_shape(lambda: init_params_batch(jax.random.PRNGKey(3), cfg, 1))
    rng = np.random.default_rng(3)  # NumPy draws: no threefry compile
    params = jax.tree.map(lambda x: jnp.asarray(0.3 * rng.standard_normal(x.shape)), shapes)
    assert not first_layer.lookup_applies(params.config)
    with pytest.raises(ValueError, match="path"):
        checks.model_outputs(params, jnp.asarray(ALL), path="lookup")
    auto = checks.model_outputs(params, jnp.asarray(ALL))
    general = checks.model_outputs_general(params, jnp.asarray(ALL))
    for a, g in zip(auto, general):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(g))


def test_set_residuals_same_on_both_paths():
    fam = checks.FAMILIES["softmax-1h"]
    params = checks.random_models(fam, V, N, C, 4, 2)
    tok = ALL[ALL[:, -1] == 0][:8].reshape(2, 4, N)
    lam = np.asarray([[1.0, -1.0, -1.0, 1.0], [1.0, 1.0, -1.0, -1.0]])
    args = dict(target="logits", weighted=True)
    fast = checks.set_residuals(params, tok, lam, path="lookup", **args)
    slow = checks.set_residuals(params, tok, lam, path="general", **args)
    np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-14)
    with pytest.raises(ValueError, match="path"):
        checks.set_residuals(params, tok, lam, path="fast")
