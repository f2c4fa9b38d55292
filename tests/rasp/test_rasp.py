"""RASP: interpreter and compiled models against references written here (plain Python over
lists, independent of the interpreter), the length-64 float32 claim, causal refusal, and the exact
agreement of every compiled node (tracr's known defects are in ``test_tracr_regressions.py``).

Tolerances: none. Every comparison is of decoded values (argmax of a one-hot block, nearest value
of a numerical node's finite value set), which the construction decides exactly; the margins
themselves are asserted against the construction's bands (>= 1/2 in float64, where its laws
leave every node within a quarter of its value).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import jax.numpy as jnp
import numpy as np
import pytest

from transformer_theory import rasp
from transformer_theory.core import forward_trace
from transformer_theory.rasp import _compiler, _library


def _frac(xs, i, t):
    return Fraction(sum(x == t for x in xs[: i + 1]), i + 1)


def _sort(xs):
    return sorted(xs)


def _dyck(prefix, pairs):
    for o, c in pairs:
        bal = 0
        for x in prefix:
            bal += (x == o) - (x == c)
            if bal < 0:
                return False
        if bal:
            return False
    return True


REFERENCES = {
    "length": lambda xs: [len(xs)] * len(xs),
    "reverse": lambda xs: xs[::-1],
    "histogram": lambda xs: [xs.count(x) for x in xs],
    "sort": _sort,
    "sort_unique": lambda xs: [
        next((x for x in xs if sum(y < x for y in xs) == i), None) for i in range(len(xs))
    ],
    "sort_by_frequency": lambda xs: [
        x for _, _, x in sorted((-xs.count(x), i, x) for i, x in enumerate(xs))
    ],
    "frac_prevs": lambda xs: [_frac(xs, i, "a") for i in range(len(xs))],
    "shift": lambda xs: [None] + xs[:-1],
    "detect_pattern": lambda xs: [
        i >= 2 and xs[i - 2 : i + 1] == list("abc") for i in range(len(xs))
    ],
    "pair_balance": lambda xs: [
        Fraction(xs[: i + 1].count("(") - xs[: i + 1].count(")"), i + 1) for i in range(len(xs))
    ],
    "shuffle_dyck1": lambda xs: [_dyck(xs[: i + 1], ["()"]) for i in range(len(xs))],
    "dyck1": lambda xs: [_dyck(xs[: i + 1], ["()"]) for i in range(len(xs))],
    "shuffle_dyck2": lambda xs: [_dyck(xs[: i + 1], ["()", "[]"]) for i in range(len(xs))],
    "majority": lambda xs: [2 * xs[: i + 1].count("a") > i + 1 for i in range(len(xs))],
    "parity": lambda xs: [xs[: i + 1].count("1") % 2 == 1 for i in range(len(xs))],
}
# Small sizes keep tests/rasp under a minute on one core; the CLI checks the defaults.
SMALL = {"shuffle_dyck2": 3, "sort_by_frequency": 4, "sort": 4, "sort_unique": 4}


def _all_inputs(vocab, max_len):
    for n in range(1, max_len + 1):
        yield from (list(t) for t in itertools.product(vocab, repeat=n))


def test_every_library_program_has_a_reference():
    assert set(REFERENCES) == set(rasp.PROGRAMS)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_interpreter_matches_reference(name):
    program, vocab = _library.get_program(name)
    for xs in _all_inputs(vocab, 5):
        assert rasp.evaluate(program, xs) == REFERENCES[name](xs), xs


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_compiled_matches_reference_on_every_input(name):
    program, vocab = _library.get_program(name)
    n = SMALL.get(name, 4)
    compiled = rasp.compile(program, vocab, n)
    inputs = list(_all_inputs(vocab, n))
    got = rasp.run(compiled, inputs)
    for xs, out in zip(inputs, got):
        assert out == REFERENCES[name](xs), xs
    sizes = compiled.sizes()
    # Weiss et al. 2021's attention depth is met exactly: one head per operation on its chain
    assert (
        sizes["attention_sublayers"]
        == sizes["attention_depth"]
        == _compiler.attention_depth(program)
    )
    # no MLP-only layer except where a table must come before the first attention (sort's
    # (key, index) pairs) or read two numerical inputs (shuffle-Dyck-2's tuple key)
    assert sizes["layers"] == sizes["attention_depth"] + (name in ("sort", "shuffle_dyck2"))


def test_check_compares_every_node_and_reports_margins():
    program, vocab = _library.get_program("reverse")
    rec = rasp.check(rasp.compile(program, vocab, 4))
    assert rec["agree"] and rec["exact"] and rec["internal_disagreements"] == 0
    assert rec["inputs_checked"] == 3 + 9 + 27 + 81
    assert rec["exhaustive_lengths"] == [1, 2, 3, 4] and not rec["sampled_lengths"]
    assert 0.5 <= rec["min_margin"] <= 1


def test_a_disagreement_is_reported_with_its_input():
    # an overridden, far too small softmax scale: the compiled model mixes keys
    program, vocab = _library.get_program("reverse")
    rec = rasp.check(rasp.compile(program, vocab, 4, softmax_scale=0.5))
    assert not rec["agree"] and rec["disagreements"]
    d = rec["disagreements"][0]
    assert set(d) >= {"input", "position", "node", "expected", "got"}


def test_sampling_beyond_max_inputs():
    program, vocab = _library.get_program("histogram")
    rec = rasp.check(rasp.compile(program, vocab, 6), max_inputs=100, samples_per_length=8)
    assert rec["exhaustive_lengths"] == [1, 2, 3] and rec["sampled_lengths"] == [4, 5, 6]
    assert rec["agree"]


# -- length 64 in float32, constants chosen automatically ------------------------------------


@pytest.mark.parametrize("name", ["reverse", "sort", "histogram"])
def test_exact_at_length_64_in_float32(name):
    program, vocab = _library.get_program(name)
    compiled = rasp.compile(program, vocab, 64)
    rec = rasp.check(compiled, dtype="float32", lengths=[64], samples_per_length=6, max_inputs=0)
    assert rec["exact"] and rec["inputs_checked"] == 6 and rec["positions_compared"] == 384
    rng = np.random.default_rng(1)
    xs = [vocab[k] for k in rng.integers(len(vocab), size=64)]
    assert rasp.run(compiled, [xs], "float32")[0] == REFERENCES[name](xs)


# -- causal, the parameter format, the API's refusals -----------------------------------------


def test_causal_refuses_a_program_whose_meaning_changes_and_compiles_a_prefix_one():
    with pytest.raises(ValueError, match="length.*causal mask"):
        rasp.compile(_library.get_program("reverse")[0], "abc", 4, causal=True)
    program, vocab = _library.get_program("majority")
    compiled = rasp.compile(program, vocab, 5, causal=True)
    assert compiled.config.causal and rasp.check(compiled)["exact"]


def test_the_model_is_the_librarys_format_and_loads_as_the_nnx_module():
    from transformer_theory.nn import from_params

    program, vocab = _library.get_program("histogram")
    compiled = rasp.compile(program, vocab, 4)
    ids = jnp.asarray(compiled.token_ids(list("abca")))  # full length: token ids embed as-is
    by_ids = forward_trace(compiled.params(), ids).streams_LxNxD[-1]
    by_rows = forward_trace(compiled.params(), jnp.asarray(compiled.embed(list("abca"))))
    np.testing.assert_array_equal(by_ids, by_rows.streams_LxNxD[-1])
    module = from_params(compiled.params())
    np.testing.assert_array_equal(module.trace(ids).streams_LxNxD[-1], by_ids)
    labels = compiled.labels
    assert len(labels) == compiled.config.width and compiled.unembedding.shape[1] == len(labels)


def test_bad_arguments_name_the_argument():
    program = _library.get_program("length")[0]
    for kwargs, name in [
        ({"vocab": "aa", "max_seq_len": 3}, "vocab"),
        ({"vocab": "ab", "max_seq_len": 0}, "max_seq_len"),
        ({"vocab": "ab", "max_seq_len": 3, "softmax_scale": -1.0}, "softmax_scale"),
    ]:
        with pytest.raises(ValueError, match=name):
            rasp.compile(program, **kwargs)
    with pytest.raises(ValueError, match="program"):
        rasp.compile("tokens", "ab", 3)
    with pytest.raises(ValueError, match="predicate"):
        rasp.Select(rasp.tokens, rasp.tokens, "==")
    with pytest.raises(ValueError, match="dtype"):
        rasp.check(rasp.compile(program, "ab", 2), dtype="float16")


def test_interpreter_causal_evaluation_and_undefined_aggregates():
    length = _library.get_program("length")[0]
    assert rasp.evaluate(length, list("abca"), causal=True) == [1, 2, 3, 4]
    assert rasp.evaluate(length, list("abca")) == [4, 4, 4, 4]
    frac = _library.get_program("frac_prevs")[0]
    xs = list("abbab")
    assert rasp.evaluate(frac, xs, causal=True) == rasp.evaluate(frac, xs)
    # a categorical aggregate over different values has no value: refused, naming op and input
    mixed = rasp.Aggregate(
        rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.TRUE), rasp.tokens, label="mixed"
    )
    with pytest.raises(ValueError, match=r"mixed.*\['a', 'b'\]"):
        rasp.evaluate(mixed, ["a", "b"])


def test_a_table_over_two_numbers_compiles_through_a_categorical_copy():
    frac_a = _library.get_program("frac_prevs")[0]
    frac_b = rasp.Aggregate(
        rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.LEQ),
        rasp.Map(lambda x: int(x == "b"), rasp.tokens, numerical=True),
    )
    both = rasp.SequenceMap(lambda a, b: a > b, frac_a, frac_b, label="a_beats_b")
    compiled = rasp.compile(both, "ab", 3)
    assert any(n.label.endswith(".categorical") for n in compiled.nodes)
    for xs in _all_inputs("ab", 3):
        want = [2 * xs[: i + 1].count("a") > i + 1 for i in range(len(xs))]
        assert rasp.run(compiled, [xs])[0] == want, xs


# -- the vocabulary's order, the printed model, readable labels --------------------------------


@pytest.mark.parametrize("vocab", ["cab", [1, "1", 2.5], [2.5, 1, "1"]])
def test_any_vocabulary_order_compiles_the_right_model(vocab):
    # the token one-hot follows the given order and so does the tokens value set (before the
    # fix the value set was sorted: with "cab" the input c decoded to a)
    program = _library.get_program("reverse", list(vocab))[0]
    compiled = rasp.compile(program, list(vocab), 3)
    assert compiled.labels[: len(vocab)] == tuple(f"tokens:{v!r}" for v in vocab)
    inputs = list(_all_inputs(list(vocab), 3))
    for xs, got in zip(inputs, rasp.run(compiled, inputs)):
        assert got == xs[::-1], xs


def test_a_compiled_program_prints_its_sizes_not_its_weights():
    length = rasp.compile(_library.get_program("length")[0], "ab", 3)
    text = repr(length)
    assert len(text) < 200 and "1 layer " in text and "1 head," in text and "array" not in text
    assert length.summary().startswith("1 layer (1 attention, attention depth 1), 1 head,")
    reverse = rasp.compile(_library.get_program("reverse")[0], "abc", 3)
    assert "2 layers" in repr(reverse) and "2 heads" in repr(reverse)
    assert len(repr(reverse.nodes)) < 120 * len(reverse.nodes)


def test_unlabelled_nodes_get_readable_unique_labels():
    import re

    from transformer_theory.rasp import _language as lang

    m = rasp.Map(lambda x: x == "a", rasp.tokens)
    assert m.label == "map(tokens)"
    two = rasp.SequenceMap(lambda a, b: a and b, m, rasp.Map(lambda x: x == "b", rasp.tokens))
    assert two.label == "sequence_map(map(tokens), map(tokens))"
    sel = lang.Select(rasp.indices, rasp.indices, rasp.Comparison.LEQ)
    assert sel.label == "select(indices <= indices)"
    compiled = rasp.compile(two, "ab", 2)
    labels = [n.label for n in compiled.nodes]
    assert len(set(labels)) == len(labels)
    assert not any(re.search(r"_\d+$", x) for x in labels), labels


def test_layers_beside_the_attention_depth_for_sort_then_reverse():
    # what the compiler docstring states: an MLP table in front of a chain's first attention
    # (sort's (key, index) pairs) costs a layer, so sort-then-reverse (attention depth 3)
    # compiles to 4 layers, all 4 with attention
    from transformer_theory.rasp import _library

    compiled = rasp.compile(_library.reverse(_library.sort()), "abc", 3)
    sizes = compiled.sizes()
    assert sizes["attention_depth"] == 3 and sizes["attention_sublayers"] == sizes["layers"] == 4


def test_the_face_is_small_and_renames_nothing():
    # issue 46: about 15 public names, each the object's own name (no ``x as y`` on re-export)
    import ast
    import pathlib

    import transformer_theory.rasp as face

    assert 12 <= len(face.__all__) <= 18, face.__all__
    source = pathlib.Path(face.__file__).read_text()
    renamed = [
        f"{a.name} as {a.asname}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom)
        for a in node.names
        if a.asname is not None
    ]
    assert not renamed, renamed
    for name in face.__all__:
        obj = getattr(face, name)
        assert obj.__doc__, name
        if callable(obj) and hasattr(obj, "__name__"):
            assert obj.__name__ == name, (name, obj.__name__)
    # what left the face is still where the private modules keep it, and the study has it
    left = {"get_program", "attention_depth", "certify", "SelectAnd", "CompiledProgram"}
    assert left.isdisjoint(face.__all__)
    from transformer_theory.rasp import _study_program

    program = face.PROGRAMS["length"].make("ab")
    compiled, record = _study_program.study(program, "ab", 2)
    assert isinstance(compiled, _compiler.CompiledProgram)
    assert record.lower_bounds.attention_depth == compiled.attention_depth == 1
    assert set(record.predicted) >= {"float32", "float64"}
