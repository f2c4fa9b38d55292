"""Mutants of Chen & Zou 2024's construction rows: break the weight, constant or builder a row is
about, and the row must no longer reach its expected status (tiny sizes, a few seconds each).

The theorems and lemmas are existence statements: the library's construction failing is the
library's failure (``failed``), never a refutation of the paper; the printed objects (Theorem 3's
W_O, Theorem 5's W_V, Theorem 6's weights, Lemma 4's width) are the correction rows'."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.mutants import mutant, status_of
from transformer_theory import constructions
from transformer_theory.constructions import attention, study
from transformer_theory.params import AttentionParams, LayerParams

jax.config.update("jax_enable_x64", True)


def _swap_w_o_rows(build, a=0, b=1):
    def broken(task, **kw):
        p = build(task, **kw)
        w_o = np.asarray(p.w_o).copy()
        w_o[[a, b]] = w_o[[b, a]]
        return dataclasses.replace(p, w_o=jnp.asarray(w_o))

    return broken


def _scale_w_o(build, factor):
    def broken(task, **kw):
        p = build(task, **kw)
        return dataclasses.replace(p, w_o=jnp.asarray(np.asarray(p.w_o) * factor))

    return broken


def _tie_w_o(build):
    def broken(task, **kw):
        p = build(task, **kw)
        w_o = np.asarray(p.w_o).copy()
        w_o[0] = w_o[1]  # classes 0 and 1 now tie
        return dataclasses.replace(p, w_o=jnp.asarray(w_o))

    return broken


def _halve_last_value(build):
    def broken(task, **kw):
        p = build(task, **kw)
        last = p.layers[-1]
        attn = AttentionParams(w_v=last.attn.w_v * 0.5, w_qk=last.attn.w_qk)
        return dataclasses.replace(p, layers=(*p.layers[:-1], LayerParams(attn=attn)))

    return broken


@mutant("chen_zou2024.lemma1_instructive")
def test_lemma1_with_one_map_entry_off_is_the_librarys_failure(monkeypatch):
    good = constructions.instructive_attention

    def broken(alpha, d, width):
        w = good(alpha, d, width)
        w[d, d] += 1.0  # key 0 / query 0 of every map one too large
        return w

    monkeypatch.setattr(constructions, "instructive_attention", broken)
    assert status_of("chen_zou2024.lemma1_instructive", vocab=2, max_len=2) == "failed"


@mutant("chen_zou2024.lemma2_constrained")
def test_lemma2_with_an_understated_mask_bound_leaks(monkeypatch):
    monkeypatch.setattr(
        attention, "masking_magnitude", lambda w, d, n: np.zeros((n, n), np.float64)
    )
    assert status_of("chen_zou2024.lemma2_constrained", vocab=2, max_len=2) == "failed"


@mutant("chen_zou2024.lemma3_classifier")
def test_lemma3_with_two_classifier_columns_swapped_fails(monkeypatch):
    good = constructions.lemma3_classifier

    def broken(x, labels, *a, **kw):
        w, rest = good(x, labels, *a, **kw)
        w = np.array(w)
        w[:, [0, 1]] = w[:, [1, 0]]
        return w, rest

    monkeypatch.setattr(constructions, "lemma3_classifier", broken)
    assert status_of("chen_zou2024.lemma3_classifier", dim=2, max_n=3) == "failed"


@mutant("chen_zou2024.lemma4_width")
def test_lemma4_with_a_doubled_value_map_is_not_corrected(monkeypatch):
    good = constructions.lemma4_layer

    def broken(d, n, width=None):
        w_qk, w_v = good(d, n, width)
        return w_qk, w_v * 2.0

    monkeypatch.setattr(constructions, "lemma4_layer", broken)
    assert status_of("chen_zou2024.lemma4_width", upto=6) == "failed"


@mutant("chen_zou2024.theorem1_memorization")
def test_theorem1_with_two_classes_swapped_fails(monkeypatch):
    monkeypatch.setattr(constructions, "theorem1", _swap_w_o_rows(constructions.theorem1))
    assert status_of("chen_zou2024.theorem1_memorization", upto=3) == "failed"


@mutant("chen_zou2024.theorem3_reasoning", "chen_zou2024.theorem3_printed_classifier")
def test_theorem3_with_two_answers_swapped_fails(monkeypatch):
    monkeypatch.setattr(constructions, "theorem3", _swap_w_o_rows(constructions.theorem3))
    assert status_of("chen_zou2024.theorem3_reasoning", upto=5) == "failed"
    assert status_of("chen_zou2024.theorem3_printed_classifier", upto=5) == "failed"


@mutant("chen_zou2024.theorem3_reasoning")
def test_theorem3_with_margin_5_is_another_construction(monkeypatch):
    """Every answer still right, margin 5 instead of 3: only the library's stricter reading
    (margin exactly 3) fails, so the row fails as the library's, and refutes nothing."""
    monkeypatch.setattr(constructions, "theorem3", _scale_w_o(constructions.theorem3, 5 / 3))
    assert status_of("chen_zou2024.theorem3_reasoning", upto=5) == "failed"


