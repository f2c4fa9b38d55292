"""tracr's meaning of None kept where programs come from tracr: this library's interpreter on the
translated program (:func:`rasp._tracr.from_tracr`, from the tracr-compatible module) against
tracr's evaluation rules written HERE (``tracr/rasp/rasp.py``'s ``DefaultRASPEvaluator``: a Map or
SequenceMap with a None argument is None; a Comparison raises on None; an aggregate is its
default where nothing is selected, the one selected value, or the mean of numbers), on EVERY
node of tracr's own library programs and every input up to a length.

Tolerance: numbers agree to 1e-12 relative (tracr's rules average in float64, this interpreter in
exact fractions converted to float: a few roundings apart); everything else compared exactly,
None included.
"""

from __future__ import annotations

import itertools
import math

import pytest

from tests.rasp import tracr_programs as programs
from transformer_theory import rasp as library
from transformer_theory.rasp import _compiler, _tracr
from transformer_theory.rasp import _language as lang
from transformer_theory.rasp.tracr import rasp

_TABLE = {
    "EQ": lambda k, q: k == q,
    "LT": lambda k, q: k < q,
    "LEQ": lambda k, q: k <= q,
    "GT": lambda k, q: k > q,
    "GEQ": lambda k, q: k >= q,
    "NEQ": lambda k, q: k != q,
    "TRUE": lambda k, q: True,
    "FALSE": lambda k, q: False,
}


def _pred(p, k, q):
    if isinstance(p, rasp.Comparison):
        if k is None or q is None:
            raise ValueError("None compared")
        return _TABLE[p.name](k, q)
    return p(k, q)


def _mean(xs, default):
    if not xs:
        return default
    if len(xs) == 1:
        return xs[0]
    if all(isinstance(x, (int, bool, float)) for x in xs):
        return sum(xs) / len(xs)
    raise ValueError(f"no mean of {xs}")


