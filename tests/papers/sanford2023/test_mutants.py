"""Mutants of the Sanford, Hsu & Telgarsky 2023 rows: each breaks the thing a row is about (a
weight of the built unit, the reduction's encoding, a measured constant) and asserts that the
row no longer reaches its expected status (tests/mutants.py). Tiny sizes: each runs in seconds."""

import dataclasses
import functools

import jax

from tests.mutants import mutant, status_of
from transformer_theory.papers.sanford2023 import _constructions_match2 as match2
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.papers.sanford2023 import _theory_disjointness as disjointness
from transformer_theory.papers.sanford2023 import _theory_rip as rip

jax.config.update("jax_enable_x64", True)


def _with_attn(params, **scale):
    """``params`` with its first layer's attention matrices scaled (``w_v=0.5`` halves w_v)."""
    attn = params.layers[0].attn
    attn = dataclasses.replace(attn, **{k: getattr(attn, k) * v for k, v in scale.items()})
    layer = dataclasses.replace(params.layers[0], attn=attn)
    return dataclasses.replace(params, layers=(layer, *params.layers[1:]))


def _qsa_scaled(monkeypatch, **scale):
    built = qsa.qsa_construction

    def broken(*args, **kwargs):
        c = built(*args, **kwargs)
        return dataclasses.replace(c, params=_with_attn(c.params, **scale))

    monkeypatch.setattr(qsa, "qsa_construction", broken)


# ----------------------------------------------------------------------------------------- qSA


@mutant("sanford2023.qsa_upper")
def test_qsa_upper_with_the_value_map_halved_is_not_certified(monkeypatch):
    # the defect of issue 36: only the attention was enclosed, so w_v *= 0.5 stayed certified
    _qsa_scaled(monkeypatch, w_v=0.5)
    assert status_of("sanford2023.qsa_upper", qs=(1,)) == "refuted"


@mutant("sanford2023.qsa_upper")
def test_qsa_upper_with_a_flat_query_is_not_certified(monkeypatch):
    _qsa_scaled(monkeypatch, w_q=0.05)
    assert status_of("sanford2023.qsa_upper", qs=(1,)) not in ("certified", "error")


@mutant("sanford2023.qsa_precision")
def test_qsa_precision_with_the_value_map_halved_is_not_certified(monkeypatch):
    _qsa_scaled(monkeypatch, w_v=0.5)
    assert status_of("sanford2023.qsa_precision", qs=(1,)) == "refuted"


@mutant("sanford2023.qsa_precision")
def test_qsa_precision_with_w_rounded_to_nothing_is_not_certified(monkeypatch):
    # every coordinate of w rounded to a multiple of 2^4: the query no longer selects y
    monkeypatch.setattr(qsa, "round_bits", lambda w, bits: qsa.np.round(w / 16) * 16)
    assert status_of("sanford2023.qsa_precision", qs=(1,)) != "certified"


def _rip_constants_set(monkeypatch, value):
    real = rip.rip_constants

    def fake(*args, **kwargs):
        return dataclasses.replace(real(*args, **kwargs), isometry=value, orthogonality=value)

    monkeypatch.setattr(rip, "rip_constants", fake)


@mutant("sanford2023.qsa_rip_route")
def test_rip_route_with_u_satisfying_the_rip_is_not_a_finding(monkeypatch):
    _rip_constants_set(monkeypatch, 0.1)
    assert status_of("sanford2023.qsa_rip_route", qs=(1,), max_pairs=2_000) == "open"


@mutant("sanford2023.rip_disjoint")
def test_rip_disjoint_with_large_constants_is_refuted(monkeypatch):
    _rip_constants_set(monkeypatch, 0.9)
    assert status_of("sanford2023.rip_disjoint") == "refuted"


# -------------------------------------------------------------------------------------- Match2


