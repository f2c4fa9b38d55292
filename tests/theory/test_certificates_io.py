"""Loading a user's dataset for certification: round trips and a clear error for every malformed
file."""

import json

import numpy as np
import pytest

from transformer_theory.saveload import load_dataset, save_dataset

TOKENS = np.array([[0, 1, 2], [1, 0, 2], [0, 0, 2]])
LABELS = np.array([0, 1, 1])


@pytest.mark.parametrize("ext", ["json", "npz"])
def test_round_trip(tmp_path, ext):
    p = save_dataset(tmp_path / f"d.{ext}", TOKENS, LABELS, 4, num_classes=3, name="mine")
    d = load_dataset(p)
    assert np.array_equal(d.tokens_BxN, TOKENS) and np.array_equal(d.labels_B, LABELS)
    assert (d.vocab_size, d.num_classes, d.name, d.vocab_size_inferred) == (4, 3, "mine", False)
    assert d.tokens_BxN.dtype == np.int64 and d.summary().last_tokens == (2,)


def test_vocab_size_and_num_classes_are_inferred(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(json.dumps({"tokens": TOKENS.tolist(), "labels": LABELS.tolist()}))
    d = load_dataset(p)
    assert (d.vocab_size, d.num_classes, d.vocab_size_inferred) == (3, 2, True)


def _write_json(tmp_path, obj, raw=None):
    p = tmp_path / "bad.json"
    p.write_text(raw if raw is not None else json.dumps(obj))
    return p


GOOD = {"tokens": TOKENS.tolist(), "labels": LABELS.tolist(), "vocab_size": 3}


@pytest.mark.parametrize(
    "obj,raw,match",
    [
        (None, '{"tokens": [[0, 1]], "labels": [0]', r"not valid JSON .*line 1"),
        ([1, 2], None, "expected a JSON object"),
        ({"labels": [0]}, None, "'tokens' must be a non-empty list"),
        ({"tokens": [[0, 1]]}, None, "'labels' must be a list"),
        (
            {**GOOD, "tokens": [[0, 1, 2], [1, 0]]},
            None,
            r"same length; tokens\[0\] has 3 tokens, tokens\[1\] has 2",
        ),
        (
            {**GOOD, "tokens": [[0, 1.5, 2], [1, 0, 2], [0, 0, 2]]},
            None,
            r"tokens\[0\]\[1\]: expected an integer, got 1.5",
        ),
        (
            {**GOOD, "tokens": [[0, True, 2], [1, 0, 2], [0, 0, 2]]},
            None,
            r"tokens\[0\]\[1\]: expected an integer",
        ),
        (
            {**GOOD, "tokens": [[0, -1, 2], [1, 0, 2], [0, 0, 2]]},
            None,
            r"tokens\[0\]\[1\]: expected a non-negative",
        ),
        (
            {**GOOD, "tokens": [[0, 1, 7], [1, 0, 2], [0, 0, 2]]},
            None,
            r"tokens\[0\]\[2\] = 7 is outside \[0, vocab_size = 3\)",
        ),
        ({**GOOD, "tokens": [0, 1, 2]}, None, r"tokens\[0\] must be a non-empty list"),
        ({**GOOD, "labels": [0, 1]}, None, "'labels' has 2 entries but 'tokens' has 3 sequences"),
        ({**GOOD, "labels": [0, "1", 1]}, None, r"labels\[1\]: expected an integer"),
        ({**GOOD, "vocab_size": "3"}, None, "'vocab_size': expected a positive integer"),
        ({**GOOD, "vocab_size": 0}, None, "'vocab_size': expected a positive integer"),
        ({**GOOD, "num_classes": 1}, None, r"labels\[1\] = 1 is outside \[0, num_classes = 1\)"),
        ({**GOOD, "vocab": 3}, None, r"unknown keys \['vocab'\]"),
    ],
)
def test_malformed_json_gives_clear_error(tmp_path, obj, raw, match):
    p = _write_json(tmp_path, obj, raw)
    with pytest.raises(ValueError, match=match) as err:
        load_dataset(p)
    assert str(p) in str(err.value)  # the message names the file


@pytest.mark.parametrize(
    "arrays,match",
    [
        (dict(labels=LABELS), "missing 'tokens'"),
        (dict(tokens=TOKENS), "missing 'labels'"),
        (dict(tokens=TOKENS[0], labels=LABELS), "array 'tokens' must be 2-D"),
        (
            dict(tokens=TOKENS.astype(float), labels=LABELS),
            "array 'tokens' must have an integer dtype",
        ),
        (dict(tokens=TOKENS, labels=LABELS[:, None]), "array 'labels' must be 1-D"),
        (dict(tokens=TOKENS, labels=-LABELS - 1), "array 'labels' must be non-negative"),
        (
            dict(tokens=TOKENS, labels=LABELS, vocab_size=np.array([3, 4])),
            "'vocab_size' must be a 0-d integer",
        ),
        (dict(tokens=TOKENS, labels=LABELS, vocab_size=np.int64(2)), "outside"),
        (dict(tokens=TOKENS, labels=LABELS, extra=np.ones(2)), "unknown keys"),
        (dict(tokens=np.array([[0, 1], None], dtype=object), labels=LABELS[:2]), "without pickle"),
    ],
)
def test_malformed_npz_gives_clear_error(tmp_path, arrays, match):
    p = tmp_path / "bad.npz"
    np.savez(p, **arrays)
    with pytest.raises(ValueError, match=match):
        load_dataset(p)


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_dataset(tmp_path / "nope.json")
    p = tmp_path / "d.csv"
    p.write_text("0,1,2")
    with pytest.raises(ValueError, match="expected a .json or .npz"):
        load_dataset(p)
    p = tmp_path / "junk.npz"
    p.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not an .npz archive"):
        load_dataset(p)
    # Random bytes used to give numpy's message about pickled data.
    p.write_bytes(np.random.default_rng(0).bytes(512))
    with pytest.raises(ValueError, match=r"not an .npz archive \(an .npz file is a zip") as err:
        load_dataset(p)
    assert "pickle" not in str(err.value)
    with pytest.raises(ValueError, match="is a directory"):  # was "no such file"
        load_dataset(tmp_path)
    with pytest.raises(ValueError, match="path"):
        save_dataset(tmp_path / "d.txt", TOKENS, LABELS, 3)


def test_integers_beyond_int64_are_refused_with_file_field_and_row(tmp_path):
    """JSON 1e30 written as an integer used to raise OverflowError; NPZ uint64 2**64 - 1 wrapped
    to -1 and passed as a token id."""
    p = tmp_path / "big.json"
    p.write_text('{"tokens": [[0, 1], [1, 10000000000000000000000000000000]], "labels": [0, 1]}')
    with pytest.raises(ValueError, match=r"big.json: tokens\[1\]\[1\]: .* beyond the int64"):
        load_dataset(p)
    p.write_text('{"tokens": [[0, 1]], "labels": [0], "vocab_size": 100000000000000000000}')
    with pytest.raises(ValueError, match=r"'vocab_size': .* beyond the int64"):
        load_dataset(p)
    q = tmp_path / "big.npz"
    tokens = np.array([[0, 1], [1, 2**64 - 1]], np.uint64)
    np.savez(q, tokens=tokens, labels=np.array([0, 1], np.uint64))
    with pytest.raises(
        ValueError, match=r"big.npz: tokens\[1, 1\] = 18446744073709551615 is beyond"
    ):
        load_dataset(q)
    np.savez(q, tokens=tokens[:1], labels=np.array([0]), vocab_size=np.uint64(2**64 - 1))
    with pytest.raises(ValueError, match=r"'vocab_size'.* beyond the int64"):
        load_dataset(q)
    # Within range, unsigned ids load as int64.
    np.savez(q, tokens=tokens[:1], labels=np.array([0], np.uint8))
    assert load_dataset(q).tokens_BxN.dtype == np.int64
