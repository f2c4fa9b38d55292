"""Dyck-(k, D) and its recognizer after Yao et al. 2021 (papers/formal_languages/_*_dyck_k.py),
checked against a reference written here: repeated deletion of adjacent matched pairs (no stack)
with the running depth, on every short string; the sampler's hard non-members by their kind; the
recognizer on every string of length <= 6 (k = 2) and <= 4 (k = 3) with its derived margins;
perturbed recognizers caught."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory.papers.formal_languages import (
    _constructions_dyck_k,
    _study_dyck_k,
    _tasks_dyck_k,
)

jax.config.update("jax_enable_x64", True)


def reference(string, k, depth):
    """Dyck-(k, depth) without a stack: the running depth (never below 0 nor above ``depth``,
    0 at the end) and the string reducing to nothing by deleting adjacent pairs ``t, k + t``."""
    level = 0
    for x in string:
        level += 1 if x < k else -1
        if not 0 <= level <= depth:
            return False
    if level:
        return False
    s = list(string)
    changed = True
    while changed:
        changed = False
        for i in range(len(s) - 1):
            if s[i] < k and s[i + 1] == s[i] + k:
                del s[i : i + 2]
                changed = True
                break
    return not s


def strings_up_to(length, k):
    return [w for n in range(length + 1) for w in itertools.product(range(2 * k), repeat=n)]


@pytest.mark.parametrize("k, length", [(1, 8), (2, 6), (3, 4)])
def test_membership_matches_the_reference_on_every_short_string(k, length):
    words = strings_up_to(length, k)
    for depth in (1, 2, 3):
        want = [reference(w, k, depth) for w in words]
        got = [_tasks_dyck_k.is_dyck_k_member(w, k, depth) for w in words]
        assert got == want
        assert sum(want) > 1  # members exist: the comparison is not vacuous
    # prefix_members: column i of every row of the longest length is the prefix's membership.
    full = _tasks_dyck_k.all_strings(length, k)
    assert full.shape == ((2 * k) ** length, length)
    table = _tasks_dyck_k.prefix_members(full, k, 2)
    for row, cols in zip(full[:: max(1, len(full) // 200)], table[:: max(1, len(full) // 200)]):
        assert list(cols) == [reference(row[:i], k, 2) for i in range(length + 1)]


def test_sampler_members_and_hard_non_members():
    k, depth, length = 3, 2, 24
    strings, labels, kinds = _tasks_dyck_k.dyck_k_sample(k, depth, length, 60, seed=3)
    again = _tasks_dyck_k.dyck_k_sample(k, depth, length, 60, seed=3)
    assert np.array_equal(strings, again[0]) and kinds == again[2]
    assert [reference(s, k, depth) for s in strings] == list(labels)
    assert labels[:30].all() and not labels[30:].any()
    assert set(kinds[30:]) == {"swap", "overflow", "dip"}
    for s, kind in zip(strings[30:], kinds[30:]):
        opens = np.bincount(s[s < k], minlength=k)
        closes = np.bincount(s[s >= k] - k, minlength=k)
        assert np.array_equal(opens, closes)  # right counts per type: a hard non-member
        heights = np.cumsum(np.where(s < k, 1, -1))
        if kind == "swap":  # Dyck-1 shape and depth right, the matching wrong
            assert heights.min() >= 0 and heights.max() <= depth
        elif kind == "overflow":  # well matched, one level too deep
            assert heights.max() == depth + 1 and reference(s, k, depth + 1)
        else:
            assert heights.min() < 0
    # Short members: the swap needs two pairs; "( ]"-like strings at length 2.
    s, y, _ = _tasks_dyck_k.dyck_k_sample(2, 1, 2, 4, seed=0)
    assert [reference(w, 2, 1) for w in s] == list(y) and not y[2:].any()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="length"):
        _tasks_dyck_k.dyck_k_sample(2, 2, 7, 4)
    with pytest.raises(ValueError, match="k"):
        _constructions_dyck_k.dyck_k_recognizer(0, 2)
    with pytest.raises(ValueError, match="depth"):
        _constructions_dyck_k.dyck_k_recognizer(2, 0)
    with pytest.raises(ValueError, match="attention"):
        _constructions_dyck_k.dyck_k_recognizer(2, 2, "relu")
    with pytest.raises(ValueError, match="string"):
        _tasks_dyck_k.is_dyck_k_member([0, 5], 2, 2)
    with pytest.raises(ValueError, match="length"):
        _tasks_dyck_k.all_strings(12, 2)  # 4^12 strings, more than the 2^20 limit


def _perturbed(params, layer, field, fn):
    layers = list(params.layers)
    lay = layers[layer]
    if field == "w_qk":
        lay = lay.replace(attn=lay.attn.replace(w_qk=fn(lay.attn.w_qk)))
    else:
        lay = lay.replace(mlp=lay.mlp.replace(w2=fn(lay.mlp.w2)))
    layers[layer] = lay
    return params.replace(layers=tuple(layers))


def _check_derived(margins, truth, length):
    """Members 1/(4n), non-members at most -3/(4n) (n = L + 1), within 16 n u of float64 times
    8 (the module's tolerance: averages of at most n terms of size 1, a few of them added)."""
    n = np.broadcast_to(np.arange(1, length + 2)[None, :], truth.shape)
    tol = 16 * (length + 1) * 2.0**-53 * 8
    assert truth.sum() > 10 and (~truth).sum() > 10  # both classes: not vacuous
    np.testing.assert_allclose(margins[truth], 1 / (4 * n[truth]), rtol=0, atol=tol)
    assert (margins[~truth] <= -3 / (4 * n[~truth]) + tol).all()
    return tol


def test_recognizer_k2_every_string_leftmost_prefixes_and_perturbations(monkeypatch):
    """k = 2, D = 2, every string of length <= 6 (the prefixes of every string of length 6):
    the derived margins; leftmost-hard layers 2.. give the same; column i of a longer input is
    the decision on the prefix alone; and the same check fails on a recognizer whose tie-break
    prefers the FARTHEST bracket ("( ) [ ]": the "]" is matched with "(") or that forgets the
    overflow flag."""
    k, depth, length = 2, 2, 6
    params = _constructions_dyck_k.dyck_k_recognizer(k, depth)
    strings = _tasks_dyck_k.all_strings(length, k)
    truth = np.array([[reference(w[:i], k, depth) for i in range(length + 1)] for w in strings])
    margins = _constructions_dyck_k.decision_margins(params, strings, prefixes=True)
    tol = _check_derived(margins, truth, length)
    leftmost = _constructions_dyck_k.decision_margins(params, strings, prefixes=True, leftmost=True)
    np.testing.assert_allclose(leftmost, margins, rtol=0, atol=tol)
    # Direct evaluation of length-4 strings, "( ) [ ]" among them (row 0*64 + 2*16 + 1*4 + 3).
    short = _tasks_dyck_k.all_strings(4, k)
    direct = _constructions_dyck_k.decision_margins(params, short)
    np.testing.assert_allclose(direct, margins[::16, 4], rtol=0, atol=tol)
    witness = 2 * 16 + 1 * 4 + 3
    assert short[witness].tolist() == [0, 2, 1, 3] and direct[witness] > 0

    lay = _constructions_dyck_k.Layout(k, depth)
    far = _perturbed(params, 1, "w_qk", lambda w: w.at[0, lay.p, : lay.vocab_size].multiply(-1.0))
    no_overflow = _perturbed(params, 0, "mlp", lambda w: w.at[lay.e, w.shape[1] - 1].set(0.0))
    for bad in (far, no_overflow):
        wrong = (_constructions_dyck_k.decision_margins(bad, strings, prefixes=True) > 0) != truth
        assert wrong.any()
    assert _constructions_dyck_k.decision_margins(far, short)[witness] < 0
    # The claim formal_languages.dyck_k's check (its quick sizes: these very strings) sees both.
    from transformer_theory.papers.formal_languages import _checks_dyck_k

    assert _checks_dyck_k.dyck_k_margins("hard").values["failures"] == 0
    for bad in (far, no_overflow):
        monkeypatch.setattr(
            _constructions_dyck_k, "dyck_k_recognizer", lambda *args, bad=bad, **kwargs: bad
        )
        assert _checks_dyck_k.dyck_k_margins("hard").values["failures"] > 0


def test_recognizer_k3_every_string():
    k, depth, length = 3, 1, 4
    strings = _tasks_dyck_k.all_strings(length, k)
    truth = np.array([[reference(w[:i], k, depth) for i in range(length + 1)] for w in strings])
    margins = _constructions_dyck_k.decision_margins(
        _constructions_dyck_k.dyck_k_recognizer(k, depth), strings, prefixes=True
    )
    _check_derived(margins, truth, length)


def test_softmax_recognizer_on_samples():
    """Softmax with the derived scales: every sampled string right at length 16 in float64,
    members' margin 1/(4n) (the off-partner weight < 1/(2N) moves no flag)."""
    k, depth, length = 2, 3, 16
    params = _constructions_dyck_k.dyck_k_recognizer(k, depth, "softmax", max_len=length)
    assert params.config.attention == "softmax"
    strings, labels, _ = _tasks_dyck_k.dyck_k_sample(k, depth, length, 12, seed=1)
    margins = _constructions_dyck_k.decision_margins(params, strings)
    n = length + 1
    np.testing.assert_allclose(margins[labels], 1 / (4 * n), rtol=0, atol=1e-12)
    assert (margins[~labels] <= -0.15 / n).all()
    lam, mu = _constructions_dyck_k.softmax_scales(length)
    assert lam == pytest.approx(2 * n * np.log(2 * n * n)) and mu == pytest.approx(
        2 * n * np.log(4 * n)
    )
    assert params.layers[1].attn.w_qk.dtype == jnp.float64


def test_experiment_smoke_size_runs(tmp_path):
    from transformer_theory.jsonio import read_json
    from transformer_theory.papers.formal_languages.experiments import dyck_k as experiments_dyck_k

    config = experiments_dyck_k.get_config("smoke")
    result = _study_dyck_k.run(config, str(tmp_path))
    written = read_json(tmp_path / "dyck_k.json")
    assert not result.failed and len(written["records"]) == 1
    assert written["records"][0]["strings_checked"] == sum(4**n for n in range(5))
    assert [r["dtype"] for r in written["precision"]] == ["float64"]
    assert (tmp_path / "dyck_k_margin.png").stat().st_size > 0
