"""Function composition prompts against a dictionary reference written here."""

import math

import numpy as np
import pytest

from transformer_theory.papers.peng2024 import _tasks as comp
from transformer_theory.papers.peng2024 import _theory as theory


@pytest.mark.parametrize("depth", [2, 3])
def test_answers_follow_the_listed_functions(depth):
    n = 5
    tokens, answers = comp.composition_sample(0, 50, n, depth)
    assert tokens.shape == (50, 2 * depth * n + 2)
    assert tokens.max() < comp.composition_vocab(n) and np.all(tokens[:, -1] == 4 * n)
    for row, ans in zip(tokens, answers):
        table = {int(a): int(v) for a, v in row[: 2 * depth * n].reshape(-1, 2)}
        assert len(table) == depth * n  # every argument listed exactly once
        value = int(row[-2])
        for _ in range(depth):
            value = table[value]
        assert value == ans and depth * n <= ans < (depth + 1) * n


def test_peng_bound():
    n, h, d, p = 64, 1, 4, 8
    nlogn = n * math.log2(n)
    assert theory.peng_error_bound(n, h, d, p) == pytest.approx(
        (nlogn - h * (d + 1) * p) / (3 * nlogn)
    )
    assert theory.peng_error_bound(n, 8, 64, 32) == 0.0  # enough capacity: the bound is void
    with pytest.raises(ValueError, match="heads:"):
        theory.peng_error_bound(4, 0, 1, 1)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 2.5, 0])
def test_peng_bound_refuses_a_non_integer_argument_by_name(bad):
    # NaN used to end in int()'s "cannot convert float NaN to integer"; 2.5 was truncated to 2
    with pytest.raises(ValueError, match="width"):
        theory.peng_error_bound(16, 1, bad, 2)
    assert theory.peng_error_bound(16, 1, 2, 2) == pytest.approx((64 - 6) / (3 * 64))
