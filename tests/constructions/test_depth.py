"""Theorems 3, 5, 6 of Chen & Zou 2024: every example of small exhaustive datasets is answered
correctly,
against specs read off the tokens; the printed (garbled) versions fail where the corrected ones
hold.

The larger grids (e.g. in-context QA with n_q = n_a = 6, k = 3; templates of length 5-6) run in
``experiments/constructions_paper_sizes.py``.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.constructions.test_reference import (
    all_logits,
    logit_margins,
    spec_ictm,
    spec_qa,
    spec_tm,
)
from tests.helpers import assert_close
from transformer_theory.constructions import (
    check_construction,
    theorem3,
    theorem3_as_printed,
    theorem3_printed_classifier,
    theorem5,
    theorem5_as_printed,
    theorem6,
    theorem6_as_printed,
)
from transformer_theory.constructions.contextual import PRINTED_REPAIRS as REPAIRS6
from transformer_theory.core.forward import forward_trace
from transformer_theory.params import validate_params
from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    TemplateMatching,
    all_templates,
)


def _check_all(params, task, spec):
    """Every example: argmax equals the spec, margin > 0. Returns the min margin."""
    tokens, labels = map(np.asarray, task.all())
    want = np.array([spec(t) for t in tokens])
    assert np.array_equal(want, labels)
    m = logit_margins(all_logits(params, tokens), want)
    assert m.min() > 0, f"{int((m <= 0).sum())} of {len(m)} examples wrong"
    return m.min()


def _accuracy(params, task):
    tokens, labels = map(np.asarray, task.all())
    return float(np.mean(logit_margins(all_logits(params, tokens), labels) > 0))


@pytest.mark.parametrize("n_q,n_a,k", [(1, 1, 1), (3, 4, 2), (6, 6, 2), (4, 4, 3), (3, 6, 3)])
def test_theorem3_answers_every_in_context_question(n_q, n_a, k):
    """Theorem 3: two layers, one head, d' = d + n; the margin is exactly 3 (o = 3 e_answer)."""
    task = InContextQA(n_q, n_a, k)
    params = theorem3(task)
    cfg = params.config
    assert (cfg.heads, cfg.width) == ((1, 1), n_q + n_a + 1 + 3 * k + 2)
    m = _check_all(params, task, lambda t: spec_qa(t, n_q))
    assert m == (3.0 if n_a > 1 else np.inf)


def test_theorem3_printed_stream_holds_and_printed_classifier_fails():
    """§13.2's intermediate claim H2[n-1] = [6 q_0; 6; 3 a_0; 3 p_{3k,3k+1} + 3 p_{0,1,2}] holds on
    the paper's example (pi = pi' = id, c = 0), and the answer is a_0, not the printed a_1.

    The printed W_O = [0, I_{d2}, 0_{d2 x (n - (d1+d2+1))}]^T is transposed by the paper's own
    convention (o = x W, W in R^{d' x C}); what is wrong is its trailing width: it has n rows here
    (n = 8 > d = 7), not d' = d + n = 15, so it is no classifier. With the trailing width
    d' - (d1+d2+1) it is exactly this library's w_o, transposed, once the paper's token order
    q, r, a is mapped to the library's q, a, r."""
    n_q, n_a, k = 3, 3, 2
    task = InContextQA(n_q, n_a, k)
    d, n = n_q + n_a + 1, 3 * k + 2
    r = d - 1
    tokens = np.array([0, r, n_q + 0, 1, r, n_q + 1, 0, r], np.int32)
    params = theorem3(task)
    stream = np.asarray(forward_trace(params, jnp.asarray(tokens)).streams_LxNxD[2, -1])
    want = np.zeros(d + n)
    want[0], want[r], want[n_q + 0] = 6, 6, 3
    want[d + np.array([3 * k, 3 * k + 1, 0, 1, 2])] = 3
    assert_close(stream, want)
    assert int(np.argmax(all_logits(params, tokens[None])[0])) == 0  # a_0

    printed = theorem3_printed_classifier(task)
    assert printed.shape == (n, n_a) and n != d + n
    with pytest.raises(ValueError, match="w_o"):
        validate_params(theorem3_as_printed(task))
    # n < d: the printed trailing width is negative; read as empty, W_O has d rows, still not d'.
    assert theorem3_printed_classifier(InContextQA(6, 6, 2)).shape == (6 + 6 + 1, 6)
    corrected = theorem3_printed_classifier(task, corrected_width=True)
    assert corrected.shape == (d + n, n_a)
    # paper row of each library coordinate: questions, then answers (paper rows n_q+1..), then r.
    paper_row = list(range(n_q)) + list(range(n_q + 1, d)) + [n_q] + list(range(d, d + n))
    assert np.array_equal(corrected[paper_row].T, np.asarray(params.w_o))


