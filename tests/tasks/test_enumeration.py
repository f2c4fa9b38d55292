"""Exhaustive datasets equal independent itertools enumerations of Chen & Zou 2024, §4.1-4.4.

Every reference below builds the dataset straight from the paper's definition with
``itertools.permutations`` / ``product`` (never the code under test), as a list of
``(tokens, label)`` rows; we compare sets, check there are no duplicates and that the size is exact,
and check the labels again with a rule that reads the answer out of the context.
"""

import itertools
import math

import numpy as np
import pytest

from transformer_theory.tasks import (
    InContextQA,
    InContextTemplateMatching,
    SequenceClassification,
    TemplateMatching,
    all_templates,
    ictm_size,
)


def rows_of(task):
    tokens, labels = task.all()
    return [
        (tuple(int(v) for v in t), int(y)) for t, y in zip(np.asarray(tokens), np.asarray(labels))
    ]


def pattern(seq):
    """Equality pattern of a sequence: positions renamed by first occurrence (independent of the
    library)."""
    first = {}
    return tuple(first.setdefault(v, len(first)) for v in seq)


def rgs_reference(length):
    """All equality patterns of ``length`` by brute force over every word in
    ``range(length)**length``."""
    return sorted({pattern(w) for w in itertools.product(range(length), repeat=length)})


# ---------------------------------------------------------------------------------- reasoning
def qa_reference(n_q, n_a, k):
    r = n_q + n_a
    rows = []
    for pi in itertools.permutations(range(n_q), k):
        for pj in itertools.permutations(range(n_a), k):
            for c in range(k):
                toks = [x for i in range(k) for x in (pi[i], r, n_q + pj[i])] + [pi[c], r]
                rows.append((tuple(toks), pj[c]))
    return rows


@pytest.mark.parametrize("n_q,n_a,k", [(2, 2, 2), (3, 3, 2), (2, 4, 1), (4, 3, 3)])
def test_in_context_qa_equals_itertools(n_q, n_a, k):
    task = InContextQA(n_q, n_a, k)
    got, want = rows_of(task), qa_reference(n_q, n_a, k)
    # the documented order is lexicographic in (pi, pi', c): itertools yields exactly that order
    assert got == want
    assert len(set(got)) == len(got) == task.size == math.perm(n_q, k) * math.perm(n_a, k) * k
    assert (
        task.seq_len == 3 * k + 2 and task.vocab_size == n_q + n_a + 1 and task.num_classes == n_a
    )
    for toks, y in got:  # label = the answer paired with the query question in the context
        query = toks[-2]
        hits = [toks[3 * i + 2] - n_q for i in range(k) if toks[3 * i] == query]
        assert hits == [y]


# ---------------------------------------------------------------------------- generalization
def tm_reference(x, templates, labels):
    rows = []
    for t, y in zip(templates, labels):
        names = list(dict.fromkeys(t))  # wildcards in order of first occurrence
        for s in itertools.permutations(range(x), len(names)):
            sub = {w: s[i] for i, w in enumerate(names)}
            rows.append((tuple(sub[w] for w in t) + (x,), y))
    return rows


def test_all_templates_are_the_equality_patterns():
    for length in range(1, 6):
        got = all_templates(length)
        assert list(got) == rgs_reference(length)
        assert len(got) == [1, 2, 5, 15, 52][length - 1]  # Bell numbers
    assert all_templates(2) == ((0, 0), (0, 1))  # Table 1: αα, αβ
    assert TemplateMatching.all_templates(3) == all_templates(3)


@pytest.mark.parametrize("length,x", [(1, 3), (2, 3), (3, 3), (3, 4)])
def test_template_matching_equals_itertools(length, x):
    templates = rgs_reference(length)
    task = TemplateMatching(x, templates)
    got, want = rows_of(task), tm_reference(x, templates, range(len(templates)))
    assert got == want  # template by template, maps in lexicographic order
    assert (
        len(set(got)) == len(got) == task.size == sum(math.perm(x, len(set(t))) for t in templates)
    )
    for toks, y in got:  # the label is the template whose pattern the sequence follows
        assert pattern(toks[:-1]) == templates[y]


