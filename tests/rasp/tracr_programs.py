"""tracr's library programs and its compiler test-case table (Lindner et al. 2023;
``tracr/compiler/lib.py`` and ``tracr/compiler/test_cases.py`` at commit 9ce2b8c), transcribed
against the tracr-compatible module with the one changed import: the programs are tracr's, the
``expected_output`` values are tracr's own (its test cases), never this library's.
"""

from __future__ import annotations

from transformer_theory.rasp.tracr import rasp

# -- tracr/compiler/lib.py ----------------------------------------------------------------------


def make_length():
    all_true_selector = rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.TRUE).named(
        "all_true_selector"
    )
    return rasp.SelectorWidth(all_true_selector).named("length")


length = make_length()


def make_reverse(sop):
    opp_idx = (length - rasp.indices).named("opp_idx")
    opp_idx = (opp_idx - 1).named("opp_idx-1")
    reverse_selector = rasp.Select(rasp.indices, opp_idx, rasp.Comparison.EQ).named(
        "reverse_selector"
    )
    return rasp.Aggregate(reverse_selector, sop).named("reverse")


def make_pair_balance(sop, open_token, close_token):
    bools_open = rasp.numerical(sop == open_token).named("bools_open")
    opens = rasp.numerical(make_frac_prevs(bools_open)).named("opens")
    bools_close = rasp.numerical(sop == close_token).named("bools_close")
    closes = rasp.numerical(make_frac_prevs(bools_close)).named("closes")
    pair_balance = rasp.numerical(rasp.LinearSequenceMap(opens, closes, 1, -1))
    return pair_balance.named("pair_balance")


def make_shuffle_dyck(pairs):
    assert len(pairs) >= 1
    balances = []
    for pair in pairs:
        assert len(pair) == 2
        open_token, close_token = pair
        balance = make_pair_balance(
            rasp.tokens, open_token=open_token, close_token=close_token
        ).named(f"balance_{pair}")
        balances.append(balance)
    any_negative = balances[0] < 0
    for balance in balances[1:]:
        any_negative = any_negative | (balance < 0)
    any_negative = rasp.numerical(rasp.Map(lambda x: x, any_negative)).named("any_negative")
    select_all = rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.TRUE).named("select_all")
    has_neg = rasp.numerical(rasp.Aggregate(select_all, any_negative, default=0)).named("has_neg")
    all_zero = balances[0] == 0
    for balance in balances[1:]:
        all_zero = all_zero & (balance == 0)
    select_last = rasp.Select(rasp.indices, length - 1, rasp.Comparison.EQ).named("select_last")
    last_zero = rasp.Aggregate(select_last, all_zero).named("last_zero")
    not_has_neg = (~has_neg).named("not_has_neg")
    return (last_zero & not_has_neg).named("shuffle_dyck")


def make_shuffle_dyck2():
    return make_shuffle_dyck(pairs=["()", "{}"]).named("shuffle_dyck2")


def make_hist():
    same_tok = rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.EQ).named("same_tok")
    return rasp.SelectorWidth(same_tok).named("hist")


def make_sort_unique(vals, keys):
    smaller = rasp.Select(keys, keys, rasp.Comparison.LT).named("smaller")
    target_pos = rasp.SelectorWidth(smaller).named("target_pos")
    sel_new = rasp.Select(target_pos, rasp.indices, rasp.Comparison.EQ)
    return rasp.Aggregate(sel_new, vals).named("sort")


def make_sort(vals, keys, *, max_seq_len, min_key):
    keys = rasp.SequenceMap(lambda x, i: x + min_key * i / max_seq_len, keys, rasp.indices)
    return make_sort_unique(vals, keys)


def make_sort_freq(max_seq_len):
    hist = -1 * make_hist().named("hist")
    return make_sort(rasp.tokens, hist, max_seq_len=max_seq_len, min_key=1).named("sort_freq")


def make_frac_prevs(bools):
    bools = rasp.numerical(bools)
    prevs = rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.LEQ)
    return rasp.numerical(rasp.Aggregate(prevs, bools, default=0)).named("frac_prevs")


