"""Lower bounds beside the constructions: the attention depth of each library program against a
count by hand from its definition in ``rasp/_library.py``, and the library's one-layer
certificates (Chen & Zou 2024) for the task at the last position.

No tolerances: depths are integers; a certificate is verified in integers by the certifier.
"""

from __future__ import annotations

import pytest

from transformer_theory import rasp
from transformer_theory.rasp import _compiler, _library, _lower_bounds

# The longest chain of Aggregate / SelectorWidth, counted by hand from the definitions:
# length = width(all); reverse = aggregate(.. length ..); sort(_unique) = aggregate(.. width ..);
# sort_by_frequency = aggregate(.. width(.. histogram ..) ..); the prefix programs one mean;
# shuffle-Dyck and Dyck-1 = mean(sign of the balance means); parity = table over one mean.
HAND_DEPTH = {
    "length": 1,
    "reverse": 2,
    "histogram": 1,
    "sort": 2,
    "sort_unique": 2,
    "sort_by_frequency": 3,
    "frac_prevs": 1,
    "shift": 1,
    "detect_pattern": 1,
    "pair_balance": 1,
    "shuffle_dyck1": 2,
    "shuffle_dyck2": 2,
    "majority": 1,
    "dyck1": 2,
    "parity": 1,
}


def test_every_program_has_a_hand_count():
    assert set(HAND_DEPTH) == set(rasp.PROGRAMS)


@pytest.mark.parametrize("name", sorted(HAND_DEPTH))
def test_attention_depth_is_the_hand_count_and_the_compiled_attention_layers(name):
    program, vocab = _library.get_program(name)
    assert _compiler.attention_depth(program) == HAND_DEPTH[name]
    sizes = rasp.compile(program, vocab, 3).sizes()
    assert sizes["attention_depth"] == sizes["attention_sublayers"] == HAND_DEPTH[name]


def test_parity_is_certified_impossible_for_one_attention_layer_yet_compiles_to_one_layer():
    # Odd count of "1" at the last position: for every input of length 3 over {0, 1}, no one
    # attention layer + linear classifier (either family) is right on all (Chen & Zou 2024,
    # a Farkas certificate verified in integers); the compiled model needs its MLP.
    program, vocab = _library.get_program("parity")
    certs = _lower_bounds.one_layer_certificates(program, vocab, [2, 3])
    by = {(c["length"], c["family"]): c for c in certs}
    for family in ("relu_any_heads", "softmax_one_head"):
        assert by[(3, family)]["verdict"] == "impossible" and by[(3, family)]["verified_exactly"]
        assert by[(3, family)]["inputs"] == 8 and by[(3, family)]["certificate_size"] >= 2
        assert by[(2, family)]["verdict"] == "no certificate"  # x_0 XOR x_1 given x_1: linear
    lb = _lower_bounds.lower_bounds(rasp.compile(program, vocab, 4))
    assert lb["one_layer_certified_impossible_at"] == [3, 4]
    assert lb["compiled_layers"] == lb["attention_depth"] == 1


@pytest.mark.parametrize(
    ("name", "impossible"), [("dyck1", [4]), ("majority", []), ("sort_unique", [3])]
)
def test_certified_lengths(name, impossible):
    # Dyck-1 at the last position is certified at length 4 (odd lengths are never balanced:
    # one class, nothing to certify); MAJORITY is a threshold of counts, linear: no certificate;
    # sort_unique's last position (the largest token, None where it repeats) is certified at 3
    program, vocab = _library.get_program(name)
    lb = _lower_bounds.lower_bounds(rasp.compile(program, vocab, max(impossible, default=4)))
    assert lb["one_layer_certified_impossible_at"] == impossible
    assert lb["compiled_attention_sublayers"] == lb["attention_depth"]
