"""Mutants of the Sanford, Hsu & Telgarsky 2023 rows: each breaks the thing a row is about (a
weight of the built unit, the reduction's encoding, a measured constant, a certified bound, the
engine's enclosure, the enumeration of the domain) and asserts that the row no longer reaches its
expected status (tests/mutants.py). A failed construction of an existence statement is the
library's failure (``failed``), never a refutation; a broken bound or enclosure makes the check
unsound (``failed``); a skipped domain element makes it incomplete (``failed``). Tiny sizes: each
runs in seconds."""

import dataclasses
import functools
import itertools

import flint
import jax

from tests.mutants import mutant, status_of
from transformer_theory import exact
from transformer_theory.papers.sanford2023 import _checks as checks
from transformer_theory.papers.sanford2023 import _constructions_match2 as match2
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa
from transformer_theory.papers.sanford2023 import _constructions_registry as registry
from transformer_theory.papers.sanford2023 import _tasks as tasks
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
    # Theorem 2 is an existence statement: the library's candidate failing refutes nothing
    _qsa_scaled(monkeypatch, w_v=0.5)
    assert status_of("sanford2023.qsa_upper", qs=(1,)) == "failed"


@mutant("sanford2023.qsa_upper")
def test_qsa_upper_with_a_flat_query_is_not_an_example(monkeypatch):
    _qsa_scaled(monkeypatch, w_q=0.05)
    assert status_of("sanford2023.qsa_upper", qs=(1,)) not in ("example", "error")


@mutant("sanford2023.qsa_upper", "sanford2023.qsa_precision")
def test_qsa_with_the_upper_bound_divided_by_100_is_unsound(monkeypatch):
    # the bound is no longer a bound: the check's own witness input's error now exceeds it
    real = checks._op_upper
    monkeypatch.setattr(checks, "_op_upper", lambda block: real(block) / 100)
    for row in ("sanford2023.qsa_upper", "sanford2023.qsa_precision"):
        assert status_of(row, qs=(1,)) == "failed"


@mutant("sanford2023.qsa_upper", "sanford2023.qsa_rip_route")
def test_qsa_that_skips_a_size_is_incomplete(monkeypatch):
    # (N, q) = (8, 2) dropped from the table: the check silently skips it; the tally sees it
    table = {k: v for k, v in checks.QSA_M_MIN.items() if k != (8, 2)}
    monkeypatch.setattr(checks, "QSA_M_MIN", table)
    assert status_of("sanford2023.qsa_upper") == "failed"
    assert status_of("sanford2023.qsa_rip_route", max_pairs=2_000) == "failed"


@mutant("sanford2023.qsa_precision")
def test_qsa_precision_with_the_value_map_halved_is_not_an_example(monkeypatch):
    _qsa_scaled(monkeypatch, w_v=0.5)
    assert status_of("sanford2023.qsa_precision", qs=(1,)) == "failed"


@mutant("sanford2023.qsa_precision")
def test_qsa_precision_with_w_rounded_to_nothing_is_not_an_example(monkeypatch):
    # every coordinate of w rounded to a multiple of 2^4: the query no longer selects y
    monkeypatch.setattr(qsa, "round_bits", lambda w, bits: qsa.np.round(w / 16) * 16)
    assert status_of("sanford2023.qsa_precision", qs=(1,)) not in ("example", "error")


def _rip_constants_set(monkeypatch, value):
    real = rip.rip_constants

    def fake(*args, **kwargs):
        return dataclasses.replace(real(*args, **kwargs), isometry=value, orthogonality=value)

    monkeypatch.setattr(rip, "rip_constants", fake)


@mutant("sanford2023.qsa_rip_route")
def test_rip_route_with_u_satisfying_the_rip_is_not_a_finding(monkeypatch):
    _rip_constants_set(monkeypatch, 0.1)
    assert status_of("sanford2023.qsa_rip_route", qs=(1,), max_pairs=2_000) == "unreproduced"


@mutant("sanford2023.rip_disjoint")
def test_rip_disjoint_with_large_constants_is_a_failed_correction(monkeypatch):
    # the printed definition still fails, and now so does the correction: the library's failure
    _rip_constants_set(monkeypatch, 0.9)
    assert status_of("sanford2023.rip_disjoint") == "failed"


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
def test_match2_with_a_weakened_query_is_the_librarys_failure(monkeypatch):
    # Theorem 6 says "there exists": the library's weakened candidate refutes nothing
    _match2_weak(monkeypatch)
    assert status_of("sanford2023.match2_exact", seq_lens=(2,), moduli=(4, 5)) == "failed"


def _engine_shifted(monkeypatch, by=0.25):
    """The exact engine's last streams shifted by ``by``: no longer an enclosure of the pass."""
    real = exact.evaluate

    def shifted(*args, **kwargs):
        h = real(*args, **kwargs)
        if kwargs.get("arithmetic") != "enclosed":
            return h
        last = h.streams[-1]
        moved = flint.arb_mat(
            [[last[i, j] + by for j in range(last.ncols())] for i in range(last.nrows())]
        )
        return dataclasses.replace(h, streams=[*h.streams[:-1], moved])

    monkeypatch.setattr(exact, "evaluate", shifted)