@pytest.mark.parametrize("row", ["theorem5_single_head", "theorem5_n_heads"])
@mutant("chen_zou2024.theorem5_single_head", "chen_zou2024.theorem5_n_heads")
def test_theorem5_with_two_templates_tied_fails(monkeypatch, row):
    monkeypatch.setattr(constructions, "theorem5", _tie_w_o(constructions.theorem5))
    assert status_of(f"chen_zou2024.{row}", upto=5) == "failed"


@mutant("chen_zou2024.theorem5_printed")
def test_theorem5_printed_with_a_broken_repaired_model_is_not_corrected(monkeypatch):
    monkeypatch.setattr(constructions, "theorem5", _tie_w_o(constructions.theorem5))
    assert status_of("chen_zou2024.theorem5_printed", upto=5) == "failed"


@mutant("chen_zou2024.theorem5_base3_codes")
def test_theorem5_base3_with_colliding_codes_fails(monkeypatch):
    monkeypatch.setattr(constructions, "template_code", lambda t: len(t))
    assert status_of("chen_zou2024.theorem5_base3_codes", automaton_l=6, direct_l=4) == "failed"


@mutant("chen_zou2024.theorem6_contextual", "chen_zou2024.theorem6_printed")
def test_theorem6_with_a_halved_layer3_value_misses_the_margin(monkeypatch):
    """Halving W_V^(3) keeps every answer right but the margin drops to 1/(2l) < 1/l."""
    monkeypatch.setattr(constructions, "theorem6", _halve_last_value(constructions.theorem6))
    assert status_of("chen_zou2024.theorem6_contextual", upto=8) == "failed"


@mutant("chen_zou2024.theorem6_printed")
def test_theorem6_printed_with_a_broken_corrected_model_is_not_corrected(monkeypatch):
    monkeypatch.setattr(constructions, "theorem6", _swap_w_o_rows(constructions.theorem6))
    assert status_of("chen_zou2024.theorem6_printed", upto=7) == "failed"


@mutant("chen_zou2024.constructions_paper_sizes")
def test_paper_sizes_row_computes_and_fails_with_theorem3_broken(monkeypatch):
    """The issue's blind spot: with Theorem 3's construction broken, the row must fail (it
    computes now; the committed record is a separate measured row)."""
    monkeypatch.setattr(study, "theorem3", _swap_w_o_rows(study.theorem3))
    got = status_of("chen_zou2024.constructions_paper_sizes", theorems=[3], samples=50)
    assert got == "failed"


@mutant("chen_zou2024.theorem3_reasoning", "chen_zou2024.theorem3_printed_classifier")
def test_theorem3_an_input_dropped_from_the_task_is_an_incomplete_check(monkeypatch):
    """The task's enumeration loses its last input: every evaluated input is still right, but
    the check covered fewer inputs than the family counts (task.size)."""
    from transformer_theory.tasks import InContextQA

    real = InContextQA.all
    monkeypatch.setattr(
        InContextQA, "all", lambda self, *a, **k: tuple(x[:-1] for x in real(self, *a, **k))
    )
    assert status_of("chen_zou2024.theorem3_reasoning", upto=5) == "failed"
    assert status_of("chen_zou2024.theorem3_printed_classifier", upto=5) == "failed"


@mutant("chen_zou2024.lemma4_width")
def test_lemma4_a_printed_width_that_fits_needs_no_correction(monkeypatch):
    """If the layer accepted the printed width and it fitted the embedding, the correction would
    be unneeded: the row fails rather than reading corrected."""
    from transformer_theory.claims import runner
    from transformer_theory.ledger import Checked
    from transformer_theory.papers.chen_zou2024 import _checks_construction as checks

    def fitted(upto):
        c = checks.lemma4_printed(upto)
        values = {**c.values, "printed_holds": True}
        return Checked(c.arithmetic, c.covered, values, subject=c.subject)

    (row,) = [r for r in runner.all_claims() if r.id == "chen_zou2024.lemma4_width"]
    row = dataclasses.replace(row, check=fitted, quantifier=None)
    assert runner._check(row, "quick").status == "failed"
