"""The formal-language rows' checks beyond their mutants (tests/papers/formal_languages/
test_mutants.py): the continuation-set oracle against brute force, the counter-language finding,
the committed-record row, and the table's printed words."""

import itertools
import json
import pathlib

import pytest

from transformer_theory.papers.formal_languages import (
    _checks,
    _checks_counters,
    _tasks_counters,
    claims,
)

ROWS = {r.id: r for r in claims.CLAIMS}


def _brute_viable(language, prefix, extra):
    """``prefix`` is a prefix of a member with at most ``extra`` more symbols: every completion
    tried against is_member (the definition)."""
    S = _tasks_counters.machine(language).num_symbols
    for k in range(extra + 1):
        for u in itertools.product(range(S), repeat=k):
            if _tasks_counters.is_member(language, [*prefix, *u]):
                return True
    return False


def test_the_continuation_oracle_is_brute_force_on_short_prefixes():
    # Bounds: a viable prefix of length <= 3 has a completion of at most 3 * 4 - 3 = 9 (a^n b^n
    # c^n), 2 * 3 (SHUFFLE-DYCK), 2 * 3 + 1 (BoolExp-3) more symbols; 6 suffice below length 3
    # except for a^n b^n c^n, checked to length 2 with 6 (3 * 3 - 2 = 7 > 6 only for "aa": its
    # own completion "bbcc" has 4).
    for language, length in [
        ("shuffle_dyck_1", 3),
        ("shuffle_dyck_2", 2),
        ("anbn", 3),
        ("anbncn", 2),
        ("boolexp_3", 2),
    ]:
        S = _tasks_counters.machine(language).num_symbols
        for n in range(length + 1):
            for p in itertools.product(range(S), repeat=n):
                assert _tasks_counters.viable(language, p) == _brute_viable(language, p, 6), (
                    language,
                    p,
                )


def test_the_continuation_set_of_aab_is_b_only():
    a, b = 0, 1
    assert _tasks_counters.continuation_set("anbncn", [a, a, b]) == frozenset({b})
    assert _tasks_counters.continuation_set("anbncn", []) == frozenset({a, _tasks_counters.END})
    assert _tasks_counters.continuation_set("shuffle_dyck_2", [0, 2]) == frozenset({0, 1, 2, 3})


def test_the_anbncn_finding_names_its_shortest_witness():
    v = _checks_counters.continuations(("anbncn",), (3,)).values
    assert v["differs"] and v["witness"]["prefix"] == ["a", "a", "b"]
    assert v["witness"]["model"] == ["b", "c"] and v["witness"]["true"] == ["b"]


# the project's source documents, in shared/ beside the checkout (as CI lays it out)
SEEDS = pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "seeds"
SEED = SEEDS / "001_4a8a9b13747ade48.txt"


@pytest.mark.skipif(not SEED.exists(), reason="the seed slides are not in this checkout")
def test_every_printed_row_is_on_the_seed_slide():
    seed = SEED.read_text(encoding="utf-8")
    lines = {
        " | ".join(x.strip() for x in line.split("\t") if x.strip()) for line in seed.splitlines()
    }
    for row in claims.CLAIMS:
        for part in row.printed.split(" / ") if row.printed else ():
            assert part in lines, (row.id, part)


def _results(tmp_path, constructed_accuracy):
    out = tmp_path / "experiments" / "results"
    out.mkdir(parents=True)
    records = [
        {
            "language": "parity",
            "model": "leftmost-hard (trained, straight-through)",
            "seed": 0,
            "final_loss": 0.69,
            "accuracy": [0.5, 0.49],
        },
        {
            "language": "parity",
            "model": "constructed",
            "seed": None,
            "final_loss": None,
            "accuracy": [1.0, constructed_accuracy],
        },
    ]
    (out / "languages_generalization.json").write_text(json.dumps({"records": records}))


def test_hahn_training_reads_a_committed_run_as_a_record(tmp_path):
    _results(tmp_path, 1.0)
    checked = _checks.hahn_training(str(tmp_path))
    assert checked.arithmetic == "record" and checked.values["best_hard"] == "0.50"
    assert ROWS["formal_languages.hahn_training"].judge(checked).holds


def test_hahn_training_flags_a_construction_that_misses(tmp_path):
    _results(tmp_path, 0.97)
    checked = _checks.hahn_training(str(tmp_path))
    assert not checked.values["constructions_exact"]
    assert ROWS["formal_languages.hahn_training"].judge(checked).holds is False