def shift_by(offset, /, sop):
    select_off_by_offset = rasp.Select(rasp.indices, rasp.indices, lambda k, q: q == k + offset)
    out = rasp.Aggregate(select_off_by_offset, sop, default=None)
    return out.named(f"shift_by({offset})")


def detect_pattern(sop, pattern):
    if len(pattern) < 1:
        raise ValueError(f"Length of `pattern` must be at least 1. Got {pattern}")
    detectors = []
    for i, element in enumerate(reversed(pattern)):
        detector = sop == element
        if i != 0:
            detector = shift_by(i, detector)
        detectors.append(detector)
    pattern_detected = detectors.pop()
    while detectors:
        pattern_detected = pattern_detected & detectors.pop()
    return pattern_detected.named(f"detect_pattern({pattern})")


def make_count_less_freq(n):
    hist = make_hist().named("hist")
    select_less = rasp.Select(hist, hist, lambda x, y: x <= n).named("select_less")
    return rasp.SelectorWidth(select_less).named("count_less_freq")


def make_count(sop, token):
    return rasp.SelectorWidth(rasp.Select(sop, sop, lambda k, q: k == token)).named(
        f"count_{token}"
    )


def make_nary_sequencemap(f, *sops):
    values, *sops = sops
    for sop in sops:
        values = rasp.SequenceMap(
            lambda x, y: (*x, y) if isinstance(x, tuple) else (x, y), values, sop
        )
    return rasp.Map(lambda args: f(*args), values)


# -- every lib program, as tracr's own tests build them: name -> (program, vocab) ----------------


def library(max_seq_len: int) -> dict:
    return {
        "length": (make_length(), list("abc")),
        "reverse": (make_reverse(rasp.tokens), list("abc")),
        "hist": (make_hist(), list("abc")),
        "sort_unique": (make_sort_unique(rasp.tokens, rasp.tokens), [1, 2, 3]),
        "sort": (
            make_sort(rasp.tokens, rasp.tokens, max_seq_len=max_seq_len, min_key=1),
            [1, 2, 3],
        ),
        "sort_freq": (make_sort_freq(max_seq_len), list("abc")),
        "frac_prevs": (make_frac_prevs(rasp.tokens == "a"), list("ab")),
        "shift_by_1": (shift_by(1, rasp.tokens), list("abc")),
        "detect_pattern": (detect_pattern(rasp.tokens, "abc"), list("abc")),
        "pair_balance": (make_pair_balance(rasp.tokens, "(", ")"), list("()")),
        "shuffle_dyck1": (make_shuffle_dyck(["()"]), list("()")),
        "shuffle_dyck2": (make_shuffle_dyck2(), list("(){}")),
        "count_less_freq_2": (make_count_less_freq(2), list("abc")),
        "count_a": (make_count(rasp.tokens, "a"), list("abc")),
        "nary_sequencemap": (
            make_nary_sequencemap(
                lambda x, y, z: x + y - z, rasp.tokens, rasp.tokens, rasp.indices
            ),
            [1, 2, 3],
        ),
    }


# -- tracr/compiler/test_cases.py ---------------------------------------------------------------


def _case(name, program, vocab, test_input, expected_output, max_seq_len):
    return dict(
        testcase_name=name,
        program=program,
        vocab=vocab,
        test_input=test_input,
        expected_output=expected_output,
        max_seq_len=max_seq_len,
    )


# One program object per family of cases that tracr builds the same way (tracr builds each case's
# anew; the programs are the same, and one compiled model then serves the family's inputs).
_AB = detect_pattern(rasp.tokens, "ab")
_REVERSE = make_reverse(rasp.tokens)
_LENGTH_C, _LENGTH_N = rasp.categorical(make_length()), rasp.numerical(make_length())
_DYCK2, _DYCK3 = make_shuffle_dyck(pairs=["()", "{}"]), make_shuffle_dyck(pairs=["()", "{}", "[]"])
_LESS_C, _LESS_N = make_count_less_freq(n=2), rasp.numerical(make_count_less_freq(n=2))
_COUNT_A = make_count(rasp.tokens, "a")
_SORT = make_sort(vals=rasp.tokens, keys=rasp.tokens, max_seq_len=5, min_key=1)