def tracr_rules(e, xs):
    """tracr's DefaultRASPEvaluator, rule by rule (independent of this library)."""
    n = len(xs)
    if isinstance(e, rasp.TokensType):
        return list(xs)
    if isinstance(e, rasp.IndicesType):
        return list(range(n))
    if isinstance(e, rasp.LengthType):
        return [n] * n
    if isinstance(e, rasp.Full):
        return [e.fill] * n
    if isinstance(e, rasp.Map):
        return [e.f(x) if x is not None else None for x in tracr_rules(e.inner, xs)]
    if isinstance(e, rasp.SequenceMap):
        a, b = tracr_rules(e.fst, xs), tracr_rules(e.snd, xs)
        return [e.f(x, y) if x is not None and y is not None else None for x, y in zip(a, b)]
    if isinstance(e, rasp.SelectorWidth):
        return [sum(row) for row in tracr_rules(e.selector, xs)]
    if isinstance(e, rasp.Aggregate):
        vals = tracr_rules(e.sop, xs)
        return [
            _mean([v for s, v in zip(row, vals) if s], e.default)
            for row in tracr_rules(e.selector, xs)
        ]
    if isinstance(e, rasp.Select):
        keys, queries = tracr_rules(e.keys, xs), tracr_rules(e.queries, xs)
        return [[bool(_pred(e.predicate, k, q)) for k in keys] for q in queries]
    if isinstance(e, (rasp.SelectorAnd, rasp.SelectorOr)):
        op = (lambda a, b: a and b) if isinstance(e, rasp.SelectorAnd) else (lambda a, b: a or b)
        a, b = tracr_rules(e.fst, xs), tracr_rules(e.snd, xs)
        return [[op(x, y) for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]
    if isinstance(e, rasp.SelectorNot):
        return [[not x for x in row] for row in tracr_rules(e.inner, xs)]
    raise AssertionError(f"no rule for {e!r}")


def _same(ours, want):
    if want is None or ours is None:
        return ours is want
    if isinstance(want, (int, float)) and not isinstance(want, bool) and isinstance(want, float):
        return math.isclose(float(ours), want, rel_tol=1e-12, abs_tol=1e-12)
    return ours == want


def _sops(e, out):
    if id(e) not in out:
        out[id(e)] = e
        for c in e.children:
            _sops(c, out)
    return out


LIBRARY = programs.library(4)


@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_every_node_of_tracrs_library_means_what_tracr_means(name):
    program, vocab = LIBRARY[name]
    nodes: dict = {}
    _tracr.from_tracr(program, nodes)
    sops = [e for e in _sops(program, {}).values() if isinstance(e, rasp.SOp)]
    for e in sops:  # the nodes the one rewrite folds away (pair_balance's means) on their own
        if id(e) not in nodes:
            _tracr.from_tracr(e, nodes)
    max_len = 3 if len(vocab) > 3 else 4
    compared = nones = 0
    for n in range(1, max_len + 1):
        for xs in map(list, itertools.product(vocab, repeat=n)):
            trace = lang.evaluate_all([nodes[id(e)] for e in sops], xs)
            for e in sops:
                want = tracr_rules(e, xs)
                got = trace[nodes[id(e)].id]
                assert all(map(_same, got, want)), (name, e.label, xs, got, want)
                compared += n
                nones += sum(w is None for w in want)
    assert compared > 0
    # the programs whose meaning has None positions (shift_by's first, sort_unique's repeats)
    assert (nones > 0) == (name in {"shift_by_1", "detect_pattern", "sort_unique"})


def test_a_none_argument_makes_a_map_none_only_under_tracrs_meaning():
    shifted = lang.Aggregate(
        lang.Select(lang.indices, lang.indices, lambda k, q: q == k + 1), lang.tokens
    )
    ours = lang.Map(lambda x: x == "a", shifted)
    tracrs = lang.Map(lambda x: x == "a", shifted, semantics="tracr")
    assert lang.evaluate(ours, list("ab")) == [False, True]
    assert lang.evaluate(tracrs, list("ab")) == [None, True]
    with pytest.raises(ValueError, match="semantics"):
        lang.Map(lambda x: x, lang.tokens, semantics="python")


def test_the_compiled_model_says_none_where_tracrs_program_means_none():
    # detect_pattern's first two positions mean None in tracr: the model decodes None there,
    # never a value (tracr's own model decodes a value there, its issue #25)
    program = programs.detect_pattern(rasp.tokens, "abc")
    compiled = library.compile(_tracr.from_tracr(program), "abc", 4)
    assert None in compiled.output.values
    inputs = [list(t) for n in range(1, 5) for t in itertools.product("abc", repeat=n)]
    for xs, got in zip(inputs, library.run(compiled, inputs)):
        assert got == [tracr_rules(program, xs)[i] for i in range(len(xs))], xs
        assert got[: min(2, len(xs))] == [None] * min(2, len(xs))


def test_a_numerical_node_that_would_hold_none_is_refused_at_compile_time_naming_it():
    shifted = programs.shift_by(1, rasp.numerical(rasp.Map(lambda x: 1, rasp.tokens)))
    doubled = rasp.numerical(rasp.Map(lambda x: 2 * x, shifted)).named("doubled")
    with pytest.raises(ValueError, match="doubled.*None"):
        library.compile(_tracr.from_tracr(doubled), "ab", 3)
    # a numerical aggregate with tracr's default None where the selection can be empty
    empty = rasp.numerical(
        rasp.Aggregate(
            rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.LT),
            rasp.numerical(rasp.Map(lambda x: 1, rasp.tokens)),
        )
    ).named("earlier_mean")
    assert rasp.evaluate(empty, list("ab")) == [None, 1]
    with pytest.raises(ValueError, match="earlier_mean.*default None"):
        library.compile(_tracr.from_tracr(empty), "ab", 3)


def test_a_predicate_raising_on_a_value_is_refused_at_compile_time_naming_the_node():
    shifted = programs.shift_by(1, rasp.tokens)
    same = rasp.SelectorWidth(rasp.Select(shifted, shifted, rasp.Comparison.EQ)).named("same")
    with pytest.raises(ValueError, match="None"):
        rasp.evaluate(same, list("ab"))  # tracr's meaning: a comparison with None raises
    with pytest.raises(ValueError, match="same.*raised"):
        _compiler.compile(_tracr.from_tracr(same), "ab", 3)
