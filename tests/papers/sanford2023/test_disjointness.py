"""The set-disjointness reduction behind Sanford et al. 2023's qSA lower bound, checked against
DISJ and the slides' encoding written here from the text (1-based, exact rationals), on every
pair ``(a, b)`` for small ``q``; the unit's quantized query as an ``m p``-bit message."""

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from transformer_theory.papers.sanford2023 import _constructions_qsa as qsa
from transformer_theory.papers.sanford2023 import _tasks as ts
from transformer_theory.papers.sanford2023 import _theory_disjointness as dj
from transformer_theory.papers.sanford2023 import _theory_message as message


def _pairs(q):
    inputs = list(itertools.product((0, 1), repeat=q))
    return [(a, b) for a in inputs for b in inputs]


def _ref_disj(a, b):
    return int(any(x == 1 and y == 1 for x, y in zip(a, b, strict=True)))


def _ref_row(a, b):
    """The slides, 1-based: y = {2i - 1 if a_i = 1 else 2i}; z_j = +e_1 if j is odd and
    b_{(j+1)/2} = 1, else -e_1; qSA(X)_{2q+1} = the mean of z over y (first coordinate)."""
    q = len(a)
    y = [2 * i - 1 if a[i - 1] == 1 else 2 * i for i in range(1, q + 1)]

    def z(j):
        return 1 if j % 2 == 1 and j <= 2 * q and b[(j + 1) // 2 - 1] == 1 else -1

    return y, Fraction(sum(z(j) for j in y), q)


@pytest.mark.parametrize("q", [1, 2, 3, 4, 5])
def test_the_encoding_and_qsa_row_match_the_slides_on_every_pair(q):
    row = ts.query_position(q)
    for a, b in _pairs(q):
        y, first = _ref_row(a, b)
        z, members = ts.encode(np.array(a), np.array(b), dim=2)
        assert z.shape == (2 * q + 1, 2) and members.shape == (2 * q + 1, 2 * q + 1)
        assert sorted(np.flatnonzero(members[row]) + 1) == sorted(y)
        assert np.all(members.sum(-1) == q) and not members[row, row]
        assert dj.qsa_row_exact(z, members, row) == [first, Fraction(0)]
        assert ts.disj(np.array(a), np.array(b)) == _ref_disj(a, b)
        # the slides' equivalence, and the gap: an intersecting pair lies >= 2/q from -e_1
        assert (first == -1) == (_ref_disj(a, b) == 0)
        assert first == -1 or first + 1 >= Fraction(2, q)
        assert dj.decide([first, Fraction(0)], q) == _ref_disj(a, b)
    rec = dj.reduction_record(q, dim=2)
    assert rec["pairs"] == 4**q and rec["equivalence_holds"] and rec["decided"]
    assert rec["gap_is_2_over_q"] and rec["gap"] == str(Fraction(2, q))


def test_a_broken_encoding_is_caught(monkeypatch):
    # the garbled "2i 1" read as 2i + 1: a witness pair breaks the equivalence
    q = 3
    bad = [
        (a, b)
        for a, b in _pairs(q)
        if (
            dj.qsa_row_exact(*ts.encode(np.array(a), np.array(b), literal_plus=True), 2 * q)[0]
            == -1
        )
        != (_ref_disj(a, b) == 0)
    ]
    assert bad, "the 2i + 1 reading should fail somewhere"
    # Alice's odd/even swapped: reduction_record must see it (encode, in _tasks, reads it there)
    monkeypatch.setattr(
        ts,
        "query_subset",
        lambda a, n=None, **k: np.isin(np.arange(n), [2 * i + int(a[i]) for i in range(len(a))]),
    )
    assert not dj.reduction_record(q)["equivalence_holds"]


def test_decide_tolerates_any_error_below_one_over_2q():
    # adversarial: push every exact row by (1 - 1e-9)/(2q) toward the threshold 1/q
    for q in (1, 2, 3, 4):
        push = (1 - 1e-9) / (2 * q)
        for a, b in _pairs(q):
            _, first = _ref_row(a, b)
            d = _ref_disj(a, b)
            toward = push if d == 0 else -push
            assert dj.decide(np.array([float(first) + toward, 0.0]), q) == d
            side = np.array([float(first), push])  # off-axis error of the same size
            assert dj.decide(side, q) == d
    with pytest.raises(ValueError, match="q"):
        dj.decide([0.0], 0)


def test_message_packing_is_exactly_m_p_bits():
    for bits in (2, 3):
        levels = 2 ** (bits - 1) - 1
        for codes in itertools.product(range(-levels, levels + 1), repeat=3):
            msg = message.pack_message(np.array(codes), bits)
            assert len(msg) == 3 * bits and set(msg) <= {"0", "1"}
            assert message.unpack_message(msg, bits).tolist() == list(codes)
    with pytest.raises(ValueError, match="codes"):
        message.pack_message(np.array([2]), 2)
    with pytest.raises(ValueError, match="message"):
        message.unpack_message("101", 2)


def test_the_unit_and_its_quantized_query_decide_disj_on_every_pair():
    q, m = 2, qsa.UNIT_ROWS[2]
    c, worst = qsa.reduction_unit(q, m)
    assert worst["valid_w"] and worst["max_error"] <= 1 / (2 * q)
    pairs = _pairs(q)
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    out, stream = dj.construction_rows(c, a, b)
    # independent float64 reference: softmax(Q(x_{2q+1}) . u_j) averaged z_j, from the stream
    row = 2 * q
    query = stream[:, row, c.dim : c.dim + m]
    scores = query @ c.u_ExK
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    ref = np.einsum("bk,bkz->bz", w, stream[:, :, : c.dim])
    np.testing.assert_allclose(out, ref, atol=1e-12)  # 9-term sums of float64: ~1e-15
    truth = [_ref_disj(x, y) for x, y in pairs]
    assert [dj.decide(r, q) for r in out] == truth
    # p = 3: 18 bits, every a its own message, every pair decided
    rec = dj.protocol_record(q, m, 3)
    assert rec["message_bits"] == m * 3 and rec["distinct_messages"] == 4 and rec["decides_all"]
    assert rec["grid_bits"] == pytest.approx(m * math.log2(7))
    # p = 2: messages collide; the witness b separates the colliding a, a'
    rec = dj.protocol_record(q, m, 2)
    assert not rec["decides_all"] and rec["collision"] is not None
    col = rec["collision"]
    assert _ref_disj(col["a"], col["b"]) == 1 and _ref_disj(col["a_prime"], col["b"]) == 0
    wp = rec["wrong_pair"]
    out_wp, _ = dj.construction_rows(
        c, np.array([wp["a"]]), np.array([wp["b"]]), bits=2, scale=dj.message_scale(c)
    )
    assert dj.decide(out_wp[0], q) != _ref_disj(wp["a"], wp["b"])


def test_match3_bound_row_against_hand_arithmetic():
    row = dj.match3_bound_row(8, 1, 32, 2)
    assert row["c_needed"] == pytest.approx(32 * 2 * math.log(math.log(8)) / 8)
    assert round(row["c_needed"], 2) == 5.86  # README's number at N = 8, p = 32, H = 2
    assert dj.match3_bound_row(2, 1, 32, 2)["c_needed"] is None  # log log 2 < 0
    assert dj.match3_bound_row(16, 4, 32, 2)["c_needed"] == pytest.approx(
        4 * 32 * 2 * math.log(math.log(16)) / 16
    )
    with pytest.raises(ValueError, match="heads"):
        dj.match3_bound_row(8, 1, 32, 0)


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="b"):
        ts.disj(np.array([1, 0]), np.array([1]))
    with pytest.raises(ValueError, match="a"):
        ts.encode(np.array([2]), np.array([1]))
    with pytest.raises(ValueError, match="seq_len"):
        ts.encode(np.array([1, 0]), np.array([1, 0]), seq_len=4)
    with pytest.raises(ValueError, match="dim"):
        ts.encode(np.array([1]), np.array([1]), dim=0)


def test_the_disj_command_writes_the_tables(tmp_path, capsys):
    from transformer_theory.cli import main

    assert main(["sanford", "--task", "disj", "--q", "1", "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "disj.json").read_text())
    assert result["reduction"][0]["equivalence_holds"]
    assert any(r["p"] is not None and r["decides_all"] for r in result["protocol"])
    assert {r["source"].split()[0] for r in result["match3_bound"]} >= {"match_width"}
    assert "c_needed" in capsys.readouterr().out
    assert main(["sanford", "--task", "disj", "--q", "7", "--out", str(tmp_path)]) == 2