UNIVERSAL_TEST_CASES = [
    _case(
        "frac_prevs_1",
        make_frac_prevs(rasp.tokens == "l"),
        {"h", "e", "l", "o"},
        list("hello"),
        [0.0, 0.0, 1 / 3, 1 / 2, 2 / 5],
        5,
    ),
    _case(
        "frac_prevs_2",
        make_frac_prevs(rasp.tokens == "("),
        {"a", "b", "c", "(", ")"},
        list("a()b(c))"),
        [0.0, 1 / 2, 1 / 3, 1 / 4, 2 / 5, 2 / 6, 2 / 7, 2 / 8],
        10,
    ),
    _case(
        "frac_prevs_3",
        make_frac_prevs(rasp.tokens == ")"),
        {"a", "b", "c", "(", ")"},
        list("a()b(c))"),
        [0.0, 0.0, 1 / 3, 1 / 4, 1 / 5, 1 / 6, 2 / 7, 3 / 8],
        10,
    ),
    _case(
        "shift_by_one",
        shift_by(1, rasp.tokens),
        {"a", "b", "c", "d"},
        list("abcd"),
        [None, "a", "b", "c"],
        5,
    ),
    _case(
        "shift_by_two",
        shift_by(2, rasp.tokens),
        {"a", "b", "c", "d"},
        list("abcd"),
        [None, None, "a", "b"],
        5,
    ),
    _case(
        "detect_pattern_a",
        detect_pattern(rasp.tokens, "a"),
        {"a", "b", "c", "d"},
        list("bacd"),
        [False, True, False, False],
        5,
    ),
    _case(
        "detect_pattern_ab",
        _AB,
        {"a", "b"},
        list("aaba"),
        [None, False, True, False],
        5,
    ),
    _case(
        "detect_pattern_ab_2",
        _AB,
        {"a", "b"},
        list("abaa"),
        [None, True, False, False],
        5,
    ),
    _case(
        "detect_pattern_ab_3",
        _AB,
        {"a", "b"},
        list("aaaa"),
        [None, False, False, False],
        5,
    ),
    _case(
        "detect_pattern_abc",
        detect_pattern(rasp.tokens, "abc"),
        {"a", "b", "c"},
        list("abcabc"),
        [None, None, True, False, False, True],
        6,
    ),
]

_ABCD = {"a", "b", "c", "d"}
_BRACKETS2 = {"(", ")", "{", "}"}
_BRACKETS3 = {"(", ")", "{", "}", "[", "]"}

