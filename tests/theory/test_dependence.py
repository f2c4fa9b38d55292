"""Exact dependence (Chen & Zou 2024, Definitions 2-3): finder, checker and generators.

References are independent of the code under test: per-position multisets are built with
``collections.Counter`` straight from Definition 2, and ranks come from a Fraction-based
Gaussian elimination written here.
"""

import itertools
from collections import Counter
from fractions import Fraction

import jax
import numpy as np
import pytest

from transformer_theory import ModelConfig, init_params
from transformer_theory.theory import dependence


def multiset_dependent(tokens, lam):
    """Definition 3 literally: equal per-position multisets of the two sides."""
    tokens = np.asarray(tokens)
    if not any(lam) or len(set(tokens[:, -1].tolist())) != 1:
        return False
    for j in range(tokens.shape[1]):
        pos, neg = Counter(), Counter()
        for i, l in enumerate(lam):
            if l > 0:
                pos[int(tokens[i, j])] += int(l)
            elif l < 0:
                neg[int(tokens[i, j])] += int(-l)
        if pos != neg:
            return False
    return True


def exact_rank(rows):
    m = [[Fraction(int(x)) for x in r] for r in rows]
    rank, ncols = 0, len(m[0]) if m else 0
    for c in range(ncols):
        piv = next((r for r in range(rank, len(m)) if m[r][c] != 0), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        for r in range(len(m)):
            if r != rank and m[r][c] != 0:
                f = m[r][c] / m[rank][c]
                m[r] = [a - f * b for a, b in zip(m[r], m[rank])]
        rank += 1
    return rank


def onehot_rows(tokens, V):
    tokens = np.asarray(tokens)
    return [
        [1 if tokens[i, j] == v else 0 for j in range(tokens.shape[1]) for v in range(V)]
        for i in range(len(tokens))
    ]


def check_basis(tokens, V):
    basis = dependence.dependence_basis(tokens, V)
    B = len(tokens)
    assert basis.shape[1] == B
    for row in basis:
        assert all(isinstance(x, int) for x in row)
        assert dependence.is_dependence(tokens, row, V)
        assert multiset_dependent(tokens, list(row))
    # dimension = B - rank(C), with the rank computed independently in exact arithmetic
    assert basis.shape[0] == B - exact_rank(onehot_rows(tokens, V))
    if len(basis):
        assert exact_rank([list(r) for r in basis]) == len(basis)
    return basis


def test_paper_example_basis_is_one_one_minus_one_minus_one():
    ex = dependence.paper_example()
    assert ex.tokens_BxN.tolist() == [[0, 1, 2], [1, 0, 2], [0, 0, 2], [1, 1, 2]]
    assert list(ex.lam_B) == [1, 1, -1, -1]
    basis = check_basis(ex.tokens_BxN, 3)
    assert [list(r) for r in basis] == [[1, 1, -1, -1]]


def test_position_counts_is_flattened_onehot():
    toks = np.array([[0, 2, 1], [1, 1, 1]])
    assert dependence.position_counts(toks, 3).tolist() == onehot_rows(toks, 3)


def test_icqa_toy_set_is_the_papers():
    (s,) = dependence.icqa_example_sets(2, 2, 2, num_sets=1)
    a, b, x, y, r = 0, 1, 2, 3, 4
    assert s.tokens_BxN.tolist() == [
        [a, r, x, b, r, y, a, r],
        [a, r, y, b, r, x, b, r],
        [a, r, y, b, r, x, a, r],
        [a, r, x, b, r, y, b, r],
    ]
    assert s.labels_B.tolist() == [0, 0, 1, 1]  # targets x, x, y, y
    assert [list(r) for r in check_basis(s.tokens_BxN, 5)] == [[1, 1, -1, -1]]


def test_icqa_sets_all_dependent():
    for s in dependence.icqa_example_sets(3, 3, 3, num_sets=5, seed=1):
        assert multiset_dependent(s.tokens_BxN, list(s.lam_B))


def test_template_pairs_lemma6_coefficients():
    sets = dependence.template_pair_sets(3, [(0, 0), (0, 1)])
    (s,) = sets
    # n^(aa) = 3, n^(ab) = 6: lambda = 6 on aa-sequences, -3 on ab-sequences (the paper's example)
    assert list(s.lam_B) == [6] * 3 + [-3] * 6
    assert multiset_dependent(s.tokens_BxN, list(s.lam_B))
    assert sorted(map(tuple, s.tokens_BxN[:3, :2].tolist())) == [(0, 0), (1, 1), (2, 2)]
    check_basis(s.tokens_BxN, 4)


def test_random_sets_and_their_bases():
    sets = dependence.random_dependent_sets(7, num_sets=6, num_seqs=3, seq_len=5, vocab_size=4)
    for s in sets:
        assert multiset_dependent(s.tokens_BxN, list(s.lam_B))
        basis = check_basis(s.tokens_BxN, 4)
        assert len(basis) >= 1
        # the generator's lambda lies in the lattice spanned by the basis (rational solve, integral
        # result)
        coef, *_ = np.linalg.lstsq(
            np.array(basis, float).T, np.array(list(s.lam_B), float), rcond=None
        )
        assert np.allclose(coef, np.round(coef), atol=1e-9)


def test_basis_spans_every_small_integer_dependence():
    # exhaustive over lambda in {-2..2}^B: every dependence is an INTEGER combination of the basis
    toks = np.array([[0, 1, 2], [1, 0, 2], [0, 0, 2], [1, 1, 2], [2, 0, 2], [0, 2, 2]])
    basis = check_basis(toks, 3)
    Bm = np.array(basis, float)
    C = np.array(onehot_rows(toks, 3))
    lams = np.array(list(itertools.product(range(-2, 3), repeat=len(toks))))
    kernel = lams[np.all(lams @ C == 0, axis=1)]
    assert len(kernel) > 1
    coef, *_ = np.linalg.lstsq(Bm.T, kernel.T.astype(float), rcond=None)
    assert np.allclose(Bm.T @ coef, kernel.T)
    assert np.allclose(coef, np.round(coef), atol=1e-9)


def test_whole_toy_language_basis():
    toks = np.array([[a, b, 2] for a in range(3) for b in range(3)])
    basis = check_basis(toks, 3)
    assert len(basis) == 9 - 5


def test_wrong_lambda_rejected():
    ex = dependence.paper_example()
    assert not dependence.is_dependence(ex.tokens_BxN, [1, -1, 1, -1], 3)
    assert not dependence.is_dependence(ex.tokens_BxN, [0, 0, 0, 0], 3)
    assert not dependence.is_dependence(ex.tokens_BxN, [2, 2, -2, -1], 3)
    toks = ex.tokens_BxN.copy()
    toks[0, -1] = 1
    assert not dependence.is_dependence(toks, [1, 1, -1, -1], 3)


def test_errors_name_the_argument():
    ex = dependence.paper_example()
    toks = ex.tokens_BxN.copy()
    toks[0, -1] = 1
    with pytest.raises(ValueError, match="tokens_BxN"):
        dependence.dependence_basis(toks, 3)
    with pytest.raises(ValueError, match="tokens_BxN"):
        dependence.position_counts(ex.tokens_BxN, 2)
    with pytest.raises(ValueError, match="lam_B"):
        dependence.is_dependence(ex.tokens_BxN, [1, 1, -1], 3)
    with pytest.raises(ValueError, match="lam_B"):
        dependence.is_dependence(ex.tokens_BxN, [1.5, 1, -1, -1.5], 3)
    with pytest.raises(ValueError, match="tokens_BxN"):
        dependence.position_counts(np.zeros(3, int), 3)


def test_group_by_last_token():
    toks = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
    g = dependence.group_by_last_token(toks)
    assert {k: v.tolist() for k, v in g.items()} == {0: [1, 2], 1: [0, 3]}


def _one_layer_relu_outputs(tokens_BxN, vocab_size):
    """float64 logits of one random one-layer ReLU model (2 heads), written in NumPy from the
    library's parameters: o = W_O (x_{n-1} + sum_h W_V^h sum_j relu(x_j^T W_QK^h x_{n-1}) x_j)."""
    with jax.enable_x64(True):
        cfg = ModelConfig(
            vocab_size=vocab_size,
            seq_len=tokens_BxN.shape[1],
            width=vocab_size + tokens_BxN.shape[1] + 2,
            num_classes=3,
            heads=(2,),
        )
        p = jax.tree.map(lambda x: np.asarray(x, np.float64), init_params(jax.random.key(5), cfg))
    out = []
    for row in tokens_BxN:
        n = len(row)
        x = np.zeros((n, cfg.width))
        x[np.arange(n), row] = 1.0
        x[np.arange(n), vocab_size + np.arange(n)] = 1.0
        layer = p.layers[0].attn
        z = x[-1].copy()
        for h in range(2):
            w = np.maximum(x @ (layer.w_qk[h] @ x[-1]), 0.0)
            z += layer.w_v[h] @ (w @ x)
        out.append(p.w_o @ z)
    return np.array(out)


def test_lemma7_as_printed_fails_and_with_lemma6_coefficients_holds():
    """Chen & Zou 2024, Lemma 7 prints ``lambda_1 sum_{i < n^(t')} o^(i) = lambda_2 sum_{i < n^(t')}
    o'^(i)``: both sums run to ``n^(t')``. The first must run over ``t``'s own ``n^(t)`` sequences
    (with Lemma 6's ``lambda_1 = n^(t')``, ``lambda_2 = n^(t)``). Templates ``abc`` (6 sequences
    over 3 symbols) and ``aaa`` (3) on a random one-layer ReLU model: the corrected relation holds
    to float64 rounding, the printed one (the first sum cut at 3 terms) does not."""
    (s,) = dependence.template_pair_sets(3, [(0, 1, 2), (0, 0, 0)])
    lam = np.array([int(x) for x in s.lam_B])
    t_rows, u_rows = np.flatnonzero(lam > 0), np.flatnonzero(lam < 0)
    assert (len(t_rows), len(u_rows)) == (6, 3) and set(lam[t_rows]) == {3}
    o = _one_layer_relu_outputs(s.tokens_BxN, 4)
    lam1, lam2 = len(u_rows), len(t_rows)  # Lemma 6: n^(t') on t, n^(t) on t'
    corrected = lam1 * o[t_rows].sum(0) - lam2 * o[u_rows].sum(0)
    printed = lam1 * o[t_rows[: len(u_rows)]].sum(0) - lam2 * o[u_rows].sum(0)
    scale = np.abs(o).sum()
    assert np.abs(corrected).max() < 1e-12 * scale  # float64 sums of O(10) terms: ~1e-15
    assert np.abs(printed).max() > 1e-3 * scale
