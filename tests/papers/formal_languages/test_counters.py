"""SHUFFLE-DYCK-k and the counter machines (papers/formal_languages/_*_counters.py),
checked against references written here (per-type depth counters, the block pattern of
a^n b^n (c^n)), on every string up to a small length, in exact arithmetic and through
core.forward_all in float64; broken constructions must be caught."""

import dataclasses
import itertools

import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory.papers.formal_languages import (
    _constructions,
    _constructions_counters,
    _tasks_counters,
    _theory_counters,
)


def depths(s, k):
    """Every prefix's per-type depth, a (len + 1, k) list (the reference counter)."""
    out, d = [[0] * k], [0] * k
    for x in s:
        d[x // 2] += 1 if x % 2 == 0 else -1
        out.append(list(d))
    return out


def shuffle_member(s, k):
    ds = depths(s, k)
    return all(min(row) >= 0 for row in ds) and not any(ds[-1])


def block_member(s, blocks):
    n, rest = divmod(len(s), blocks)
    return rest == 0 and list(s) == [b for b in range(blocks) for _ in range(n)]


def expression(s):
    """Prefix notation read right to left with a stack: an operand (0, 1) pushes, the operator
    of arity a (id 1 + a) pops a values and pushes one; one whole expression leaves exactly 1."""
    height = 0
    for x in reversed(s):
        arity = max(x - 1, 0)
        if height < arity:
            return False
        height += 1 - arity
    return height == 1


def every_string(symbols, length):
    return np.array(list(itertools.product(range(symbols), repeat=length)), np.int32)


# Exhaustive sizes of the exact checks: each string's prefix once (prefix tree), about 2,000
# positions per language, a few tenths of a second in fmpq.
EXACT = [
    ("shuffle_dyck_1", 8),
    ("shuffle_dyck_2", 4),
    ("shuffle_dyck_3", 3),
    ("anbn", 8),
    ("boolexp_3", 4),
]


def reference(language, s):
    if language.startswith("shuffle"):
        return shuffle_member(s, int(language[-1]))
    return expression(s) if language.startswith("boolexp") else block_member(s, 2)


@pytest.mark.parametrize(("language", "length"), EXACT)
def test_exact_on_every_string(language, length):
    params = _constructions_counters.counter_recognizer(_tasks_counters.machine(language))
    result = _theory_counters.exact_check(params, language, length)
    symbols = _tasks_counters.machine(language).num_symbols
    assert result["ok"], result["witness"]
    assert result["strings"] == sum(symbols**n for n in range(length + 1))
    # the membership the check compares with is the definition: recount it here
    members = sum(
        reference(language, s)
        for n in range(length + 1)
        for s in itertools.product(range(symbols), repeat=n)
    )
    assert result["members"] == members


@pytest.mark.parametrize(("k", "length"), [(1, 8), (2, 5), (3, 4)])
def test_is_member_and_machine_match_the_reference(k, length):
    m = _tasks_counters.shuffle_dyck(k)
    for n in range(length + 1):
        for s in itertools.product(range(2 * k), repeat=n):
            want = shuffle_member(s, k)
            assert _tasks_counters.is_member(f"shuffle_dyck_{k}", s) == want, s
            assert _tasks_counters.machine_accepts(m, s) == want, s
            np.testing.assert_array_equal(_tasks_counters.counter_values(m, s), depths(s, k))


def test_anbncn_and_boolexp_machines_match_their_references():
    m = _tasks_counters.anbncn()
    for n in range(8):
        for s in itertools.product(range(3), repeat=n):
            assert _tasks_counters.machine_accepts(m, s) == block_member(s, 3), s
    m = _tasks_counters.boolexp(3)
    for n in range(6):
        for s in itertools.product(range(5), repeat=n):
            assert _tasks_counters.machine_accepts(m, s) == _tasks_counters.is_member(
                "boolexp_3", s
            ), s
            assert _tasks_counters.is_member("boolexp_3", s) == expression(s), s
    # the counter starts at 1 (BOS writes it): the value row of BOS holds it
    w_v = np.asarray(_constructions_counters.counter_recognizer(m).layers[0].attn.w_v[0])
    assert w_v[6, 5] == 1.0 and w_v[7, 5] == 1.0  # r_0 and b, from BOS (id 5)


def test_float64_outputs_on_every_string_of_length_6_shuffle_dyck_2():
    """core.forward_all: every output is +1/(2n) where the next symbol is allowed by the depths
    (an open always, a close of type t iff depth_t >= 1, the end iff every depth is 0), at most
    -1/(2n) otherwise, to 1e-12 (float64 averages of <= 7 terms); acceptance = membership."""
    k, L = 2, 6
    strings = every_string(2 * k, L)
    params = _constructions_counters.counter_recognizer(_tasks_counters.shuffle_dyck(k))
    margins = _constructions_counters.next_symbol_margins(params, strings)
    assert margins.shape == (len(strings), L + 1, 2 * k + 1)
    ds = np.array([depths(s, k) for s in strings])  # (B, L + 1, k)
    valid = np.minimum.accumulate(ds.min(axis=2), axis=1) >= 0  # no violation yet: outputs claimed
    allowed = np.ones(margins.shape, bool)
    allowed[..., 1 : 2 * k : 2] = ds >= 1
    allowed[..., -1] = ~ds.any(axis=2)
    half = (1 / (2 * np.arange(1, L + 2)))[None, :, None]
    err = np.where(allowed, np.abs(margins - half), np.maximum(margins + half, 0.0))
    assert err[valid].max() <= 1e-12
    want = np.array([shuffle_member(s, k) for s in strings])
    np.testing.assert_array_equal(_constructions_counters.accepts(margins, strings), want)
    # Catalan numbers: a type-0 Dyck word of 2a brackets and a type-1 word of 6 - 2a,
    # interleaved in C(6, 2a) ways: 5 + 1 * 2 * 15 + 2 * 1 * 15 + 5 = 70.
    assert want.sum() == 70


def test_samples_are_hard_and_labelled_by_the_definition():
    for k in (1, 2, 3):
        strings, labels, kinds = _tasks_counters.counter_sample(f"shuffle_dyck_{k}", 24, 30, seed=3)
        again = _tasks_counters.counter_sample(f"shuffle_dyck_{k}", 24, 30, seed=3)[0]
        np.testing.assert_array_equal(strings, again)
        hidden = 0
        for s, label, kind in zip(strings, labels, kinds):
            ds = np.array(depths(s, k))
            assert label == shuffle_member(s, k) == (kind == "member")
            if kind == "dip":
                assert not ds[-1].any() and ds.min() < 0  # right final counts, a bad prefix
                hidden += ds.sum(axis=1).min() >= 0  # the total depth never negative
            if kind == "final":
                assert ds[:-1].min() >= 0 and ds[-1].any()  # only the end is wrong
        # k = 1: the total is the one type's depth, so no dip can hide
        assert hidden == 0 if k == 1 else hidden >= 5
    strings, labels, kinds = _tasks_counters.counter_sample("boolexp_3", 21, 10, seed=0)
    assert [expression(s) for s in strings] == list(labels) == [k == "member" for k in kinds]
    assert kinds == ["member", "near"] * 5
    strings, labels, kinds = _tasks_counters.counter_sample("anbn", 20, 10, seed=0)
    assert [block_member(s, 2) for s in strings] == list(labels) == [True] + [False] * 9
    assert kinds == ["member"] + ["near"] * 9


def _perturbed(params, which):
    layer = params.layers[0]
    if which == "value":  # the BOS value b = 1/(i+1) written as 0.9/(i+1)
        b, bos = -(params.config.num_classes + 1), params.config.vocab_size - 1
        w_v = layer.attn.w_v.at[0, b, bos].set(0.9)
        layer = dataclasses.replace(layer, attn=dataclasses.replace(layer.attn, w_v=w_v))
    else:  # one guard's violation unit dropped from the MLP
        w2 = layer.mlp.w2.at[:, 2].set(0.0)
        layer = dataclasses.replace(layer, mlp=dataclasses.replace(layer.mlp, w2=w2))
    return dataclasses.replace(params, layers=(layer,))


@pytest.mark.parametrize("which", ["value", "mlp"])
def test_a_broken_construction_is_caught(which):
    params = _perturbed(
        _constructions_counters.counter_recognizer(_tasks_counters.shuffle_dyck(2)), which
    )
    result = _theory_counters.exact_check(params, "shuffle_dyck_2", 4)
    assert not result["ok"] and result["witness"] is not None


def test_a_machine_without_the_close_guard_is_caught():
    m = _tasks_counters.shuffle_dyck(1)
    loose = dataclasses.replace(m, guards=((), ()))  # ")(" would be accepted
    result = _theory_counters.exact_check(
        _constructions_counters.counter_recognizer(loose), "shuffle_dyck_1", 2
    )
    assert not result["ok"] and result["witness"]["output"] == 1  # ")" predicted where not


def test_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError, match="k"):
        _tasks_counters.shuffle_dyck(0)
    with pytest.raises(ValueError, match="language"):
        _tasks_counters.machine("dyck7")
    with pytest.raises(ValueError, match="m"):
        _constructions_counters.counter_recognizer("shuffle_dyck_2")
    with pytest.raises(ValueError, match="confidence"):
        _constructions_counters.counter_recognizer(_tasks_counters.anbn(), confidence=0.0)
    with pytest.raises(ValueError, match="length"):
        _tasks_counters.counter_sample("shuffle_dyck_2", 7, 3)
    with pytest.raises(ValueError, match="guards"):
        _tasks_counters.CounterMachine("x", ("a",), ((1,),), (((3, "zero"),),), ())
    with pytest.raises(ValueError, match="initial"):
        _tasks_counters.CounterMachine("x", ("a",), ((1,),), ((),), (), initial=(1, 2))
    with pytest.raises(ValueError, match="string"):
        _tasks_counters.is_member("anbn", [0, 2])
    with pytest.raises(ValueError, match="margins_BxNxC"):
        _constructions_counters.accepts(np.zeros((1, 3, 3)), np.zeros((1, 3), np.int32))
    with pytest.raises(ValueError, match="params"):
        _theory_counters.ExactCounterModel(_constructions.dyck1())


