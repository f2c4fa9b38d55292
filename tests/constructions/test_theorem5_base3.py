"""Theorem 5's single-head construction in the paper's base 3 (Chen & Zou 2024, §14.2).

The derivation (``constructions.templates``): coordinate ``r`` of the layer-2 last stream is
``v_r = (R^2 g)_r = 3^(l-1-r) + (2 + c_r) S_C(r)``. Checked here three ways: the matrix product
``R^2 g`` (written in this file), the library's :func:`template_code`, and the model's own float64
streams. Then: distinct templates get distinct vectors, exhaustively for small ``l`` in exact
integers; Lemma 3 decides parallelism exactly (no threshold), so base 3 works at ``l = 8`` and
base 12 no longer trips a float test there; and the certification script's automaton agrees with
brute force.
"""

import importlib.util
import itertools
import pathlib

import jax
import numpy as np
import pytest

from tests.constructions.test_reference import all_logits, logit_margins, spec_tm
from transformer_theory.constructions import (
    base3,
    check_construction,
    exactly_parallel,
    lemma3_classifier,
    template_code,
    theorem5,
)
from transformer_theory.constructions import templates as templates_module
from transformer_theory.constructions._common import last_streams
from transformer_theory.tasks import TemplateMatching, all_templates

BELL = [1, 1, 2, 5, 15, 52, 203, 877, 4140]


def _set_partitions(l):
    """Every template of length ``l`` as a restricted growth string, generated here (not by
    the task module): position ``j`` joins one of the blocks so far or opens a new one."""
    out = [()]
    for _ in range(l):
        out = [t + (w,) for t in out for w in range(max(t, default=-1) + 2)]
    return out


def _r_squared_g(template, base=3):
    """``R^2 g`` by integer matrix products: ``R = I + E``, ``g_r = base^(l-1-r)``."""
    l = len(template)
    R = [[int(r == j) + int(template[r] == template[j]) for j in range(l)] for r in range(l)]
    R2 = [[sum(R[r][m] * R[m][j] for m in range(l)) for j in range(l)] for r in range(l)]
    g = [base ** (l - 1 - j) for j in range(l)]
    return tuple(sum(R2[r][j] * g[j] for j in range(l)) for r in range(l))


@pytest.mark.parametrize("l", [1, 2, 3, 4, 5])
def test_layer2_stream_is_the_derived_code(l):
    """The derivation against the code: the model's last stream is ``[e_CLS; v; 1]`` with
    ``v = R^2 g`` for every template (exact: integers below 2^53 in float64)."""
    task = TemplateMatching(l, all_templates(l))
    params = theorem5(task)
    d, n = task.vocab_size, task.seq_len
    reps = np.array([list(t) + [l] for t in task.templates], np.int32)
    streams = last_streams(params, reps)
    want = np.array([_r_squared_g(t) for t in task.templates], np.float64)
    assert np.array_equal(streams[:, d : d + l], want)
    assert np.array_equal(streams[:, d - 1], np.ones(len(reps)))  # e_CLS
    assert np.array_equal(streams[:, d + n - 1], np.ones(len(reps)))  # the trailing 1
    assert np.array_equal(streams[:, : d - 1], np.zeros((len(reps), d - 1)))
    assert [template_code(t) for t in task.templates] == [_r_squared_g(t) for t in task.templates]


@pytest.mark.parametrize("l", range(1, 9))
def test_base3_vectors_are_distinct_for_every_template(l):
    """Exhaustive, exact (Python integers): all Bell(l) templates get different vectors."""
    parts = _set_partitions(l)
    assert len(parts) == BELL[l]
    vectors = {_r_squared_g(t) for t in parts}
    assert len(vectors) == len(parts)


def test_theorem5_in_base3_works_at_l8():
    """``theorem5(TemplateMatching(8, all_templates(8)))`` used to raise "rows 3 and 4 are
    parallel" (default base l + 4 = 12 under a float threshold). Now the default is base 3 and
    every one of the 4,140 templates is classified: its margin is a function of the template
    alone, so one sequence per template covers all 8^8 sequences; 512 sampled sequences too."""
    task = TemplateMatching(8, all_templates(8))
    params = theorem5(task)
    reps = np.array([list(t) + [8] for t in task.templates], np.int32)
    margins = logit_margins(all_logits(params, reps), np.asarray(task.labels))
    assert margins.min() > 0
    res = check_construction(params, task, samples=512, key=jax.random.PRNGKey(0))
    assert res["accuracy"] == 1.0
    tokens, labels = map(np.asarray, task.sample(jax.random.PRNGKey(1), 64))
    assert [spec_tm(t, task.templates, task.labels) for t in tokens] == labels.tolist()