def _match2_weak(monkeypatch):
    built = match2.match2_construction

    def weak(seq_len, modulus, *args, **kwargs):
        return _with_attn(built(seq_len, modulus, *args, **kwargs), w_q=1e-3)

    monkeypatch.setattr(match2, "match2_construction", weak)
    unit = registry.UNITS["match2"]

    def build(n, m, k, dt):
        return _with_attn(unit.build(n, m, k, dt), w_q=1e-3)

    monkeypatch.setitem(registry.UNITS, "match2", dataclasses.replace(unit, build=build))


@mutant("sanford2023.match2_exact")
def test_match2_with_a_weakened_query_is_refuted(monkeypatch):
    _match2_weak(monkeypatch)
    assert status_of("sanford2023.match2_exact") == "refuted"


@mutant("sanford2023.match2_mod_m")
def test_match2_mod_m_with_a_weakened_query_is_not_corrected(monkeypatch):
    _match2_weak(monkeypatch)
    assert status_of("sanford2023.match2_mod_m") != "corrected"


@mutant("sanford2023.match2_float32")
def test_match2_float32_with_a_broken_unit_is_not_a_finding(monkeypatch):
    _match2_weak(monkeypatch)
    assert status_of("sanford2023.match2_float32", samples=200) == "open"


@mutant("sanford2023.match_16bit")
def test_match_16bit_with_a_broken_unit_is_not_a_finding(monkeypatch):
    _match2_weak(monkeypatch)
    assert status_of("sanford2023.match_16bit", samples=200) == "open"


# ------------------------------------------------------------------------------ Match3 (ours)


def _mlp_flipped(monkeypatch, name):
    """The unit's last MLP with its output weights negated."""
    unit = registry.UNITS[name]

    def broken(n, m, k, dt):
        params = unit.build(n, m, k, dt)
        mlp = params.layers[-1].mlp
        layer = dataclasses.replace(params.layers[-1], mlp=dataclasses.replace(mlp, w2=-mlp.w2))
        return dataclasses.replace(params, layers=params.layers[:-1] + (layer,))

    monkeypatch.setitem(registry.UNITS, name, dataclasses.replace(unit, build=broken))


@mutant("sanford2023.match3bigram")
def test_match3bigram_with_a_broken_mlp_is_refuted(monkeypatch):
    _mlp_flipped(monkeypatch, "match3bigram")
    assert status_of("sanford2023.match3bigram") == "refuted"


@mutant("sanford2023.match3local_heads")
def test_match3local_heads_with_a_broken_mlp_is_refuted(monkeypatch):
    _mlp_flipped(monkeypatch, "match3local")
    assert status_of("sanford2023.match3local_heads") == "refuted"


@mutant("sanford2023.match3local_single")
def test_match3local_single_with_a_broken_mlp_is_refuted(monkeypatch):
    _mlp_flipped(monkeypatch, "match3local1")
    assert status_of("sanford2023.match3local_single") == "refuted"


# ------------------------------------------------------------------- the disjointness reduction


@mutant("sanford2023.disj_reduction")
def test_disj_reduction_with_the_plus_reading_is_refuted(monkeypatch):
    # Alice's encoding read as 2i + 1 (the garbled '2i 1' taken the wrong way)
    monkeypatch.setattr(
        disjointness, "encode", functools.partial(disjointness.encode, literal_plus=True)
    )
    assert status_of("sanford2023.disj_reduction", q_max=2) == "refuted"


def _unit_value_map_zeroed(monkeypatch):
    real = disjointness.reduction_unit

    def broken(*args, **kwargs):
        c, worst = real(*args, **kwargs)
        return dataclasses.replace(c, params=_with_attn(c.params, w_v=0.0)), worst

    monkeypatch.setattr(disjointness, "reduction_unit", broken)


@mutant("sanford2023.disj_unit")
def test_disj_unit_with_the_value_map_zeroed_is_refuted(monkeypatch):
    _unit_value_map_zeroed(monkeypatch)
    assert status_of("sanford2023.disj_unit", qs=(1,)) == "refuted"


@mutant("sanford2023.disj_message")
def test_disj_message_with_the_value_map_zeroed_is_not_certified(monkeypatch):
    _unit_value_map_zeroed(monkeypatch)
    assert status_of("sanford2023.disj_message", qs=(2,)) != "certified"