def test_the_claim_check_fails_when_the_construction_breaks(monkeypatch):
    from transformer_theory.papers.formal_languages import _checks_counters

    build = _constructions_counters.counter_recognizer
    monkeypatch.setattr(
        _constructions_counters,
        "counter_recognizer",
        lambda m, **kw: _perturbed(build(m, **kw), "mlp"),
    )
    checked = _checks_counters.counter_languages(("shuffle_dyck_1",), (4,), (), 1)
    assert checked.values["failures"] == 1 and checked.values["witness"]["string"] == []


def test_the_exact_evaluator_is_core_forward_all_on_random_weights():
    """Random dyadic weights (biases too) in the construction's shape: the fmpq forward pass
    equals core.forward_all's float64 one to 1e-12 (sums of ~30 terms of size <= 8)."""
    params = _constructions_counters.counter_recognizer(_tasks_counters.shuffle_dyck(2))
    layer = params.layers[0]
    rng = np.random.default_rng(0)

    def rand(x):
        return jnp.asarray(rng.integers(-8, 9, np.shape(x)) / 8.0)

    mlp = dataclasses.replace(
        layer.mlp, w1=rand(layer.mlp.w1), b1=rand(layer.mlp.b1), w2=rand(layer.mlp.w2)
    )
    attn = dataclasses.replace(layer.attn, w_v=rand(layer.attn.w_v))
    layer = dataclasses.replace(layer, attn=attn, mlp=dataclasses.replace(mlp, b2=rand(mlp.b2)))
    params = dataclasses.replace(params, layers=(layer,), w_o=rand(params.w_o))
    strings = rng.integers(0, 4, (3, 7)).astype(np.int32)
    floats = _constructions_counters.next_symbol_margins(params, strings)
    model = _theory_counters.ExactCounterModel(params)
    for s, f in zip(strings, floats):
        exact = np.array([[float(x) for x in row] for row in model.margins([4, *s])])
        np.testing.assert_allclose(exact, f, rtol=0, atol=1e-12)
