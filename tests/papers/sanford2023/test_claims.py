"""The Sanford et al. 2023 checks compute what their rows say (the mutants that break each row are
in test_mutants.py; tests/test_claims.py runs every row at the quick tier)."""

import dataclasses

import jax

from tests.mutants import status_of
from transformer_theory.papers.sanford2023 import _checks as checks
from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa
from transformer_theory.papers.sanford2023 import _models_separations as separations

jax.config.update("jax_enable_x64", True)


def test_the_enclosed_unit_error_brackets_the_float64_attention_error():
    # the built unit copies z exactly (w_v and w_o are 0/1 selections), so the whole unit's
    # worst error is the attention's sum_j |a_ij - 1{j in y_i}/q| that the float64 pass reads
    c = qsa.qsa_construction(8, 2, 2, 0.1, 9, seed=0)
    float64 = qsa.qsa_worst_error(c)["max_error"]
    enclosed = checks.qsa_unit_error(8, 2, 9, 0.1, None)
    assert enclosed["witness_lower"] <= float64 * (1 + 1e-9) + 1e-12
    assert float64 <= enclosed["error_upper"] * (1 + 1e-9) + 1e-12
    assert enclosed["error_upper"] - enclosed["witness_lower"] < 1e-9


def test_a_unit_whose_scores_read_z_is_refused():
    c = qsa.qsa_construction(4, 1, 2, 0.1, 4, seed=0)
    attn = c.params.layers[0].attn
    w_q = attn.w_q.at[0, 0, 0].set(1.0)  # the query now reads z_1
    layer = dataclasses.replace(c.params.layers[0], attn=dataclasses.replace(attn, w_q=w_q))
    params = dataclasses.replace(c.params, layers=(layer,))
    try:
        checks._unit_is_affine_in_z(params, 2)
    except ArithmeticError as err:
        assert "read z" in str(err)
    else:
        raise AssertionError("a unit whose scores read z was accepted")


def test_a_below_threshold_cell_within_eps_is_flagged_open_not_measured(monkeypatch):
    real = separations.qsa_trained_record

    def perfect(*args, **kwargs):
        return real(*args, **kwargs) | {"within_epsilon": 1.0, "mean_max_error": 0.0}

    checks.trained.cache_clear()
    monkeypatch.setattr(separations, "qsa_trained_record", perfect)
    try:
        assert status_of("sanford2023.qsa_lower_attention") == "open"
    finally:
        checks.trained.cache_clear()


def test_the_disj_reduction_figure_says_what_failed_when_it_fails(monkeypatch):
    # issue 44: the figure said "hold on every pair" whatever the row's status
    import functools

    from transformer_theory.claims import runner
    from transformer_theory.papers.sanford2023 import _tasks

    (row,) = [c for c in runner.all_claims() if c.id == "sanford2023.disj_reduction"]
    held = row.evaluate("quick")
    assert held.status == "bounded" and "hold on every pair" in held.verdict.figure
    monkeypatch.setattr(_tasks, "encode", functools.partial(_tasks.encode, literal_plus=True))
    failed = row.evaluate("quick")
    assert failed.status == "refuted"
    assert "hold on every pair" not in failed.verdict.figure
    assert "NOT on every pair" in failed.verdict.figure and "equivalence" in failed.verdict.figure
