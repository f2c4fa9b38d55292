"""tracr programs without tracr: tracr's library and its whole compiler test-case table
(transcribed in ``tracr_programs.py`` with the one changed import) evaluated by the
tracr-compatible module and compiled here, each output compared with tracr's OWN expected output
(its test cases), every position; each case the compiler refuses is refused at compile time with
a message naming the node.

Tolerance: a number agrees with tracr's expected float to 1e-9 (tracr writes ``1 / 3``; this
library computes exact fractions and the model's output decodes to the nearest value of its
value set, so the only difference is float rounding); everything else compared exactly.
"""

from __future__ import annotations

import math
import pathlib

import pytest

from tests.rasp import tracr_programs as programs
from transformer_theory import rasp as library
from transformer_theory.rasp.tracr import compiling, rasp


def _same(got, want):
    if isinstance(want, float) or isinstance(got, float):
        return got is not None and math.isclose(float(got), want, rel_tol=1e-9, abs_tol=1e-9)
    return got == want


def _agree(got, want):
    return len(got) == len(want) and all(map(_same, got, want))


CASES = [(c, False) for c in programs.TEST_CASES] + [(c, True) for c in programs.CAUSAL_TEST_CASES]
IDS = [("causal_" if causal else "") + c["testcase_name"] for c, causal in CASES]


@pytest.mark.parametrize(("case", "causal"), CASES, ids=IDS)
def test_the_compatible_module_evaluates_tracrs_test_cases(case, causal):
    got = rasp.evaluate(case["program"], case["test_input"], causal=causal)
    assert _agree(got, case["expected_output"]), (got, case["expected_output"])


_COMPILED: dict = {}  # one compiled model per program object, vocabulary, length and mask


def _compile(case, causal):
    """``(compiled, None)`` or ``(None, refusal message)``."""
    key = (id(case["program"]), frozenset(case["vocab"]), case["max_seq_len"], causal)
    if key not in _COMPILED:
        try:
            _COMPILED[key] = (
                compiling.compile_rasp_to_model(
                    case["program"], case["vocab"], case["max_seq_len"], causal=causal
                ),
                None,
            )
        except ValueError as err:
            _COMPILED[key] = None, str(err)
    return _COMPILED[key]


@pytest.mark.parametrize(("case", "causal"), CASES, ids=IDS)
def test_tracrs_test_cases_compile_here_and_give_tracrs_expected_output(case, causal):
    compiled, refusal = _compile(case, causal)
    if compiled is None:
        assert ":" in refusal and refusal.split(":")[0], refusal  # names the node
        # the one case refused here, as tracr's own validator refuses it (counted below)
        assert case["testcase_name"] == "numerical_categorical_aggregate", refusal
        return
    (got,) = library.run(compiled, [case["test_input"]])
    assert _agree(got, case["expected_output"]), (got, case["expected_output"])


@pytest.mark.parametrize("case", programs.UNSUPPORTED_TEST_CASES, ids=lambda c: c["testcase_name"])
def test_tracrs_unsupported_cases_compile_or_are_refused_naming_the_node(case):
    compiled, refusal = _compile(case, False)
    if compiled is None:
        assert refusal.split(":")[0].strip(), refusal
        return
    # compiled: the model agrees with the interpreter (tracr's meaning) on every input
    # up to length 3 (tracr has no expected outputs for these)
    rec = library.check(compiled, lengths=[1, 2, 3])
    assert rec["agree"] and not rec["internal_disagreements"], rec["disagreements"]


def test_the_count_compiled_here_and_refused_at_compile_time():
    # tracr's library (15 programs), its 43 test cases, 11 causal ones and 9 it refuses:
    # 77 compile here, 1 is refused at compile time naming the node (a categorical aggregate
    # over different values, which tracr's validator also refuses)
    compiled, refused = 0, []
    for table, causal in ((programs.TEST_CASES, False), (programs.CAUSAL_TEST_CASES, True)):
        for case in table:
            compiled += _compile(case, causal)[0] is not None
    for case in programs.UNSUPPORTED_TEST_CASES:
        c, why = _compile(case, False)
        compiled += c is not None
        refused += [] if c else [(case["testcase_name"], why)]
    for program, vocab in programs.library(4).values():
        compiled += compiling.compile_rasp_to_model(program, set(vocab), 4) is not None
    assert compiled == 77 and [r[0] for r in refused] == ["numerical_categorical_aggregate"]
    assert "categorical aggregate over different values" in refused[0][1]
    assert refused[0][1].startswith("aggregate(select(tokens true to")


def test_a_file_written_for_tracr_runs_with_one_changed_import(tmp_path):
    source = (
        "from tracr.rasp import rasp\n"
        "def make_hist():\n"
        "    same = rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.EQ).named('same')\n"
        "    return rasp.SelectorWidth(same).named('hist')\n"
        "def program():\n"
        "    return rasp.numerical(rasp.Map(lambda h: h - 1, make_hist())).named('others')\n"
    )
    path = pathlib.Path(tmp_path, "mine.py")
    path.write_text(
        source.replace(
            "from tracr.rasp import rasp", "from transformer_theory.rasp.tracr import rasp"
        )
    )
    import importlib.util

    spec = importlib.util.spec_from_file_location("mine", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    prog = module.program()
    assert prog.name == "others" and rasp.is_numerical(prog)
    assert prog(list("abac")) == [1, 0, 1, 0]
    compiled = compiling.compile_rasp_to_model(prog, {"a", "b", "c"}, 4)
    assert library.check(compiled)["agree"]


def test_tracrs_api_names_and_behaviour():
    t, i = rasp.tokens, rasp.indices
    m = rasp.Map(lambda x: x + 1, rasp.Map(lambda x: 2 * x, i))
    assert isinstance(m.inner, rasp.IndicesType) and m([0, 0, 0]) == [1, 3, 5]  # combined
    named = m.named("m")
    assert named is not m and named.name == "m" and m.name == "map"  # named() copies
    assert rasp.is_categorical(m) and rasp.is_numerical(rasp.numerical(m))
    assert rasp.Full(7)("ab") == [7, 7] and rasp.ConstantSOp([1, 2])("ab") == [1, 2]
    sel = rasp.Select(t, t, rasp.Comparison.EQ) & rasp.Select(t, t, rasp.Comparison.LEQ)
    assert isinstance(sel, rasp.Select)  # same keys and queries: simplified into one Select
    assert sel("ab") == [[True, False], [False, True]]
    both = rasp.Select(t, t, rasp.Comparison.EQ) | rasp.Select(i, i, rasp.Comparison.LT)
    assert isinstance(both, rasp.SelectorOr) and both("aa") == [[True, True], [True, True]]
    assert (~rasp.Select(i, i, rasp.Comparison.TRUE))("ab") == [[False, False], [False, False]]
    assert rasp.LinearSequenceMap(i, i, 2, -1)("abc") == [0, 1, 2]
    assert rasp.length("abc") == [3, 3, 3] and (t == "a")("ab") == [True, False]
    with pytest.raises(ValueError, match="None"):
        rasp.Comparison.LT(None, 1)
    with pytest.raises(ValueError, match="vocab"):
        compiling.compile_rasp_to_model(programs.make_hist(), {"a", "compiler_bos"}, 3)