def test_template_matching_custom_wildcards_and_labels():
    templates, labels = ((5, 7, 5), (9, 9, 9), (2, 3, 4)), (1, 0, 1)
    task = TemplateMatching(4, templates, labels)
    got, want = rows_of(task), tm_reference(4, templates, labels)
    assert got == want and len(set(got)) == task.size == 12 + 4 + 24
    assert task.num_classes == 2
    # every sequence over 4 symbols with one of those patterns appears exactly once
    every = {
        w
        for w in itertools.product(range(4), repeat=3)
        if pattern(w) in {(0, 1, 0), (0, 0, 0), (0, 1, 2)}
    }
    assert {t[:-1] for t, _ in got} == every


# ------------------------------------------------------------------ contextual generalization
def ictm_reference(x, n_a, templates, k):
    r = x + n_a
    rows = []

    def subs(t):
        names = list(dict.fromkeys(t))
        for s in itertools.permutations(range(x), len(names)):
            yield tuple(s[names.index(w)] for w in t)

    for pi in itertools.permutations(range(len(templates)), k):
        for pj in itertools.permutations(range(n_a), k):
            for seqs in itertools.product(*[list(subs(templates[p])) for p in pi]):
                context = [v for i in range(k) for v in seqs[i] + (r, x + pj[i])]
                for c in range(k):
                    for q in subs(templates[pi[c]]):
                        rows.append((tuple(context) + q + (r,), pj[c]))
    return rows


@pytest.mark.parametrize(
    "x,n_a,templates,k",
    [
        (2, 2, ((0, 0), (0, 1)), 2),
        (3, 3, ((0, 0), (0, 1)), 1),
        (3, 2, ((0, 0, 0), (0, 1, 0), (0, 1, 2)), 2),  # three wildcard-count groups
        (3, 3, ((0, 1, 1), (0, 0, 1), (0, 1, 0)), 2),  # all with 2 wildcards: one group
    ],
)
def test_in_context_template_matching_equals_itertools(x, n_a, templates, k):
    task = InContextTemplateMatching(x, n_a, templates, k)
    got, want = rows_of(task), ictm_reference(x, n_a, templates, k)
    assert len(set(got)) == len(got) == len(want) == task.size
    assert set(got) == set(want)
    assert task.size == ictm_size(x, n_a, [len(set(t)) for t in templates], k)
    l = len(templates[0])
    assert task.seq_len == k * (l + 2) + l + 1
    for (
        toks,
        y,
    ) in got:  # exactly one context block follows the query's template; its answer is the label
        query = toks[-(l + 1) : -1]
        hits = [
            toks[i * (l + 2) + l + 1] - x
            for i in range(k)
            if pattern(toks[i * (l + 2) : i * (l + 2) + l]) == pattern(query)
        ]
        assert hits == [y]


def test_ictm_size_closed_form_when_all_templates_share_the_wildcard_count():
    # A(T,k) · A(n_a,k) · k · A(X,w)^(k+1) when every template has w wildcards
    templates = ((0, 1, 1), (0, 0, 1), (0, 1, 0))
    for x, n_a, k in [(3, 3, 2), (5, 4, 3), (100, 100, 3)]:
        want = math.perm(3, k) * math.perm(n_a, k) * k * math.perm(x, 2) ** (k + 1)
        assert InContextTemplateMatching(x, n_a, templates, k).size == want


# ---------------------------------------------------------------------------------- memorization
def test_sequence_classification_all_sequences():
    task = SequenceClassification(3, 2, 9, seed=4)
    got = rows_of(task)
    assert [t for t, _ in got] == [
        p + (3,) for p in itertools.product(range(3), repeat=2)
    ]  # lexicographic
    assert sorted(y for _, y in got) == list(range(9))  # distinct labels
    assert task.size == task.num_classes == 9 and task.seq_len == 3


def test_sequence_classification_subset_is_distinct_and_seeded():
    task = SequenceClassification(4, 3, 20, seed=1)
    got = rows_of(task)
    seqs = [t for t, _ in got]
    assert len(set(seqs)) == 20 and all(
        t[-1] == 4 and len(t) == 4 and max(t[:-1]) < 4 for t in seqs
    )
    assert sorted(y for _, y in got) == list(range(20))
    assert rows_of(SequenceClassification(4, 3, 20, seed=1)) == got
    assert rows_of(SequenceClassification(4, 3, 20, seed=2)) != got