TEST_CASES = UNIVERSAL_TEST_CASES + [
    _case("reverse_1", _REVERSE, _ABCD, list("abcd"), list("dcba"), 5),
    _case("reverse_2", _REVERSE, _ABCD, list("abc"), list("cba"), 5),
    _case("reverse_3", _REVERSE, _ABCD, list("ad"), list("da"), 5),
    _case("reverse_4", _REVERSE, _ABCD, ["c"], ["c"], 5),
    _case("length_categorical_1", _LENGTH_C, _ABCD, list("abc"), [3, 3, 3], 3),
    _case("length_categorical_2", _LENGTH_C, _ABCD, list("ad"), [2, 2], 3),
    _case("length_categorical_3", _LENGTH_C, _ABCD, ["c"], [1], 3),
    _case("length_numerical_1", _LENGTH_N, _ABCD, list("abc"), [3, 3, 3], 3),
    _case("length_numerical_2", _LENGTH_N, _ABCD, list("ad"), [2, 2], 3),
    _case("length_numerical_3", _LENGTH_N, _ABCD, ["c"], [1], 3),
    _case(
        "pair_balance_1",
        make_pair_balance(rasp.tokens, "(", ")"),
        {"a", "b", "c", "(", ")"},
        list("a()b(c))"),
        [0.0, 1 / 2, 0.0, 0.0, 1 / 5, 1 / 6, 0.0, -1 / 8],
        10,
    ),
    _case(
        "shuffle_dyck2_1",
        _DYCK2,
        _BRACKETS2,
        list("({)}"),
        [1, 1, 1, 1],
        5,
    ),
    _case(
        "shuffle_dyck2_2",
        _DYCK2,
        _BRACKETS2,
        list("(){)}"),
        [0, 0, 0, 0, 0],
        5,
    ),
    _case(
        "shuffle_dyck2_3",
        _DYCK2,
        _BRACKETS2,
        list("{}("),
        [0, 0, 0],
        5,
    ),
    _case(
        "shuffle_dyck3_1",
        _DYCK3,
        _BRACKETS3,
        list("({)[}]"),
        [1, 1, 1, 1, 1, 1],
        6,
    ),
    _case(
        "shuffle_dyck3_2",
        _DYCK3,
        _BRACKETS3,
        list("(){)}"),
        [0, 0, 0, 0, 0],
        6,
    ),
    _case(
        "shuffle_dyck3_3",
        _DYCK3,
        _BRACKETS3,
        list("{}[(]"),
        [0, 0, 0, 0, 0],
        6,
    ),
    _case("hist", make_hist(), _ABCD, list("abac"), [2, 1, 2, 1], 5),
    _case(
        "sort_unique_1",
        make_sort_unique(vals=rasp.tokens, keys=rasp.tokens),
        {1, 2, 3, 4},
        [2, 4, 3, 1],
        [1, 2, 3, 4],
        5,
    ),
    _case(
        "sort_unique_2",
        make_sort_unique(vals=rasp.tokens, keys=1 - rasp.indices),
        _ABCD,
        list("abcd"),
        ["d", "c", "b", "a"],
        5,
    ),
    _case(
        "sort_1",
        _SORT,
        {1, 2, 3, 4},
        [2, 4, 3, 1],
        [1, 2, 3, 4],
        5,
    ),
    _case(
        "sort_2",
        make_sort(vals=rasp.tokens, keys=1 - rasp.indices, max_seq_len=5, min_key=1),
        _ABCD,
        list("abcd"),
        ["d", "c", "b", "a"],
        5,
    ),
    _case(
        "sort_3",
        _SORT,
        {1, 2, 3, 4},
        [2, 4, 1, 2],
        [1, 2, 2, 4],
        5,
    ),
    _case("sort_freq", make_sort_freq(max_seq_len=5), {1, 2, 3, 4}, [2, 4, 2, 1], [2, 2, 4, 1], 5),
    _case(
        "make_count_less_freq_categorical_1",
        _LESS_C,
        _ABCD,
        ["a", "a", "a", "b", "b", "c"],
        [3, 3, 3, 3, 3, 3],
        6,
    ),
    _case(
        "make_count_less_freq_categorical_2",
        _LESS_C,
        _ABCD,
        ["a", "a", "c", "b", "b", "c"],
        [6, 6, 6, 6, 6, 6],
        6,
    ),
    _case(
        "make_count_less_freq_numerical_1",
        _LESS_N,
        _ABCD,
        ["a", "a", "a", "b", "b", "c"],
        [3, 3, 3, 3, 3, 3],
        6,
    ),
    _case(
        "make_count_less_freq_numerical_2",
        _LESS_N,
        _ABCD,
        ["a", "a", "c", "b", "b", "c"],
        [6, 6, 6, 6, 6, 6],
        6,
    ),
    _case(
        "make_count_1",
        _COUNT_A,
        {"a", "b", "c"},
        ["a", "a", "a", "b", "b", "c"],
        [3, 3, 3, 3, 3, 3],
        8,
    ),
    _case(
        "make_count_2",
        _COUNT_A,
        {"a", "b", "c"},
        ["c", "a", "b", "c"],
        [1, 1, 1, 1],
        8,
    ),
    _case(
        "make_count_3",
        _COUNT_A,
        {"a", "b", "c"},
        ["b", "b", "c"],
        [0, 0, 0],
        8,
    ),
    _case(
        "make_nary_sequencemap_1",
        make_nary_sequencemap(lambda x, y, z: x + y - z, rasp.tokens, rasp.tokens, rasp.indices),
        {1, 2, 3},
        [1, 2, 3],
        [2, 3, 4],
        5,
    ),
    _case(
        "make_nary_sequencemap_2",
        make_nary_sequencemap(lambda x, y, z: x * y / z, rasp.indices, rasp.indices, rasp.tokens),
        {1, 2, 3},
        [1, 2, 3],
        [0, 1 / 2, 4 / 3],
        3,
    ),
]

