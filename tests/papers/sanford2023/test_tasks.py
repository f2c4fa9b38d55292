"""The Sanford et al. 2023 task specifications against loop references written here."""

import itertools

import numpy as np
import pytest

from transformer_theory.papers.sanford2023 import _tasks as ts


def _ref(task, x, m, window=1):
    n = len(x)
    out = []
    for i in range(n):
        if task == "match2":
            hit = any((x[i] + x[j]) % m == 0 for j in range(n))
        elif task == "match3":
            hit = any((x[i] + x[a] + x[b]) % m == 0 for a in range(n) for b in range(n))
        elif task == "match3bigram":
            hit = any((x[i] + x[j] + x[j + 1]) % m == 0 for j in range(n - 1))
        else:
            near = [j for j in range(n) if abs(i - j) <= window]
            hit = any((x[i] + x[a] + x[b]) % m == 0 for a in near for b in near)
        out.append(hit)
    return out


@pytest.mark.parametrize("task", ["match2", "match3", "match3bigram", "match3local"])
def test_match_tasks_exhaustive(task):
    # every sequence of [5]^4 (625): small enough to enumerate, M odd and even cases below
    for m in (5, 6):
        x = np.array(list(itertools.product(range(m), repeat=4)))
        got = ts.match_labels(task, x, m, window=1)
        want = np.array([_ref(task, row, m, 1) for row in x])
        np.testing.assert_array_equal(got, want)


def test_j_may_equal_i():
    # decided from the Match2 construction (the query attends to itself): a lone 0 is matched,
    # and so is M/2; a "j != i" reading would give False for both
    assert ts.match2(np.array([[0]]), 7)[0, 0]
    assert ts.match2(np.array([[3, 1]]), 6)[0, 0]
    assert not ts.match2(np.array([[3, 1]]), 6)[0, 1]
    assert ts.match3(np.array([[0]]), 7)[0, 0]  # 0 + 0 + 0


@pytest.mark.parametrize("task", ["match2", "match3", "match3bigram", "match3local"])
def test_generators_balanced_and_labelled(task):
    x, labels = ts.match_sample(task, seed=3, num=200, seq_len=12, modulus=144, window=2)
    assert x.min() >= 0 and x.max() < 144
    np.testing.assert_array_equal(labels, ts.match_labels(task, x, 144, window=2))
    # the planted matches make positives common although uniform tokens would almost never match
    assert 0.3 <= labels.mean() <= 0.8, labels.mean()


def test_qsa_target_and_sample():
    z, members = ts.qsa_sample(seed=0, num=5, seq_len=6, q=2, dim=3)
    assert np.all(np.linalg.norm(z, axis=-1) <= 1 + 1e-12)
    assert np.all(members.sum(-1) == 2)
    got = ts.qsa_target(z, members)
    for b in range(5):
        for i in range(6):
            want = sum(z[b, j] for j in range(6) if members[b, i, j]) / 2
            np.testing.assert_allclose(got[b, i], want, rtol=1e-12, atol=1e-12)


def test_bad_arguments():
    with pytest.raises(ValueError, match="q:"):
        ts.qsa_sample(0, 1, 4, 5, 1)
    with pytest.raises(ValueError, match="task:"):
        ts.match_sample("match4", 0, 1, 4, 5)
    with pytest.raises(ValueError, match="modulus:"):
        ts.match_sample("match2", 0, 1, 4, 1)
