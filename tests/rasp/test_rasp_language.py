"""The rest of tracr's language in this compiler: each construct's compiled model against the
interpreter on EVERY input up to its ``max_seq_len``, every node at every position
(:func:`rasp.check`), beside a reference written here in plain Python for the output; and the
refusals, at compile time, naming the node.

Tolerances: none; decoded values (argmax of a one-hot block, nearest value of a numerical node's
finite value set) are compared exactly, each decision with a positive margin.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from transformer_theory import rasp
from transformer_theory.rasp import _language as lang

t, i = rasp.tokens, rasp.indices
LEQ, LT, EQ, TRUE = (rasp.Comparison[c] for c in ("LEQ", "LT", "EQ", "TRUE"))


def _inputs(vocab, n):
    return [list(x) for k in range(1, n + 1) for x in itertools.product(vocab, repeat=k)]


def _exact_everywhere(compiled, reference):
    rec = rasp.check(compiled)
    assert rec["agree"] and not rec["internal_disagreements"], rec["disagreements"]
    assert rec["exhaustive_lengths"] == list(range(1, compiled.max_seq_len + 1))
    inputs = _inputs(compiled.vocab, compiled.max_seq_len)
    for xs, got in zip(inputs, rasp.run(compiled, inputs)):
        assert got == reference(xs), xs
    return rec


def _frac(xs, k, tok):
    return Fraction(xs[: k + 1].count(tok), k + 1)


def _frac_prevs(tok):
    hit = rasp.Map(lambda x: int(x == tok), t, numerical=True, label=f"is_{tok}")
    return rasp.Aggregate(rasp.Select(i, i, LEQ), hit, label=f"frac_{tok}")


def test_a_numerical_sequence_map_of_two_numerical_means():
    # tracr's pair_balance without the rewrite: two means over different selectors combined
    a = _frac_prevs("(")
    b = rasp.Aggregate(
        rasp.Select(i, i, EQ),
        rasp.Map(lambda x: int(x == ")"), t, numerical=True),
        label="is_close",
    )
    diff = rasp.SequenceMap(lambda x, y: x - y, a, b, numerical=True, label="diff")
    compiled = rasp.compile(diff, "()", 4)
    _exact_everywhere(
        compiled, lambda xs: [_frac(xs, k, "(") - (x == ")") for k, x in enumerate(xs)]
    )


def test_causal_prefix_meaning_counts_the_prefix():
    width = rasp.SelectorWidth(rasp.Select(t, t, TRUE), label="length")
    with pytest.raises(ValueError, match="causal mask"):  # causal=True keeps the full meaning
        rasp.compile(width, "ab", 3, causal=True)
    compiled = rasp.compile(width, "ab", 4, causal="prefix")
    assert compiled.config.causal and compiled.meaning == "prefix"
    assert lang.evaluate(compiled.program, list("abab")) == [1, 2, 3, 4]
    _exact_everywhere(compiled, lambda xs: list(range(1, len(xs) + 1)))
    # a mean under the prefix meaning: the fraction of the prefix, from an all-true selector
    hit = rasp.Map(lambda x: int(x == "a"), t, numerical=True)
    frac = rasp.Aggregate(rasp.Select(i, i, TRUE), hit, label="frac")
    compiled = rasp.compile(frac, "ab", 4, causal="prefix")
    _exact_everywhere(compiled, lambda xs: [_frac(xs, k, "a") for k in range(len(xs))])


def test_a_numerical_select_compiles_through_categorical_copies():
    num = rasp.Map(lambda x: x, t, numerical=True, label="num")
    smaller = rasp.SelectorWidth(rasp.Select(num, num, LT), label="smaller")
    compiled = rasp.compile(smaller, [1, 2, 3], 4)
    _exact_everywhere(compiled, lambda xs: [sum(y < x for y in xs) for x in xs])
    # a numerical mean as a query
    frac = _frac_prevs("a")
    later = rasp.SelectorWidth(rasp.Select(frac, frac, LEQ), label="at_most")
    compiled = rasp.compile(later, "ab", 3)
    _exact_everywhere(
        compiled,
        lambda xs: [
            sum(_frac(xs, j, "a") <= _frac(xs, k, "a") for j in range(len(xs)))
            for k in range(len(xs))
        ],
    )


def test_a_non_zero_numerical_default_is_read_where_the_selection_is_empty():
    one = rasp.Map(lambda x: int(x == "a"), t, numerical=True)
    earlier = rasp.Aggregate(rasp.Select(i, i, LT), one, default=-2, label="earlier")
    compiled = rasp.compile(earlier, "ab", 4)
    assert Fraction(-2) in compiled.output.values
    _exact_everywhere(
        compiled,
        lambda xs: [Fraction(-2)] + [Fraction(xs[:k].count("a"), k) for k in range(1, len(xs))],
    )
    with pytest.raises(ValueError, match="default"):
        rasp.Aggregate(rasp.Select(i, i, LT), one, default="x")


def test_full_and_constant_sops():
    full = lang.Full(3, numerical=True, label="three")
    plus = rasp.SequenceMap(lambda a, b: a + b, lang.Full("x", label="x"), t, label="x_plus")
    compiled = rasp.compile(plus, "ab", 3)
    _exact_everywhere(compiled, lambda xs: ["x" + x for x in xs])
    mean = rasp.Aggregate(rasp.Select(i, i, LEQ), full, label="mean_three")
    _exact_everywhere(rasp.compile(mean, "ab", 3), lambda xs: [3] * len(xs))
    const = lang.ConstantSOp([5, 6, 7], check_length=False, label="const")
    shifted = rasp.SequenceMap(lambda c, x: (c, x), const, t, label="pair")
    _exact_everywhere(rasp.compile(shifted, "ab", 3), lambda xs: list(zip([5, 6, 7], xs)))
    with pytest.raises(ValueError, match="const.*length"):
        rasp.compile(shifted, "ab", 4)
    with pytest.raises(ValueError, match="check_length"):
        rasp.compile(lang.ConstantSOp([1, 2]), "ab", 2)


def test_a_numerical_selector_width():
    width = rasp.SelectorWidth(rasp.Select(t, t, EQ), numerical=True, label="hist")
    compiled = rasp.compile(width, "abc", 4)
    assert compiled.output.numerical and compiled.output_values is None
    _exact_everywhere(compiled, lambda xs: [xs.count(x) for x in xs])


def test_a_categorical_aggregate_over_different_values_is_refused_at_compile_time():
    mixed = rasp.Aggregate(rasp.Select(t, t, TRUE), t, label="mixed")
    with pytest.raises(ValueError, match=r"mixed: categorical aggregate over different values"):
        rasp.compile(mixed, "ab", 3)


def test_a_linear_sequence_map_of_two_numerical_means_is_an_exact_linear_mlp():
    # tracr's LinearSequenceMap over two means with DIFFERENT selectors (no rewrite into one
    # mean applies): one exact linear MLP in the heads' own layer, no categorical copy
    a = _frac_prevs("(")
    closes = rasp.Map(lambda x: int(x == ")"), t, numerical=True, label="is_close")
    b = rasp.Aggregate(rasp.Select(i, i, LT), closes, label="closes_before")
    diff = lang.LinearSequenceMap(a, b, 1, -2, label="balance")
    assert lang.evaluate(diff, list("()")) == [1, Fraction(1, 2) - 0]
    compiled = rasp.compile(diff, "()", 4)
    assert compiled.config.depth == 1
    assert not any(n.label.endswith(".categorical") for n in compiled.nodes)

    def reference(xs):
        out = []
        for k in range(len(xs)):
            before = Fraction(xs[:k].count(")"), k) if k else Fraction(0)
            out.append(_frac(xs, k, "(") - 2 * before)
        return out

    _exact_everywhere(compiled, reference)
    with pytest.raises(ValueError, match="q"):
        lang.LinearSequenceMap(a, b, 1, float("nan"))
