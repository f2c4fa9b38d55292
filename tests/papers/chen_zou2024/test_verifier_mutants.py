"""Mutants of Chen & Zou 2024's verifier rows: each test breaks what a row is about (a dependence
coefficient, a model's scope, the softmax weight Z, a dataset's labels, a witness) and asserts the
row no longer reaches its expected status (tiny sizes; each runs in seconds).

A break in the library's reading (its models, its dependent sets, its candidate witness) reads
``failed``, never ``refuted``: only the printed object (Definition 2's example, a printed
sentence's counterexample) refutes the paper. A check that skips elements of its domain, or whose
witness leaves its own ball, reads ``failed`` too."""

import dataclasses
import types

import numpy as np
import pytest

from tests.mutants import mutant, status_of
from transformer_theory.papers.chen_zou2024 import _checks_verifier as vc
from transformer_theory.theory import checks, dependence, suite

ONE = {"datasets": "toy", "models": 1}


@pytest.fixture(autouse=True)
def _fresh_caches():
    for f in (vc._enclosures, vc._suite_datasets, vc._verdicts):
        f.cache_clear()
    yield
    for f in (vc._enclosures, vc._suite_datasets, vc._verdicts):
        f.cache_clear()


def _break_first_lambda(monkeypatch):
    real = suite.build_datasets

    def broken(names, *args, **kwargs):
        out = real(names, *args, **kwargs)
        first = out[0].sets[0]
        lam = np.array(first.lam_B, dtype=object)
        lam[0] += 1  # (2, 1, -1, -1): no dependence of the paper's example
        out[0].sets[0] = dataclasses.replace(first, lam_B=lam)
        return out

    monkeypatch.setattr(suite, "build_datasets", broken)


def _swap_family(monkeypatch, name, other):
    real = checks.random_models

    def swapped(family, *args, **kwargs):
        if family.name == name:
            family = checks.FAMILIES[other]
        return real(family, *args, **kwargs)

    monkeypatch.setattr(checks, "random_models", swapped)


@mutant("chen_zou2024.prop7")
def test_prop7_a_coefficient_that_is_no_dependence(monkeypatch):
    _break_first_lambda(monkeypatch)
    assert status_of("chen_zou2024.prop7", families="relu-1h", **ONE) == "failed"


@mutant("chen_zou2024.prop8")
def test_prop8_an_mlp_breaks_the_relation(monkeypatch):
    _swap_family(monkeypatch, "relu-1h", "relu-mlp")
    assert status_of("chen_zou2024.prop8", families="relu-1h", **ONE) == "failed"


@mutant("chen_zou2024.prop9")
def test_prop9_plain_lambda_without_z(monkeypatch):
    import flint

    from transformer_theory import exact

    real = exact.evaluate

    def without_z(*args, **kwargs):  # every softmax denominator Z replaced by 1
        tr = real(*args, **kwargs)
        tr.normalizers = [
            None if layer is None else [[flint.arb(1)] * len(z) for z in layer]
            for layer in tr.normalizers
        ]
        return tr

    monkeypatch.setattr(exact, "evaluate", without_z)
    assert status_of("chen_zou2024.prop9", families="softmax-1h", **ONE) == "failed"


@mutant("chen_zou2024.prop10")
def test_prop10_three_heads_each_with_its_own_z(monkeypatch):
    _swap_family(monkeypatch, "softmax-1h", "softmax-3h")
    assert status_of("chen_zou2024.prop10", families="softmax-1h", **ONE) == "failed"


def test_the_engine_must_agree_with_the_library(monkeypatch):
    real = checks.model_outputs_general

    def drifted(params_M, tokens):
        s, o, z = real(params_M, tokens)
        return s + 1e-6, o, z

    monkeypatch.setattr(checks, "model_outputs_general", drifted)
    assert status_of("chen_zou2024.prop7", families="relu-1h", **ONE) == "error"


@mutant("chen_zou2024.definition2")
def test_definition2_a_checker_that_accepts_everything_is_the_librarys_failure(monkeypatch):
    monkeypatch.setattr(dependence, "is_dependence", lambda *a, **k: True)
    assert status_of("chen_zou2024.definition2") == "failed"


@mutant("chen_zou2024.definition2")
def test_definition2_an_example_whose_sides_differ_is_refuted(monkeypatch):
    real = dependence.paper_example

    def unbalanced():  # (a,b,r) + (a,a,r) against (b,a,r) + (b,b,r): position 0 differs
        s = real()
        return dataclasses.replace(s, lam_B=np.array([1, -1, 1, -1], dtype=object))

    monkeypatch.setattr(dependence, "paper_example", unbalanced)
    assert status_of("chen_zou2024.definition2") == "refuted"


