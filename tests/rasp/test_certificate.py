"""Certificates by length (``_certificate.certify``, ``rasp.certified_length``) against
enumeration and seeded adversarial inputs: a certified length is never beaten, the certified
margin is a lower bound of every enumerated margin, a loosened constant moves the certified length
down."""

from __future__ import annotations

import numpy as np
import pytest

from transformer_theory import rasp
from transformer_theory.rasp import _certificate, _library

LENGTHS = range(1, 9)


def _compile(name, vocab, n, **kw):
    prog, v = _library.get_program(name, vocab)
    return rasp.compile(prog, v, n, **kw)


def _length(name, vocab, dtype="float32", lengths=LENGTHS, **kw):
    prog, v = _library.get_program(name, vocab)
    return rasp.certified_length(prog, v, dtype, lengths=lengths, **kw)


@pytest.mark.parametrize(
    "name, vocab, kw",
    [
        ("length", "ab", {"mlp_slope": 10.0}),
        ("reverse", "ab", {"softmax_scale": 4.0}),
        ("frac_prevs", "ab", {"softmax_scale": 6.0}),
        ("dyck1", "()", {}),
    ],
)
def test_a_certified_length_holds_on_every_enumerated_input(name, vocab, kw):
    """Every length the certificate proves is exact by enumeration (every input, every node,
    every position, float32), and the certified margin is at most the smallest enumerated one
    (it is a lower bound over all inputs)."""
    rec = _length(name, vocab, lengths=range(1, 7), **kw)
    n_cert = rec["certified_length"]
    assert n_cert >= 1 and rec["largest_tried"] >= n_cert
    by_length = {r["length"]: r for r in rec["rows"]}
    for n in (min(n_cert, 3),):
        got = rasp.check(_compile(name, vocab, n, **kw), dtype="float32")
        assert got["agree"] and not got["internal_disagreements"], (n, got["disagreements"])
        assert by_length[n]["min_margin"] <= got["min_margin"] + 1e-12


@pytest.mark.parametrize(
    "name, vocab, n, kw",
    [
        ("length", "ab", 6, {"mlp_slope": 10.0}),  # tracr's fixed slope below N (N + 1)
        ("frac_prevs", "ab", 8, {"softmax_scale": 6.0}),  # a softmax scale below the law's
    ],
)
def test_the_certificate_refuses_where_enumeration_finds_an_error(name, vocab, n, kw):
    c = _compile(name, vocab, n, **kw)
    got = rasp.check(c, dtype="float32")
    assert not (got["agree"] and not got["internal_disagreements"])
    cert = _certificate.certify(c, "float32")
    assert not cert["certified"] and cert["limited_by"]


def _adversarial(vocab, n, seed=0):
    """All keys competing (one token everywhere), alternations and blocks (every value of a
    width / balance at its extremes), and seeded random inputs."""
    a, b = vocab[0], vocab[1]
    out = [[a] * n, [b] * n, [a, b] * (n // 2) + [a] * (n % 2), [a] * (n // 2) + [b] * (n - n // 2)]
    out += [[b] + [a] * (n - 1), [a] * (n - 1) + [b]]
    rng = np.random.default_rng(seed)
    out += [[vocab[i] for i in rng.integers(len(vocab), size=n)] for _ in range(24)]
    return out


def test_adversarial_inputs_never_beat_the_certified_length():
    """reverse with a loosened softmax scale: at its certified length every adversarial input
    decodes right in float32 (at the length after, the bound says nothing)."""
    kw = {"softmax_scale": 4.0}
    n_cert = _length("reverse", "ab", **kw)["certified_length"]
    assert 2 <= n_cert < 8
    c = _compile("reverse", "ab", n_cert, **kw)
    inputs = [x for n in (1, n_cert - 1, n_cert) for x in _adversarial("ab", n)]
    outs = rasp.run(c, inputs, "float32")
    assert all(o == rasp.evaluate(c.program, x) for o, x in zip(outs, inputs))


def test_float64_certificate_and_enumeration_agree_on_sort():
    c = _compile("sort", "abc", 3)
    cert = _certificate.certify(c, "float64")
    got = rasp.check(c)
    assert cert["certified"] and got["agree"] and not got["internal_disagreements"]
    assert cert["min_margin"] <= got["min_margin"] + 1e-12
    # the worst case over the value sets (every competing key at length 3) stays in the band
    # every consumer decides exactly on
    assert cert["min_margin"] > 0.5


def test_narrow_formats_are_analysed_not_assumed():
    """bfloat16 and float16: the certificate's own verdict (ValueError for an unknown name)."""
    c = _compile("length", "ab", 4)
    for d in ("bfloat16", "float16"):
        rec = _certificate.certify(c, d)
        assert rec["dtype"] == d and isinstance(rec["certified"], bool)
        if not rec["certified"]:
            assert rec["limited_by"]
    with pytest.raises(ValueError, match="dtype"):
        _certificate.certify(c, "float8")
    with pytest.raises(ValueError, match="compiled"):
        _certificate.certify("length", "float32")
    with pytest.raises(ValueError, match="lengths"):
        rasp.certified_length(c.program, "ab", "float32", lengths=[0])


@pytest.mark.parametrize(
    "name, kw",
    [("reverse", {"softmax_scale": 3.0}), ("length", {"mlp_slope": 10.0})],
)
def test_mutant_a_loosened_constant_drops_the_certified_length(name, kw):
    """The law's constants certify every length tried (1..8); a softmax scale or MLP slope
    below the law's certifies a shorter one, and says which node limits it."""
    assert _length(name, "ab")["certified_length"] == 8
    loose = _length(name, "ab", **kw)
    assert loose["certified_length"] < 8 and loose["first_failure"] is not None
    assert loose["rows"][-1]["limited_by"]