def test_lemma3_decides_parallel_exactly():
    """Base 12 at l = 8: distinct integer vectors whose sin^2 falls below the old 1e-12
    threshold are separated; exact multiples are refused; float-rounded multiples are not exact
    multiples and are judged as given."""
    task = TemplateMatching(8, all_templates(8))
    params = theorem5(task, base=12)
    reps = np.array([list(t) + [8] for t in task.templates], np.int32)
    assert logit_margins(all_logits(params, reps), np.asarray(task.labels)).min() > 0

    x = np.array([1e7, 1.0])
    y = np.array([1e7, 2.0])
    sin2 = 1 - (x @ y) ** 2 / ((x @ x) * (y @ y))
    assert sin2 < 1e-12  # the old threshold called this pair parallel
    assert not exactly_parallel(x, y)
    w, m = lemma3_classifier(np.stack([x, y]), np.array([0, 1]))
    assert m.min() > 0
    assert exactly_parallel(x, 3 * x) and exactly_parallel(x, -0.125 * x)
    assert exactly_parallel([0.0, 2.0, 0.0], [0.0, -5.0, 0.0])
    assert not exactly_parallel([1.0, 0.0], [1.0, 1e-300])
    with pytest.raises(ValueError, match="x_BxD: rows 0 and 2 are parallel"):
        lemma3_classifier(np.array([[1.0, 2.0], [0.0, 1.0], [2.0, 4.0]]), np.array([0, 1, 2]))


def test_colliding_codes_raise_naming_base(monkeypatch):
    """If two templates' vectors coincided (never observed for base 3 with l <= 33), theorem5
    says so before Lemma 3, naming ``base``."""
    monkeypatch.setattr(templates_module, "template_code", lambda t, base: (0,))
    with pytest.raises(ValueError, match="base: templates 0 .* and 1 .* get the same"):
        theorem5(TemplateMatching(3, all_templates(2)))


def _certify_module():
    """The certify script (a script: ``main`` reads its settings)."""
    path = pathlib.Path(__file__).resolve().parents[2] / "experiments" / "theorem5_base3_certify.py"
    spec = importlib.util.spec_from_file_location("theorem5_base3_certify", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _brute_collisions(L, mult):
    """Size pairs ``(m, m')`` of subsets of {0..L-1} with equal ``mult(|E|) S_E`` (Python ints)."""
    seen, out = {}, set()
    for size in range(1, L + 1):
        for E in itertools.combinations(range(L), size):
            value = mult(size) * sum(3**e for e in E)
            if value in seen and seen[value] != size:
                out.add((seen[value], size))
            seen.setdefault(value, size)
    return sorted(out)


def test_certify_automaton_agrees_with_brute_force():
    """The carry automaton of :mod:`transformer_theory.constructions.base3` finds exactly the
    collisions that enumeration finds: none for f's factor 2 + m (L <= 10), the planted ones for a
    factor that collides (4 S_{0} = 1 S_{0, 1} = 4); its L = 34 witness checks out in Python
    ints."""
    cert = base3
    for L in range(1, 11):
        assert cert.block_collisions(L) == _brute_collisions(L, lambda m: 2 + m) == []
        assert not cert.sort_collides(L)
    planted = lambda m: 4 if m == 1 else 1  # noqa: E731
    for L in (2, 3, 5):
        assert cert.block_collisions(L, planted) == _brute_collisions(L, planted) == [(1, 2)]
        assert cert.sort_collides(L, planted)
    E, E2 = cert.collision_witness(34, 18, 24)
    assert (len(E), len(E2)) == (18, 24) and max(E + E2) < 34
    assert 20 * sum(3**e for e in E) == 26 * sum(3**e for e in E2)
    assert cert.block_collisions(33) == []


def test_certify_names_a_bad_bound_and_fails_when_the_formula_breaks(monkeypatch):
    """A bound that is not a positive int is refused by name; a model whose streams differ from
    the formula (``codes`` planted off by one) makes the certificate fail."""
    with pytest.raises(ValueError, match="direct: expected an int >= 1"):
        base3.certify(4, 4, 0, 2)
    assert base3.certify(6, 6, 5, 3).holds  # 64-bit mode: conftest
    monkeypatch.setattr(base3, "codes", _codes_off)
    cert = base3.certify(6, 6, 2, 3)
    assert not cert.holds and not cert.model.lengths[3]


def _codes_off(rgs):
    """The vectors with the factor ``3 + |C|`` in place of ``2 + |C|`` (a wrong formula)."""
    B, l = rgs.shape
    powers = np.array([3 ** (l - 1 - j) for j in range(l)], np.int64)
    out = np.empty((B, l), np.int64)
    for r in range(l):
        same = rgs == rgs[:, r : r + 1]
        out[:, r] = powers[r] + (3 + same.sum(1)) * (same.astype(np.int64) @ powers)
    return out


def test_certify_script_smoke(tmp_path):
    cert = _certify_module()
    assert cert.main(["--smoke", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "theorem5_base3_certify.json").exists()