@pytest.mark.parametrize(
    "alphabet,l,version",
    [(2, 2, "single"), (5, 3, "single"), (5, 4, "single"), (3, 3, "multi"), (5, 4, "multi")],
)
def test_theorem5_classifies_every_template_instance(alphabet, l, version):
    """Theorem 5: all Bell(l) templates, every injective substitution, labels a fixed
    permutation."""
    templates = all_templates(l)
    labels = tuple(int(y) for y in np.random.default_rng(l).permutation(len(templates)))
    task = TemplateMatching(alphabet, templates, labels)
    params = theorem5(task, version=version)
    n, d = l + 1, alphabet + 1
    assert params.config.heads == ((1, 1) if version == "single" else (1, n))
    assert params.config.width == (d + n if version == "single" else max(n * n, d + n))
    _check_all(params, task, lambda t: spec_tm(t, templates, labels))


def test_theorem5_printed_fails_and_each_correction_is_needed():
    """§14.2 as printed fails; repairing only W_V^(1) or only W_V^(2) still fails; both repairs
    (the printed ternary weights kept) are exactly the default ``theorem5`` (base 3) and classify
    everything, as does the base l + 4 that the digit argument proves."""
    for l in (2, 3):
        task = TemplateMatching(4, all_templates(l))
        spec = lambda t, task=task: spec_tm(t, task.templates, task.labels)  # noqa: E731
        for repair in ((), ("w_v1",), ("w_v2",)):
            assert _accuracy(theorem5_as_printed(task, repair=repair), task) < 1.0, (l, repair)
        both = theorem5_as_printed(task, repair=("w_v1", "w_v2"))
        assert all(
            np.array_equal(a, b)
            for a, b in zip(jax.tree.leaves(both), jax.tree.leaves(theorem5(task)))
        )
        _check_all(both, task, spec)
        _check_all(theorem5(task, base=l + 4), task, spec)


@pytest.mark.parametrize("alphabet,n_a,k", [(2, 2, 1), (3, 3, 2), (4, 2, 2)])
def test_theorem6_answers_every_in_context_template_query(alphabet, n_a, k):
    """Theorem 6: three layers, heads (1, 1, 2l), d' = d + n + l + 2, l = 2; margin >= 1/l."""
    l = 2
    task = InContextTemplateMatching(alphabet, n_a, all_templates(l), k)
    params = theorem6(task)
    d, n = alphabet + n_a + 1, k * (l + 2) + l + 1
    assert (params.config.heads, params.config.width) == ((1, 1, 2 * l), d + n + l + 2)
    assert _check_all(params, task, lambda t: spec_ictm(t, alphabet, l)) >= 1.0 / l - 1e-12