@mutant("chen_zou2024.definition3_basis")
def test_definition3_a_basis_missing_a_row(monkeypatch):
    real = dependence.dependence_basis
    monkeypatch.setattr(dependence, "dependence_basis", lambda *a, **k: real(*a, **k)[:-1])
    assert status_of("chen_zou2024.definition3_basis", upto=5) == "failed"


@mutant("chen_zou2024.definition3_basis")
def test_definition3_a_balanced_row_with_nonzero_sum_refutes_the_sentence(monkeypatch):
    """A basis row that balances every position yet sums to 1 would be a counterexample to the
    printed sentence: position_counts and the check's own balance both say 'balanced'."""
    from transformer_theory.papers.chen_zou2024 import _checks_verifier

    real = dependence.dependence_basis

    def with_extra(tokens, vocab):
        b = real(tokens, vocab)
        extra = np.zeros((1, b.shape[1]), dtype=object)
        extra[0, 0] = 1
        return np.concatenate([b, extra])

    monkeypatch.setattr(dependence, "dependence_basis", with_extra)
    monkeypatch.setattr(_checks_verifier, "_position_balance", lambda *a: True)
    assert status_of("chen_zou2024.definition3_basis", upto=5) == "refuted"


@mutant("chen_zou2024.lemma6_template_pairs")
def test_lemma6_skipping_pairs_of_its_domain_fails(monkeypatch):
    """The library's template list loses its last template: Lemma 6 covers fewer pairs than its
    domain (counted by _domains' own enumeration) holds."""
    real = vc._usable
    monkeypatch.setattr(vc, "_usable", lambda a, l: real(a, l)[:-1])
    assert status_of("chen_zou2024.lemma6_template_pairs", upto=5) == "failed"


@mutant("chen_zou2024.lemma6_template_pairs")
def test_lemma6_a_wrong_weight(monkeypatch):
    real = dependence.template_pair_sets

    def broken(*a, **k):
        sets = real(*a, **k)
        lam = np.array(sets[0].lam_B, dtype=object)
        lam[0] += 1
        return [dataclasses.replace(sets[0], lam_B=lam), *sets[1:]]

    monkeypatch.setattr(dependence, "template_pair_sets", broken)
    assert status_of("chen_zou2024.lemma6_template_pairs") == "failed"


@mutant("chen_zou2024.theorem2_toy")
def test_theorem2_a_separable_set_has_no_certificate(monkeypatch):
    real = dependence.paper_example

    def separable():  # labels 0, 0, 1, 1 follow the first token: one layer can read it
        s = real()
        tok = np.asarray([[0, 0, 2], [0, 1, 2], [1, 0, 2], [1, 1, 2]], np.int32)
        return dataclasses.replace(s, tokens_BxN=tok)

    monkeypatch.setattr(dependence, "paper_example", separable)
    assert status_of("chen_zou2024.theorem2_toy") == "failed"


def _drop_last(module, name, monkeypatch):
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: tuple(x[:-1] for x in real(*a, **k)))


@mutant("chen_zou2024.theorem2_accuracy")
def test_theorem2_accuracy_three_examples_are_separable(monkeypatch):
    from transformer_theory.tasks import toy

    _drop_last(toy, "toy_icl", monkeypatch)
    assert status_of("chen_zou2024.theorem2_accuracy") == "unreproduced"


@mutant("chen_zou2024.theorem4_templates")
def test_theorem4_one_template_left_is_classifiable(monkeypatch):
    from transformer_theory.tasks import TemplateMatching

    real = TemplateMatching.all

    def only_aa(self, *a, **k):
        x, y = real(self, *a, **k)
        keep = np.asarray(y) == 0
        return np.asarray(x)[keep], np.asarray(y)[keep]

    monkeypatch.setattr(TemplateMatching, "all", only_aa)
    assert status_of("chen_zou2024.theorem4_templates", upto=4) == "failed"


@mutant("chen_zou2024.icqa_accuracy_bound")
def test_icqa_a_wrong_label_moves_the_bound(monkeypatch):
    from transformer_theory.tasks import InContextQA

    real = InContextQA.all

    def relabelled(self, *a, **k):
        x, y = real(self, *a, **k)
        return np.asarray(x), np.zeros_like(np.asarray(y))  # one class: every model is right

    monkeypatch.setattr(InContextQA, "all", relabelled)
    assert status_of("chen_zou2024.icqa_accuracy_bound") != "finding"


