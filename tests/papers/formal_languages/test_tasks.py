"""The language generators and membership of transformer_theory.papers.formal_languages._tasks,
against references written here (a stack for Dyck-1, counts for MAJORITY and PARITY)."""

import itertools

import numpy as np
import pytest

from transformer_theory.papers.formal_languages import _tasks as languages


def reference(language, string):
    """Independent membership: a stack for Dyck-1, integer counts otherwise."""
    if language == "majority":
        return string.count(1) > string.count(0)
    if language == "parity":
        return string.count(1) % 2 == 1
    stack = []
    for x in string:
        if x == 0:
            stack.append(x)
        elif not stack:
            return False
        else:
            stack.pop()
    return not stack


@pytest.mark.parametrize("language", languages.LANGUAGES)
def test_membership_exhaustive(language):
    for length in range(0, 9):
        for s in itertools.product((0, 1), repeat=length):
            assert languages.is_member(language, s) == reference(language, list(s)), s


def test_all_strings_counts_dyck_catalan():
    # Catalan numbers count Dyck words: 1, 1, 2, 5, 14 for lengths 0, 2, 4, 6, 8.
    for m, catalan in enumerate([1, 1, 2, 5, 14]):
        strings = languages.all_strings(2 * m)
        assert strings.shape == (2 ** (2 * m), 2 * m)
        assert languages.members("dyck1", strings).sum() == catalan


@pytest.mark.parametrize("language", languages.LANGUAGES)
@pytest.mark.parametrize("length", [2, 6, 40])
def test_sample_balanced_and_labelled(language, length):
    strings, labels = languages.sample(language, length, 41, seed=3)
    assert strings.shape == (41, length) and strings.dtype == np.int32
    truth = np.array([reference(language, list(map(int, row))) for row in strings])
    np.testing.assert_array_equal(labels, truth)
    assert labels.sum() == 21  # count - count // 2 members
    again, _ = languages.sample(language, length, 41, seed=3)
    np.testing.assert_array_equal(strings, again)


def test_dyck_negatives_include_balanced_ones():
    # Hard negatives: as many "(" as ")" yet not Dyck (a prefix below zero).
    strings, labels = languages.sample("dyck1", 20, 200, seed=0)
    neg = strings[~labels]
    assert np.any(neg.sum(axis=1) == 10)


def test_bad_arguments():
    with pytest.raises(ValueError, match="language"):
        languages.is_member("dyck2", [0])
    with pytest.raises(ValueError, match="length"):
        languages.sample("dyck1", 5, 4)
    with pytest.raises(ValueError, match="count"):
        languages.sample("parity", 5, 0)
    with pytest.raises(ValueError, match="string"):
        languages.is_member("parity", [2])


def test_all_strings_lexicographic_against_itertools():
    for length in range(0, 9):
        want = np.array(list(itertools.product((0, 1), repeat=length)), np.int32)
        got = languages.all_strings(length)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want.reshape(2**length, length))


def test_all_strings_refuses_before_allocating():
    # all_strings(40) used to build a list of 2^40 tuples (MemoryError or the OOM killer); it is
    # now refused by count before anything is allocated, naming the argument and the count.
    with pytest.raises(ValueError, match=r"length: .*1,099,511,627,776 strings.*limit"):
        languages.all_strings(40)
    with pytest.raises(ValueError, match="length"):
        languages.all_strings(3, limit=7)
    assert languages.all_strings(3, limit=8).shape == (8, 3)
    for bad in (-1, 2.5, float("nan"), True, "3"):
        with pytest.raises(ValueError, match="length"):
            languages.all_strings(bad)


def test_sample_refuses_non_integers():
    for name, kwargs in (
        ("length", dict(length=float("nan"), count=4)),
        ("length", dict(length=4.5, count=4)),
        ("count", dict(length=4, count=float("inf"))),
        ("count", dict(length=4, count=True)),
        ("seed", dict(length=4, count=4, seed=-1)),
        ("seed", dict(length=4, count=4, seed=0.5)),
    ):
        with pytest.raises(ValueError, match=name):
            languages.sample("parity", **kwargs)
