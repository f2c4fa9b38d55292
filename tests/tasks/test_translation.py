"""The synthetic translation grammar: reordering and agreement, checked word by word.

The reference is written here at the level of words (parse the English-like sentence, build the
target with the Italian-like rules: determiner il/la/i/le, endings o/a/i/e, verb + "ro" in the
plural, verb last), independently of the task's token layout.
"""

import numpy as np
import pytest

from transformer_theory.tasks import Translation, token_accuracy

GENDER = {"cat": 0, "house": 1, "book": 0, "girl": 1, "boy": 0, "car": 1}
STEM = {"cat": "gatt", "house": "cas", "book": "libr", "girl": "ragazz", "boy": "bambin"}
STEM["car"] = "macchin"
ADJ = {"red": "ross", "new": "nuov", "small": "piccol", "black": "ner"}
VERB = {"saw": "vide", "took": "prese", "found": "trovo", "liked": "amo"}
ENDING = {(0, 0): "o", (0, 1): "a", (1, 0): "i", (1, 1): "e"}  # (plural, gender)
DET = {(0, 0): "il", (0, 1): "la", (1, 0): "i", (1, 1): "le"}


def reference(english: str) -> str:
    the1, adj1, noun1, verb, the2, adj2, noun2, eos = english.split()
    assert (the1, the2, eos) == ("the", "the", "<eos>")

    def phrase(adj, noun):
        plural = int(noun.endswith("s"))
        noun = noun[:-1] if plural else noun
        g = GENDER[noun]
        end = ENDING[plural, g]
        return [DET[plural, g], STEM[noun] + end, ADJ[adj] + end], plural

    p1, subject_plural = phrase(adj1, noun1)
    p2, _ = phrase(adj2, noun2)
    return " ".join(p1 + p2 + [VERB[verb] + ("ro" if subject_plural else ""), "<eos>"])


def test_every_pair_follows_the_grammar():
    task = Translation()
    src, tgt = task.all_pairs()
    assert task.size == (2 * 4 * 6) ** 2 * 4 == src.shape[0]
    english = [task.describe(s) for s in np.asarray(src)]
    assert len(set(english)) == task.size  # every index a different sentence
    for s, t in zip(english, np.asarray(tgt)):
        assert task.describe(t) == reference(s)
    np.testing.assert_array_equal(task.translate(src), np.asarray(tgt))


def test_examples_read_as_written():
    task = Translation()
    src, tgt = task.all_pairs()
    text = {task.describe(s): task.describe(t) for s, t in zip(np.asarray(src), np.asarray(tgt))}
    assert text["the red cat saw the small houses <eos>"] == (
        "il gatto rosso le case piccole vide <eos>"
    )
    assert text["the black girls took the new books <eos>"] == (
        "le ragazze nere i libri nuovi presero <eos>"
    )


def test_tokens_stay_in_vocabulary_and_sides_disjoint():
    task = Translation(num_nouns=3, num_adjectives=2, num_verbs=2)
    src, tgt = map(np.asarray, task.all_pairs())
    assert src.max() < tgt[:, :-1].min()  # source words come before target words
    assert tgt.max() == task.vocab_size - 1 and len(task.words()) == task.vocab_size


def test_translate_refuses_non_sentences():
    task = Translation()
    src, _ = task.pairs(np.array([0, 1]))
    bad = np.array(src)
    bad[1, 3] = 0  # <pad> where the verb belongs
    with pytest.raises(ValueError, match="src_BxN: row 1"):
        task.translate(bad)
    with pytest.raises(ValueError, match="indices"):
        task.pairs(np.array([task.size]))
    with pytest.raises(ValueError, match="num_nouns"):
        Translation(num_nouns=0)


def test_token_accuracy():
    ref = np.array([[5, 6, 2], [7, 8, 2]])
    pred = np.array([[5, 6, 2], [7, 9, 2]])
    assert token_accuracy(pred, ref) == dict(exact_match=0.5, token_accuracy=5 / 6, examples=2)
    with pytest.raises(ValueError, match="predicted_BxT"):
        token_accuracy(pred[:, :2], ref)
