"""The sizes of the n-gram constructions (space.py) against counts made here from the built
arrays' shapes and values, and the bits a weight needs against exact rationals (``Fraction``).

Everything compared is an integer: equality, no tolerance.
"""

import itertools
from fractions import Fraction

import jax
import numpy as np
import pytest

from transformer_theory.papers.svete_cotterell2024 import _constructions as cn
from transformer_theory.papers.svete_cotterell2024 import _theory_space as space
from transformer_theory.papers.svete_cotterell2024._tasks import NGramLM


def _histories(S, n):
    """BOS-padded histories, enumerated: ``w`` slots, a BOS prefix then symbols."""
    w = n - 1
    return [
        h
        for h in itertools.product(range(S + 1), repeat=w)
        if list(h) == sorted(h, key=lambda x: x != S)
    ]


def _odd_bits(x):
    num = abs(Fraction(float(x)).numerator)
    return (num // (num & -num)).bit_length()


@pytest.mark.parametrize("n,S", [(2, 1), (2, 3), (3, 2), (4, 2), (3, 3)])
def test_counts_match_shapes_and_formula(n, S):
    lm = NGramLM.random(1, S, n)
    A = len(_histories(S, n))
    for c in space.SPACE_CONSTRUCTIONS:
        model = cn.build_paper33(lm) if c == "3.3" else cn.build(lm, c, max_len=4)
        leaves = [np.asarray(x, np.float64) for x in jax.tree_util.tree_leaves(model)]
        total = sum(x.size for x in leaves)
        if c == "3.3":
            table = np.asarray(model.log_probs_CxA)
            layers, heads, width = 1, 1, max(model.digit_w.shape[1], model.and_w.shape[0])
        else:
            table = np.asarray(model.w_o)[:, -A:]
            layers = len(model.layers)
            heads = sum(np.shape(layer.attn.w_qk)[0] for layer in model.layers)
            width = np.shape(model.w_o)[1]
        nonzero = sum(np.count_nonzero(x) for x in leaves) - np.count_nonzero(table)
        got = space.count(model)
        want = {
            "width": width,
            "layers": layers,
            "heads": heads,
            "params": total,
            "nonzero_structural": nonzero,
            "table": (S + 1) * A,
        }
        assert {k: got[k] for k in want} == want, c
        assert {k: space.formula(c, n, S)[k] for k in want} == want, c
        printed_layers, per_layer = space.printed_shape(c, n)
        assert layers <= printed_layers and heads <= printed_layers * per_layer, c
    # 3.1 prints n - 1 heads in one layer and builds exactly that
    assert space.formula("3.1", n, S)["heads"] == n - 1


def test_bits_against_fractions():
    values = [1.0, 3.0, -2.0, 0.1, 1 - 10.0**-4, 1000.0, 2.0**-30 * 5]
    for v in values:
        assert space.significand_bits_needed([v]) == _odd_bits(v)
    assert space.significand_bits_needed(values) == max(_odd_bits(v) for v in values)
    assert space.significand_bits_needed([0.0, -np.inf]) == 0
    # float32: 8 exponent bits cover normal magnitudes [2^-126, 2^128)
    assert space.exponent_bits_needed([2.0**-126, 2.0**127]) == 8
    assert space.exponent_bits_needed([2.0**128]) == 9
    assert space.exponent_bits_needed([2.0**-127]) == 9
    assert space.exponent_bits_needed([1.0, 1.5]) == 2


def test_table_records_and_errors():
    rows = space.space_table([2, 3], [2], constructions=("3.1", "3.3"))
    assert [r["matches"] for r in rows] == [True] * 4
    assert all(r["within_printed"] for r in rows)
    # the paper's 3.3 stores 1 - 10^-n (not dyadic): the full float64 significand
    want = [max(_odd_bits(1 - 10.0**-n), 1) for n in (2, 3)]
    assert [r["significand_bits"] for r in rows if r["construction"] == "3.3"] == want
    assert min(want) >= 52
    with pytest.raises(ValueError, match="orders"):
        space.space_table([1], [2])
    with pytest.raises(ValueError, match="construction"):
        space.formula("3.4", 3, 2)


def test_space_command(tmp_path, capsys):
    from transformer_theory.cli import main
    from transformer_theory.jsonio import read_json

    out = tmp_path / "space"
    assert main(["ngram", "--space", "--orders", "2,3", "--alphabets", "2", "--out", str(out)]) == 0
    data = read_json(str(out / "ngram_space.json"))
    assert len(data["records"]) == 10 and data["all_match"]
    assert (out / "ngram_space.png").exists()
    assert "3.3-slots" in capsys.readouterr().out
    assert main(["ngram", "--orders", "2", "--out", str(tmp_path / "x")]) == 2