@mutant("chen_zou2024.section16_multihead")
def test_section16_a_float_witness_the_balls_reject(monkeypatch):
    """The search claims a witness, but the model (2 softmax heads, random numpy weights) is
    none: its enclosed margins are not all positive, so nothing is found."""
    from transformer_theory.params import AttentionParams, LayerParams, ModelParams
    from transformer_theory.tasks import toy

    def fake(index, steps, restarts):
        cfg = toy.TABLE1_REASONING_TASK.model_config(heads=(2,), attention="softmax")
        rng = np.random.default_rng(1)
        D, C = cfg.width, cfg.num_classes
        attn = AttentionParams(w_v=rng.normal(size=(2, D, D)), w_qk=rng.normal(size=(2, D, D)))
        p = ModelParams(layers=(LayerParams(attn=attn),), w_o=rng.normal(size=(C, D)), config=cfg)
        tok, lab = (np.asarray(a) for a in toy.toy_icl())
        rec = types.SimpleNamespace(found=True, min_margin=1.0, params=p)
        return "softmax, 1 layer, 2 heads", rec, tok, lab

    monkeypatch.setattr(vc, "_search", fake)
    assert status_of("chen_zou2024.section16_multihead") == "open"


@mutant("chen_zou2024.witness_scope")
def test_witness_scope_an_out_of_scope_search_that_finds_nothing(monkeypatch):
    """The out-of-scope family's search fails (its record says so, as a search would with a
    family that cannot fit the set): the scope's tightness is no longer shown."""

    def nothing(index, steps, restarts):
        rec = types.SimpleNamespace(
            found=False, in_scope=False, min_margin=-1.0, tolerance=1e-8, params=None
        )
        return f"family {index}", rec, None, None

    monkeypatch.setattr(vc, "_search", nothing)
    assert status_of("chen_zou2024.witness_scope") == "open"


@mutant("chen_zou2024.scope_controls")
def test_scope_controls_a_control_inside_the_scope(monkeypatch):
    """softmax-1h with zero query-key weights: every score 0, every Z_i = n, so plain lambda
    (Prop. 8's control for softmax) holds and the control no longer fails."""
    real = checks.random_models

    def flat(family, *args, **kwargs):
        params = real(family, *args, **kwargs)
        layers = tuple(
            dataclasses.replace(lay, attn=dataclasses.replace(lay.attn, w_qk=lay.attn.w_qk * 0))
            for lay in params.layers
        )
        return dataclasses.replace(params, layers=layers)

    monkeypatch.setattr(checks, "random_models", flat)
    assert status_of("chen_zou2024.scope_controls", families="softmax-1h", **ONE) == "open"


@mutant("chen_zou2024.affine_form")
def test_affine_form_a_zero_tolerance(monkeypatch):
    from transformer_theory.theory.checks import verdicts

    monkeypatch.setattr(verdicts, "affine_tolerance", lambda *a, **k: 0.0)
    assert status_of("chen_zou2024.affine_form", families="softmax-1h", **ONE) == "open"


@mutant("chen_zou2024.prop7")
def test_prop7_a_model_skipped_is_an_incomplete_check(monkeypatch):
    real = vc._enclosures.__wrapped__
    monkeypatch.setattr(vc, "_enclosures", lambda *a: real(*a)[:-1])
    assert status_of("chen_zou2024.prop7", families="relu-1h", datasets="toy", models=2) == "failed"


@mutant("chen_zou2024.prop7", "chen_zou2024.prop8")
def test_prop_an_engine_ball_off_the_librarys_value_is_unsound(monkeypatch):
    """The engine's first stream ball moved away from the library's float64 value (the midpoint
    guard switched off): the witness leaves the ball, the check is unsound."""
    from transformer_theory import exact

    real = exact.evaluate

    def shifted(*args, **kwargs):
        tr = real(*args, **kwargs)
        tr.streams[1][tr.streams[1].nrows() - 1, 0] += 1
        return tr

    monkeypatch.setattr(exact, "evaluate", shifted)
    monkeypatch.setattr(vc, "_midpoint_gap", lambda *a: 0.0)
    assert status_of("chen_zou2024.prop7", families="relu-1h", **ONE) == "failed"


@mutant("chen_zou2024.section16_multihead")
def test_section16_margin_balls_off_the_float_margin_are_unsound(monkeypatch):
    from transformer_theory import exact

    real = exact.margins

    def moved(*args, **kwargs):
        m = real(*args, **kwargs)
        return {**m, "margins": ["[1000 +/- 1e-10]"] * len(m["margins"])}

    monkeypatch.setattr(exact, "margins", moved)
    assert status_of("chen_zou2024.section16_multihead") == "failed"