@mutant("sanford2023.match2_exact")
def test_match2_with_the_engine_off_its_enclosure_is_unsound(monkeypatch):
    _engine_shifted(monkeypatch, by=1e-3)
    assert status_of("sanford2023.match2_exact", seq_lens=(2,), moduli=(4, 5)) == "failed"


@mutant("sanford2023.match2_exact")
def test_match2_that_skips_multisets_is_incomplete(monkeypatch):
    real = itertools.combinations_with_replacement
    monkeypatch.setattr(itertools, "combinations_with_replacement", lambda *a: list(real(*a))[::2])
    assert status_of("sanford2023.match2_exact", seq_lens=(2,), moduli=(4, 5)) == "failed"


@mutant("sanford2023.match2_mod_m")
def test_match2_mod_m_with_a_weakened_query_is_not_corrected(monkeypatch):
    _match2_weak(monkeypatch)
    assert status_of("sanford2023.match2_mod_m") != "corrected"


@mutant("sanford2023.match2_float32")
def test_match2_float32_with_a_broken_unit_is_not_a_finding(monkeypatch):
    _match2_weak(monkeypatch)
    assert status_of("sanford2023.match2_float32", samples=200) == "unreproduced"


@mutant("sanford2023.match_16bit")
def test_match_16bit_with_a_broken_unit_is_not_a_finding(monkeypatch):
    _match2_weak(monkeypatch)
    assert status_of("sanford2023.match_16bit", samples=200) == "unreproduced"


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
def test_match3bigram_with_a_broken_mlp_is_the_librarys_failure(monkeypatch):
    # "there exists a transformer ...": the library's broken candidate refutes nothing
    _mlp_flipped(monkeypatch, "match3bigram")
    assert status_of("sanford2023.match3bigram") == "failed"


@mutant("sanford2023.match3local_heads")
def test_match3local_heads_with_a_broken_mlp_is_the_librarys_failure(monkeypatch):
    _mlp_flipped(monkeypatch, "match3local")
    assert status_of("sanford2023.match3local_heads") == "failed"


@mutant("sanford2023.match3local_single")
def test_match3local_single_with_a_broken_mlp_is_the_librarys_failure(monkeypatch):
    _mlp_flipped(monkeypatch, "match3local1")
    assert status_of("sanford2023.match3local_single") == "failed"


@mutant("sanford2023.match3bigram", "sanford2023.match3local_heads")
def test_match3_units_that_skip_a_size_are_incomplete(monkeypatch):
    # every size's inputs sampled (half of them) instead of enumerated: not every X ran
    real = checks.match_record

    def halved(task, n, m, **kwargs):
        return real(task, n, m, **(kwargs | {"samples": max(1, m**n // 2)}))

    monkeypatch.setattr(checks, "match_record", halved)
    assert status_of("sanford2023.match3bigram") == "failed"
    assert status_of("sanford2023.match3local_heads") == "failed"


# ------------------------------------------------------------------- the disjointness reduction


@mutant("sanford2023.disj_reduction")
def test_disj_reduction_with_the_plus_reading_is_refuted(monkeypatch):
    # Alice's encoding read as 2i + 1 (the garbled '2i 1' taken the wrong way)
    monkeypatch.setattr(tasks, "encode", functools.partial(tasks.encode, literal_plus=True))
    assert status_of("sanford2023.disj_reduction", q_max=2) == "refuted"


def _unit_value_map_zeroed(monkeypatch):
    real = qsa.reduction_unit

    def broken(*args, **kwargs):
        c, worst = real(*args, **kwargs)
        return dataclasses.replace(c, params=_with_attn(c.params, w_v=0.0)), worst

    monkeypatch.setattr(qsa, "reduction_unit", broken)


@mutant("sanford2023.disj_unit")
def test_disj_unit_with_the_value_map_zeroed_is_refuted(monkeypatch):
    _unit_value_map_zeroed(monkeypatch)
    # the library's unit fails, not the paper's protocol step
    assert status_of("sanford2023.disj_unit", qs=(1, 2)) == "failed"


@mutant("sanford2023.disj_unit", "sanford2023.disj_message")
def test_disj_with_the_engine_off_its_enclosure_is_unsound(monkeypatch):
    _engine_shifted(monkeypatch, by=0.5)
    assert status_of("sanford2023.disj_unit", qs=(1, 2)) == "failed"
    assert status_of("sanford2023.disj_message", qs=(1, 2)) == "failed"


@mutant("sanford2023.disj_unit", "sanford2023.disj_reduction")
def test_disj_that_skips_pairs_is_incomplete(monkeypatch):
    real = checks._all_pairs
    monkeypatch.setattr(checks, "_all_pairs", lambda q: tuple(x[1:] for x in real(q)))
    assert status_of("sanford2023.disj_unit", qs=(1, 2)) == "failed"
    real_record = disjointness.reduction_record
    monkeypatch.setattr(
        disjointness,
        "reduction_record",
        lambda q, *a, **k: real_record(q, *a, **k) | {"pairs": 4**q - 1},
    )
    assert status_of("sanford2023.disj_reduction", q_max=2) == "failed"


@mutant("sanford2023.disj_message")
def test_disj_message_with_the_value_map_zeroed_is_not_certified(monkeypatch):
    _unit_value_map_zeroed(monkeypatch)
    assert status_of("sanford2023.disj_message", qs=(1, 2)) not in ("bounded", "error")
