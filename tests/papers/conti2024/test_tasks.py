"""The synthetic translation grammar: reordering and agreement, checked word by word.

The reference is written here at the level of words (parse the English-like sentence, build the
target with the Italian-like rules: determiner il/la/i/le, endings o/a/i/e, verb + "ro" in the
plural, verb last), independently of the task's token layout.
"""

import numpy as np
import pytest

from transformer_theory.papers.conti2024._tasks import Translation, token_accuracy

GENDER = {"cat": 0, "house": 1, "book": 0, "girl": 1, "boy": 0, "car": 1}
STEM = {"cat": "gatt", "house": "cas", "book": "libr", "girl": "ragazz", "boy": "bambin"}
STEM["car"] = "macchin"
ADJ = {"red": "ross", "new": "nuov", "small": "piccol", "black": "ner"}
VERB = {"saw": "vide", "took": "prese", "found": "trovo", "liked": "amo"}
ENDING = {(0, 0): "o", (0, 1): "a", (1, 0): "i", (1, 1): "e"}  # (plural, gender)
DET = {(0, 0): "il", (0, 1): "la", (1, 0): "i", (1, 1): "le"}


def reference(english: str) -> str:
    words = english.split()
    assert words[-1] == "<eos>"
    phrases, verb, rest = [], None, words[:-1]
    for _ in range(2):  # the [ADJ] NOUN, then the verb after the first phrase
        assert rest.pop(0) == "the"
        adj = rest.pop(0) if rest[0] in ADJ else None
        phrases.append((adj, rest.pop(0)))
        if verb is None:
            verb = rest.pop(0)
    assert not rest
    (adj1, noun1), (adj2, noun2) = phrases

    def phrase(adj, noun):
        plural = int(noun.endswith("s"))
        noun = noun[:-1] if plural else noun
        g = GENDER[noun]
        end = ENDING[plural, g]
        return [DET[plural, g], STEM[noun] + end] + ([ADJ[adj] + end] if adj else []), plural

    p1, subject_plural = phrase(adj1, noun1)
    p2, _ = phrase(adj2, noun2)
    return " ".join(p1 + p2 + [VERB[verb] + ("ro" if subject_plural else ""), "<eos>"])


def test_every_pair_follows_the_grammar():
    task = Translation()
    src, tgt = task.all_pairs()
    assert task.size == (2 * 5 * 6) ** 2 * 4 == src.shape[0]
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
    assert text["the girl took the cars <eos>"] == "la ragazza le macchine prese <eos>"


def test_padding_and_alignment():
    task = Translation()
    src, tgt = task.all_pairs()
    words = task.words()
    lengths = (src != 0).sum(1)
    assert set(lengths) == {6, 7, 8} and ((tgt != 0).sum(1) == lengths).all()
    # What each target stem translates (determiners translate their noun).
    source_of = {v: k for table in (STEM, ADJ, VERB) for k, v in table.items()}
    align = task.alignment(src)
    for s_row, t_row, a_row in zip(src[::97], tgt[::97], align[::97]):
        for tok, pos in zip(t_row, a_row):
            if tok == 0:
                assert pos == -1
                continue
            target, source = words[tok], words[s_row[pos]]
            if target in DET.values():
                assert source.rstrip("s") in STEM
            elif target == "<eos>":
                assert source == "<eos>"
            else:
                stem = next(st for st in source_of if target.startswith(st))
                assert source.rstrip("s") == source_of[stem], (target, source)


def test_fixed_length_variant():
    small = dict(num_nouns=3, num_adjectives=2, num_verbs=2)
    task = Translation(**small, optional_adjectives=False)
    src, tgt = task.all_pairs()
    assert task.size == (2 * 2 * 3) ** 2 * 2 and (src != 0).all() and (tgt != 0).all()
    short = Translation(**small).pairs(np.array([Translation(**small).size - 1]))[0]
    assert (short == 0).any()  # a sentence without adjectives: not in the fixed-length grammar
    with pytest.raises(ValueError, match="src_BxN: row 0"):
        task.translate(short)


def test_tokens_stay_in_vocabulary_and_sides_disjoint():
    task = Translation(num_nouns=3, num_adjectives=2, num_verbs=2)
    src, tgt = map(np.asarray, task.all_pairs())
    assert src.max() < tgt[tgt > 2].min()  # source words come before target words
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