CAUSAL_TEST_CASES = UNIVERSAL_TEST_CASES + [
    _case(
        "selector_width",
        rasp.SelectorWidth(rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.TRUE)),
        _ABCD,
        list("abcd"),
        [1, 2, 3, 4],
        5,
    ),
]

# tracr raises NotImplementedError on these (its "unsupported" table; no expected outputs)
UNSUPPORTED_TEST_CASES = [
    dict(
        testcase_name="numerical_categorical_aggregate",
        program=rasp.Aggregate(
            rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.TRUE),
            rasp.numerical(rasp.Map(lambda x: x, rasp.tokens)),
        ),
        vocab={1, 2, 3},
        max_seq_len=5,
    ),
    dict(
        testcase_name="categorical_numerical_aggregate",
        program=rasp.numerical(
            rasp.Aggregate(
                rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.TRUE),
                rasp.tokens,
            ),
        ),
        vocab={1, 2, 3},
        max_seq_len=5,
    ),
    dict(
        testcase_name="numerical_numerical_aggregate",
        program=rasp.numerical(
            rasp.Aggregate(
                rasp.Select(rasp.tokens, rasp.tokens, rasp.Comparison.TRUE),
                rasp.numerical(rasp.Map(lambda x: x, rasp.tokens)),
                default=0,
            ),
        ),
        vocab={1, 2, 3},
        max_seq_len=5,
    ),
    dict(
        testcase_name="aggregate_with_not_None_default",
        program=rasp.numerical(
            rasp.Aggregate(
                rasp.Select(rasp.indices, rasp.indices, rasp.Comparison.EQ),
                rasp.tokens,
                default=1,
            ),
        ),
        vocab={1, 2, 3},
        max_seq_len=5,
    ),
    dict(
        testcase_name="numerical_selector",
        program=rasp.SelectorWidth(
            rasp.Select(
                rasp.numerical(rasp.Map(lambda x: x, rasp.tokens)),
                rasp.numerical(rasp.Map(lambda x: x, rasp.tokens)),
                rasp.Comparison.LT,
            )
        ),
        vocab={1, 2, 3},
        max_seq_len=5,
    ),
    dict(
        testcase_name="numerical_SequenceMap",
        program=rasp.numerical(
            rasp.SequenceMap(
                lambda x, y: x + y,
                rasp.numerical(rasp.Map(lambda x: x, rasp.indices)),
                rasp.numerical(rasp.Map(lambda x: x, rasp.tokens)),
            )
        ),
        vocab={1, 2, 3},
        max_seq_len=5,
    ),
    dict(
        testcase_name="categorical_LinearSequenceMap",
        program=rasp.categorical(
            rasp.LinearSequenceMap(
                rasp.categorical(rasp.indices), rasp.categorical(rasp.tokens), 1, 1
            )
        ),
        vocab={1, 2, 3},
        max_seq_len=5,
    ),
    dict(
        testcase_name="numerical_tokens",
        program=rasp.numerical(rasp.tokens),
        vocab={1, 2, 3},
        max_seq_len=5,
    ),
    dict(
        testcase_name="numerical_indices",
        program=rasp.numerical(rasp.indices),
        vocab={1, 2, 3},
        max_seq_len=5,
    ),
]
