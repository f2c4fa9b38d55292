"""transformer_theory.papers.formal_languages._theory: the cross-entropy of a signed margin,
against the two-class softmax written out here."""

import math

import numpy as np
import pytest

from transformer_theory.papers.formal_languages import _theory


def test_cross_entropy_bits_matches_softmax():
    margins = np.array([-3.0, -1e-3, 0.0, 1e-6, 2.0, 40.0, 800.0])
    # -log2 softmax([0, m])[1] = log2(1 + e^-m), term by term with math.log1p (exact to a few
    # ulps where it is representable); 800 checks no overflow on the other side (e^800 = inf).
    want = np.array([math.log1p(math.exp(-m)) / math.log(2.0) for m in margins])
    np.testing.assert_allclose(_theory.cross_entropy_bits(margins), want, rtol=1e-12, atol=0)
    assert _theory.cross_entropy_bits(0.0) == pytest.approx(1.0, rel=1e-15)  # Hahn's 1 bit


def test_bad_arguments():
    with pytest.raises(ValueError, match="name"):
        _theory.recognizer_record("dyck2", exhaustive_up_to=1)
    with pytest.raises(ValueError, match="exhaustive_up_to"):
        _theory.recognizer_record("dyck1", exhaustive_up_to=0)
    with pytest.raises(ValueError, match="samples"):
        _theory.parity_precision_records([4], samples=0)


def test_memory_estimate_covers_xla_account():
    # The command refuses by _theory.evaluation_cost; it must not under-estimate what XLA itself
    # reports for the compiled margins program (budget.compiled_bytes: arguments + outputs +
    # temporaries), for every recognizer, at n = 65 with all 8 rows in one chunk.
    import jax
    import jax.numpy as jnp

    from transformer_theory import budget
    from transformer_theory.papers.formal_languages import _constructions

    peak, entries = _theory.evaluation_cost(64, 8, itemsize=8)
    assert entries == 8 * 65**2
    for name in _constructions.RECOGNIZERS:
        params = _constructions.build(name, dtype=jnp.float64)
        xla = budget.compiled_bytes(
            _constructions._margins, params, jax.ShapeDtypeStruct((8, 65), jnp.int32)
        )
        assert 0 < xla <= peak, name


def test_exhaustive_limit_names_the_argument():
    # 2^21 strings per length is beyond all_strings' limit: refused up front, naming this
    # function's argument, instead of enumerating lengths 1..20 first.
    with pytest.raises(ValueError, match="exhaustive_up_to"):
        _theory.recognizer_record("majority", exhaustive_up_to=21)
