"""Differential tests against tracr (Lindner et al. 2023), run only where tracr imports.

tracr is not on PyPI and is never a dependency (``rasp._tracr.INSTALL`` says how to install it
beside the library); CI skips this file. Where it runs: tracr's own library programs compiled by
both compilers (this one through :func:`rasp._tracr.from_tracr`), both models in float32 and both
interpreters on EVERY input up to the length, every position, the positions where the interpreter
says None included (tracr's tests skip them, its issue #25). Tolerances: none; numbers decode to
the nearest value of the output's finite value set on both sides (``rasp/_tracr.py``).
"""

from __future__ import annotations

import pytest

from transformer_theory.rasp import _tracr

tracr = pytest.importorskip("tracr", reason=_tracr.INSTALL)

MAX_LEN = 4
# the tracr programs whose interpreter says None at some position: tracr's compiled model
# decodes every such position to a value (its defect; ours keeps the declared default)
WITH_NONE = {"sort_unique", "shift_by_1", "detect_pattern"}


@pytest.fixture(scope="module")
def programs():
    return _tracr.tracr_programs(MAX_LEN)


@pytest.mark.parametrize("name", _tracr.TRACR_PROGRAMS)
def test_both_compilers_on_every_input(programs, name):
    program, vocab, causal = programs[name]
    rec = _tracr.compare(name, program, vocab, MAX_LEN, causal)
    assert rec["inputs"] == sum(len(vocab) ** n for n in range(1, MAX_LEN + 1))
    # the translation means what tracr's program means, at every position of every input
    assert rec["interpreters_disagree"] == 0, rec["interpreter_examples"]
    # this compiler's model equals the interpreter everywhere, None included
    assert rec["ours"]["disagree"] == 0, rec["ours"]["examples"]
    # tracr's model errs exactly at the positions where its interpreter says None
    assert rec["tracr"]["disagree"] == rec["tracr"]["at_none"]
    assert (rec["tracr"]["at_none"] > 0) == (name in WITH_NONE)
    assert rec["tracr"]["at_none"] == rec["interpreter_none_positions"]
    # the depth claims: never more layers than tracr; attention layers = attention depth
    assert rec["layers"]["ours"] <= rec["layers"]["tracr"]
    assert rec["attention_sublayers_ours"] == rec["attention_depth"]


def test_the_batched_runner_is_tracrs_own_apply(programs):
    program, vocab, causal = programs["sort_unique"]
    model = _tracr.compile_tracr(program, vocab, MAX_LEN, causal)
    inputs = [[3, 1, 2], [1, 1, 2, 3], [2]]
    decoded, _ = _tracr.run_tracr(model, inputs)
    for xs, got in zip(inputs, decoded):
        assert model.apply(["BOS"] + xs).decoded[1:] == got


def test_tracrs_length_fails_from_ten_tokens_and_ours_does_not():
    # tracr #7/#14: its SelectorWidth MLP (mlp_exactness = 100) is exact while the width stays
    # below sqrt(100); compiled for 12, its `length` is wrong on every input of length 10 to 12
    program, vocab, _ = _tracr.tracr_programs(12)["length"]
    fail = _tracr.failure_length(program, vocab, 12, range(8, 13), samples=2)
    assert fail["first_failure"] == 10
    assert [r["wrong_inputs"] for r in fail["rows"]] == [0, 0, 2, 2, 2]
    from transformer_theory import rasp

    compiled = rasp.compile(_tracr.from_tracr(program), vocab, 12)
    rec = rasp.check(
        compiled, dtype="float32", lengths=[10, 11, 12], max_inputs=0, samples_per_length=2
    )
    assert rec["exact"]
