"""Mutants of Barbero et al. 2024's rows: each test breaks the thing a row is about (the model's
positional code, a derived limit, the bound's softmax derivative, the path counts) and checks that
the row's statement no longer holds. Every row here is the library's own statement (the
theorems' text is not among the source documents): an ``example`` (one seeded model) or a
``finding``, and a statement of the library's own that its check finds false is
``unreproduced`` (``ledger.derive_status``); a check that skips elements of its domain is
``failed``."""

import jax

from tests.mutants import mutant, status_of
from transformer_theory.papers.barbero2024 import _checks as checks
from transformer_theory.papers.barbero2024 import _theory_collapse as collapse
from transformer_theory.papers.barbero2024 import _theory_oversquash as oversquash

P = "barbero2024."


def _holds(claim_id, **sizes):
    """``False`` when the row reads ``unreproduced`` (its check ran and found it false)."""
    status = status_of(claim_id, **sizes)
    return False if status == "unreproduced" else status


def _positional_swapped(monkeypatch, mapping):
    build = checks.model
    monkeypatch.setattr(checks, "model", lambda d, pos, **k: build(d, mapping.get(pos, pos), **k))


@mutant(P + "collapse_rate_no_position", P + "collapse_rate_rope")
def test_an_alibi_model_does_not_collapse_at_rate_one_over_n(monkeypatch):
    _positional_swapped(monkeypatch, {"none": "alibi", "rope": "alibi"})
    assert _holds(P + "collapse_rate_no_position", lengths=(256, 512)) is False
    assert _holds(P + "collapse_rate_rope", lengths=(256, 512)) is False


@mutant(P + "alibi_no_collapse", P + "sinusoidal_no_collapse")
def test_a_model_without_positions_collapses_instead(monkeypatch):
    _positional_swapped(monkeypatch, {"alibi": "none", "sinusoidal": "none"})
    assert _holds(P + "alibi_no_collapse", lengths=(1024, 2048)) is False
    assert _holds(P + "sinusoidal_no_collapse", lengths=(256, 512)) is False


@mutant(P + "collapse_limit_one_layer")
def test_a_wrong_derived_limit_fails(monkeypatch):
    right = collapse.one_layer_limit
    monkeypatch.setattr(collapse, "one_layer_limit", lambda p, **k: 1.05 * right(p, **k))
    assert _holds(P + "collapse_limit_one_layer") is False


@mutant(P + "bfloat16_identical")
def test_a_sinusoidal_model_keeps_the_bfloat16_pair_apart(monkeypatch):
    _positional_swapped(monkeypatch, {"none": "sinusoidal"})
    assert _holds(P + "bfloat16_identical", lengths=(2048,)) is False


def _drop_softmax_derivative(monkeypatch):
    # score gradients zero: the edge constants shrink and the analytic blocks lose a term; a
    # fresh jit so no compiled bound is reused
    original = oversquash._score_gradients
    monkeypatch.setattr(
        oversquash,
        "_score_gradients",
        lambda *a: tuple(jax.numpy.zeros_like(x) for x in original(*a)),
    )
    monkeypatch.setattr(
        oversquash, "_bound", jax.jit(lambda p, e: oversquash.sensitivity_bound(p, e))
    )


@mutant(P + "oversquash_bound")
def test_a_bound_without_the_softmax_derivative_fails(monkeypatch):
    _drop_softmax_derivative(monkeypatch)
    assert _holds(P + "oversquash_bound", length=8, depths=(1,)) is False


@mutant(P + "oversquash_layer_jacobian")
def test_analytic_blocks_without_the_softmax_derivative_fail(monkeypatch):
    _drop_softmax_derivative(monkeypatch)
    assert _holds(P + "oversquash_layer_jacobian", length=8, depths=(1,)) is False


@mutant(P + "early_tokens_sensitivity")
def test_reversed_sensitivities_weigh_late_tokens_more(monkeypatch):
    right = oversquash.early_late_ratio
    monkeypatch.setattr(oversquash, "early_late_ratio", lambda v: right(list(v)[::-1]))
    assert _holds(P + "early_tokens_sensitivity", length=8) is False


@mutant(P + "path_counts")
def test_wrong_path_counts_fail(monkeypatch):
    right = oversquash.causal_path_counts
    # an off-by-one in the binomial's depth: the count of one layer fewer
    monkeypatch.setattr(
        oversquash,
        "causal_path_counts",
        lambda n, d: right(n, max(d - 1, 1)) if d > 2 else right(n, d),
    )
    assert _holds(P + "path_counts", max_n=6, max_depth=4) is False


@mutant(P + "path_counts")
def test_path_counts_that_skip_every_odd_length_are_incomplete(monkeypatch):
    every = checks._path_cases
    monkeypatch.setattr(
        checks, "_path_cases", lambda n, d: [c for c in every(n, d) if c[0] % 2 == 0]
    )
    assert status_of(P + "path_counts", max_n=6, max_depth=4) == "failed"