@pytest.mark.parametrize("l", [2, 3])
def test_theorem6_template_rows_are_the_first_l_padding_coordinates(l):
    """After layers 1 and 2 the padding slots rel = l, l + 1 (the r and answer slots, part of the
    printed "last l coordinates") are zero on every input, and the template rows E[u] sit in the
    first l padding coordinates of each question position."""
    task = InContextTemplateMatching(3, 2, all_templates(l), 2)
    params = theorem6(task)
    d, n = task.vocab_size, task.seq_len
    tokens, _ = task.sample(jax.random.PRNGKey(0), 64)
    trace = jax.vmap(lambda t: forward_trace(params, t).streams_LxNxD)(jnp.asarray(tokens))
    pad = np.asarray(trace)[:, 1:3, :, d + n :]  # after layers 1 and 2
    assert np.all(pad[..., l:] == 0)
    for row, t in zip(np.asarray(trace)[:, 1, :, d + n : d + n + l], np.asarray(tokens)):
        for b in range(task.k + 1):
            q = t[b * (l + 2) : b * (l + 2) + l]
            assert np.array_equal(row[b * (l + 2) : b * (l + 2) + l], q[:, None] == q[None, :])


def test_theorem6_printed_fails_and_each_correction_is_needed():
    """§15 as printed answers nothing strictly (answer logits tie at 0); dropping any one of
    the three repairs fails somewhere; all three are exactly ``theorem6``."""
    # W_QK^(1)'s rectangular block only reaches question positions when A > n_a + 1; the final r's
    # missing answers only matter when some answer is absent from the context (n_a > k).
    tasks = dict(
        w_qk1=InContextTemplateMatching(4, 2, all_templates(2), 2),
        m_coords=InContextTemplateMatching(3, 3, all_templates(2), 2),
        final_r=InContextTemplateMatching(3, 3, all_templates(2), 2),
    )
    assert _accuracy(theorem6_as_printed(tasks["final_r"]), tasks["final_r"]) == 0.0
    for missing, task in tasks.items():
        rest = tuple(r for r in REPAIRS6 if r != missing)
        assert _accuracy(theorem6_as_printed(task, repair=rest), task) < 1.0, missing
    full = theorem6_as_printed(task, repair=REPAIRS6)
    assert all(
        np.array_equal(a, b) for a, b in zip(jax.tree.leaves(full), jax.tree.leaves(theorem6(task)))
    )


def test_check_construction_sampled_mode_and_bad_input():
    task = InContextQA(5, 5, 2)
    params = theorem3(task)
    res = check_construction(params, task, chunk_size=64, samples=200, key=jax.random.PRNGKey(3))
    # Theorem 3's logits are 3 for the answer and 0 elsewhere: margin 3, relative margin 3/3.
    assert res == dict(
        examples=200, accuracy=1.0, min_margin=3.0, min_relative_margin=1.0, mode="sampled"
    )
    with pytest.raises(ValueError, match="task"):
        check_construction(params, InContextQA(5, 4, 2))
    with pytest.raises(ValueError, match="chunk_size"):
        check_construction(params, task, chunk_size=0)
    with pytest.raises(ValueError, match="samples"):
        check_construction(params, task, samples=-1)


def test_construction_inputs_raise_naming_the_argument():
    tm = TemplateMatching(3, all_templates(2))
    with pytest.raises(ValueError, match="task"):
        theorem3(tm)
    with pytest.raises(ValueError, match="version"):
        theorem5(tm, version="double")
    with pytest.raises(ValueError, match="base"):
        theorem5(tm, base=1)
    with pytest.raises(ValueError, match="base"):
        theorem5(tm, version="multi", base=3)
    with pytest.raises(ValueError, match="task.labels"):
        theorem5(TemplateMatching(3, all_templates(2), labels=(1, 1)))
    with pytest.raises(ValueError, match="repair"):
        theorem5_as_printed(tm, repair=("w_qk",))
    with pytest.raises(ValueError, match="repair"):
        theorem6_as_printed(InContextTemplateMatching(2, 2, all_templates(2), 1), repair=("x",))
    with pytest.raises(ValueError, match="task"):
        theorem6(tm)
