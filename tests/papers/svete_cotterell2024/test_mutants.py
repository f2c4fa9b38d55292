"""Mutants of Svete & Cotterell 2024's rows: each test breaks the thing a row is about (a weight
of a construction, the slides' code, a dtype, the derivation) and checks the row no longer reaches
its status. A ``finding`` (a statement of the library's own) or ``example`` keeps its word when
its statement fails (``ledger.derive_status``), so for those the test asserts that the judge's
verdict turns (``_holds``); for a row with the paper's printed words, the status itself."""

import dataclasses

import jax.numpy as jnp
import numpy as np

from tests.mutants import mutant, status_of
from transformer_theory.papers.svete_cotterell2024 import _checks as checks
from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
from transformer_theory.papers.svete_cotterell2024 import _theory_precision as precision_scan
from transformer_theory.papers.svete_cotterell2024 import _theory_soft as soft

P = "svete_cotterell2024."
_TINY = {"seeds": 1, "max_len": 1, "margin_len": 3}


def _holds(claim_id, **sizes):
    """The judge's verdict on ``claim_id`` at the quick tier with ``sizes`` overridden."""
    from transformer_theory.claims import runner

    (row,) = [c for c in runner.all_claims() if c.id == claim_id]
    row = dataclasses.replace(row, sizes={"quick": {**row.tier_sizes("quick"), **sizes}})
    _, verdict, _, _ = row.run("quick")
    return verdict.holds


def _transpose_qk(params):
    """Every head's ``W_QK`` transposed: each score peaks at the mirrored (future) key."""
    layers = []
    for layer in params.layers:
        qk = np.swapaxes(np.asarray(layer.attn.w_qk), 1, 2)
        layers.append(layer.replace(attn=layer.attn.replace(w_qk=jnp.asarray(qk))))
    return params.replace(layers=tuple(layers))


def _break_build(monkeypatch):
    real = cn.build

    def broken(lm, construction="3.1", **kw):
        return _transpose_qk(real(lm, construction, **kw))

    monkeypatch.setattr(cn, "build", broken)


@mutant(P + "theorem31")
def test_theorem31_with_mirrored_keys_is_refuted(monkeypatch):
    _break_build(monkeypatch)
    assert status_of(P + "theorem31", **_TINY) == "refuted"


@mutant(P + "theorem32")
def test_theorem32_with_mirrored_keys_is_refuted(monkeypatch):
    _break_build(monkeypatch)
    assert status_of(P + "theorem32", **_TINY) == "refuted"


@mutant(P + "theorem31", P + "theorem32")
def test_an_extra_layer_exceeds_the_printed_shape(monkeypatch):
    real = cn.build

    def deeper(lm, construction="3.1", **kw):
        p = real(lm, construction, **kw)
        return p.replace(layers=(*p.layers, *p.layers))

    monkeypatch.setattr(cn, "build", deeper)
    assert status_of(P + "theorem31", **_TINY) != "verified"


@mutant(P + "theorem33")
def test_theorem33_with_another_lms_table_is_refuted(monkeypatch):
    from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM

    real = cn.build_paper33

    def other(lm, **kw):
        return real(NGramLM.random(99, lm.alphabet_size, lm.order), **kw)

    monkeypatch.setattr(cn, "build_paper33", other)
    assert status_of(P + "theorem33", seeds=1, max_len=1) == "refuted"


@mutant(P + "variant32_direct", P + "variant33_slots")
def test_variants_with_mirrored_keys_fail(monkeypatch):
    _break_build(monkeypatch)
    assert _holds(P + "variant32_direct", **_TINY) is False
    assert _holds(P + "variant33_slots", **_TINY) is False


@mutant(P + "sparse_built_length")
def test_a_larger_sparse_scale_has_no_witness_beyond_the_built_length(monkeypatch):
    real = cn.build

    def scaled(lm, construction="3.1", **kw):
        p = real(lm, construction, **kw)
        if kw.get("attention") != "sparse":
            return p
        layers = tuple(
            layer.replace(attn=layer.attn.replace(w_qk=1000 * layer.attn.w_qk))
            for layer in p.layers
        )
        return p.replace(layers=layers)

    monkeypatch.setattr(cn, "build", scaled)
    assert _holds(P + "sparse_built_length", eq_len=0, slots_to=3) is False


@mutant(P + "score_maximized_at_target")
def test_a_shifted_code_is_not_maximized_at_the_target(monkeypatch):
    import flint

    def shifted(s):
        s = flint.arb(s)
        return (1 / s).sqrt(), (1 - 1 / (s + 1)).sqrt()

    monkeypatch.setattr(checks, "code", shifted)
    assert status_of(P + "score_maximized_at_target", positions=8) == "refuted"


@mutant(P + "slide_query_map")
def test_a_query_one_position_late_moves_the_argmax(monkeypatch):
    real = checks.literal_query
    monkeypatch.setattr(checks, "literal_query", lambda t, h: real(t + 1, h))
    assert status_of(P + "slide_query_map", positions=8) == "refuted"


@mutant(P + "derived_exact_length")
def test_an_optimistic_derivation_is_caught_by_the_scan(monkeypatch):
    real = precision_scan.predicted_exact_length

    def optimistic(c, order, dtype, **kw):
        got = real(c, order, dtype, **kw)
        return None if got is None else got + 6

    monkeypatch.setattr(precision_scan, "predicted_exact_length", optimistic)
    assert _holds(P + "derived_exact_length", constructions=("3.3-slots",)) is False


@mutant(P + "precision_float64", P + "precision_float32")
def test_mirrored_keys_fail_the_precision_scans(monkeypatch):
    _break_build(monkeypatch)
    for name in ("precision_float64", "precision_float32"):
        assert _holds(P + name, constructions=("3.1",), limit=1) is False


@mutant(P + "float32_equivalence")
def test_mirrored_keys_fail_float32_equivalence(monkeypatch):
    _break_build(monkeypatch)
    assert _holds(P + "float32_equivalence", constructions=("3.1",), max_len=1) is False


@mutant(P + "paper33_float32")
def test_paper33_built_in_float64_does_not_fail_at_36(monkeypatch):
    real = cn.build_paper33
    monkeypatch.setattr(cn, "build_paper33", lambda lm, dtype=None: real(lm, dtype=jnp.float64))
    assert _holds(P + "paper33_float32", lengths=(36,)) is False


@mutant(P + "precision_bfloat16")
def test_bfloat16_built_in_float64_is_equivalent(monkeypatch):
    import transformer_theory.precision as precision

    real = precision.dtype_of
    monkeypatch.setattr(
        precision, "dtype_of", lambda name: real("float64" if name == "bfloat16" else name)
    )
    assert _holds(P + "precision_bfloat16", constructions=("3.1",), max_len=1) is False


@mutant(P + "softmax_kl")
def test_a_beta_that_does_not_grow_fails_softmax_kl(monkeypatch):
    monkeypatch.setattr(soft, "beta_for_kl", lambda lm, c, kl, L: 1.0)
    assert _holds(P + "softmax_kl", betas=(1.0, 1000.0)) is False


@mutant(P + "construction_sizes")
def test_a_doubled_depth_exceeds_the_printed_layers(monkeypatch):
    real = cn.build

    def deeper(lm, construction="3.1", **kw):
        p = real(lm, construction, **kw)
        return p.replace(layers=(*p.layers, *p.layers))

    monkeypatch.setattr(cn, "build", deeper)
    assert status_of(P + "construction_sizes", orders=(3,), alphabets=(2,)) == "refuted"
