"""A synthetic translation task that needs reordering and agreement (for Conti 2024, §1.1-1.2).

Conti 2024 trains its encoder-decoder on an English-Italian corpus (§3.1); a library cannot
download one at run time, so :class:`Translation` generates a language pair from a small rule-based
grammar whose translation needs exactly what a corpus would teach:

- **source** (English-like, SVO, adjective before the noun, number on the noun only; each
  adjective optional)::

      the [ADJ] NOUN VERB the [ADJ] NOUN <eos>      e.g.  the red cat saw the houses

- **target** (SOV, adjective after the noun, determiner and adjective inflected for the noun's
  gender and number, the verb for the subject's number)::

      DET NOUN [ADJ] DET NOUN [ADJ] VERB <eos>      e.g.  il gatto rosso le case vide

  so the verb moves to the end and each adjective swaps with its noun (**reordering**; with the
  optional adjectives, where a word goes depends on the sentence, not on its position alone), and
  every determiner, adjective and verb form depends on a noun's lexical gender (known only in the
  target language) and number (marked on the source noun, which the source verb does not
  repeat): **agreement**, across up to five positions for the verb.

Both sides are padded with ``<pad>`` after ``<eos>`` to 8 tokens (7 words + ``<eos>`` at most),
so a batch is one array and the decoder learns to emit ``<pad>`` after ``<eos>``. Token ids (one
vocabulary for both sides, as :class:`~transformer_theory.core.encdec.Seq2SeqParams` shares its
embedding): ``<pad>`` 0, ``<bos>`` 1, ``<eos>`` 2, then the source words, then the target words
(:meth:`Translation.words`). The dataset is every sentence of the grammar, ``(2 (A + 1) N)^2 V``
pairs for ``N`` nouns, ``A`` adjectives, ``V`` verbs, addressed by index (a mixed-radix number of
5 digits); :meth:`Translation.pairs` unranks indices, :meth:`Translation.translate` is the
grammar's rule applied to any source sentence (the reference a decoder is scored against), and
:meth:`Translation.alignment` says which source word each target word translates.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import ArrayLike

from transformer_theory import _validate

__all__ = [
    "BOS",
    "EOS",
    "PAD",
    "SOURCE_LEN",
    "TARGET_LEN",
    "Translation",
    "eos_exact_match",
    "token_accuracy",
]

PAD, BOS, EOS = 0, 1, 2
SOURCE_LEN = 8  # 7 words + <eos>
TARGET_LEN = 8

# Noun i has target gender i % 2: the lists alternate masculine and feminine Italian stems.
_NOUNS = ["cat", "house", "book", "girl", "boy", "car", "tree", "door"]
_NOUNS_T = ["gatt", "cas", "libr", "ragazz", "bambin", "macchin", "alber", "port"]
_ADJS = ["red", "new", "small", "black", "tall", "slow"]
_ADJS_T = ["ross", "nuov", "piccol", "ner", "alt", "lent"]
_VERBS = ["saw", "took", "found", "liked", "heard", "kept"]
_VERBS_T = ["vide", "prese", "trovo", "amo", "senti", "tenne"]
_DETS_T = ["il", "la", "i", "le"]  # [gender * 2 + number]: masc sg, fem sg, masc pl, fem pl
_ENDINGS = [["o", "a"], ["i", "e"]]  # [number][gender]


@dataclasses.dataclass(frozen=True)
class Translation:
    """Every sentence pair of the grammar in the module docstring.

    Attributes:
      num_nouns: nouns (each with a singular and a plural form); noun ``i`` has gender ``i % 2``
        in the target language (0 masculine, 1 feminine).
      num_adjectives: adjectives (uninflected in the source, 4 target forms each).
      num_verbs: verbs (uninflected in the source, singular/plural target forms).
      optional_adjectives: each noun phrase has an adjective or none (sentences of 5 to 7 words,
        padded with ``<pad>`` after ``<eos>``), so where each word goes depends on the sentence,
        not only on its position; False: always an adjective (every sentence 7 words).
    """

    num_nouns: int = 6
    num_adjectives: int = 4
    num_verbs: int = 4
    optional_adjectives: bool = True

    def __post_init__(self):
        for name in ("num_nouns", "num_adjectives", "num_verbs"):
            _validate.check_positive(name, getattr(self, name))

    # --- token layout --------------------------------------------------------------------------
    @property
    def _src_the(self) -> int:
        return 3

    @property
    def _src_noun(self) -> int:  # + 2 * noun + number
        return 4

    @property
    def _src_adj(self) -> int:
        return self._src_noun + 2 * self.num_nouns

    @property
    def _src_verb(self) -> int:
        return self._src_adj + self.num_adjectives

    @property
    def _tgt_det(self) -> int:  # + 2 * number + gender
        return self._src_verb + self.num_verbs

    @property
    def _tgt_noun(self) -> int:  # + 2 * noun + number
        return self._tgt_det + 4

    @property
    def _tgt_adj(self) -> int:  # + 4 * adjective + 2 * number + gender
        return self._tgt_noun + 2 * self.num_nouns

    @property
    def _tgt_verb(self) -> int:  # + 2 * verb + number
        return self._tgt_adj + 4 * self.num_adjectives

    @property
    def vocab_size(self) -> int:
        return self._tgt_verb + 2 * self.num_verbs

    @property
    def source_len(self) -> int:
        return SOURCE_LEN

    @property
    def target_len(self) -> int:
        return TARGET_LEN

    @property
    def radices(self) -> tuple[int, ...]:
        """Digits of an example, most significant first: subject (adjective, noun-and-number),
        verb, object (adjective, noun-and-number)."""
        nn = 2 * self.num_nouns
        na = self.num_adjectives + int(self.optional_adjectives)  # the last value: no adjective
        return (na, nn, self.num_verbs, na, nn)

    @property
    def size(self) -> int:
        """The number of sentence pairs, ``(2 (A + 1) N)^2 V`` (``(2 A N)^2 V`` without optional
        adjectives)."""
        return int(np.prod(self.radices))

    # --- data ----------------------------------------------------------------------------------
    def pairs(self, indices: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Unrank example indices into ``(src_BxN, tgt_BxT)`` int32 host arrays.

        Raises ``ValueError`` for indices outside ``[0, size)``.
        """
        idx = np.asarray(indices)
        if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError(f"indices: expected a 1-D integer array, got {idx.dtype} {idx.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.size):
            raise ValueError(
                f"indices: expected values in [0, {self.size}), got min {idx.min()} and max "
                f"{idx.max()}"
            )
        digits = []
        rest = idx.astype(np.int64)
        for radix in reversed(self.radices):
            digits.append(rest % radix)
            rest = rest // radix
        adj1, noun1, verb, adj2, noun2 = reversed(digits)
        src, _ = self._source(adj1, noun1, verb, adj2, noun2)
        return src, self._target(adj1, noun1, verb, adj2, noun2)[0]

    def all_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every pair, in index order."""
        return self.pairs(np.arange(self.size))

    def translate(self, src_BxN: ArrayLike) -> np.ndarray:
        """The grammar's translation of source sentences: ``tgt_BxT`` int32.

        Raises ``ValueError`` naming ``src_BxN`` when a row is not a sentence of the source grammar.
        """
        return self._target(*self._parse(src_BxN))[0]

    def alignment(self, src_BxN: ArrayLike) -> np.ndarray:
        """``(B, T)``: the source position each target token translates (-1 for padding).

        A determiner and its adjective's inflection follow the noun, so a determiner is aligned
        with its noun; ``<eos>`` with ``<eos>``.
        """
        parsed = self._parse(src_BxN)
        _, src_pos = self._source(*parsed)
        _, slot_of = self._target(*parsed)
        rows = np.arange(src_pos.shape[0])[:, None]
        return np.where(slot_of >= 0, src_pos[rows, np.maximum(slot_of, 0)], -1)

    def _present(self, adj):
        return adj < self.num_adjectives

    def _compact(self, slots, present):
        """Move the present slots to the front in order, pad with ``<pad>``; also return each
        slot's position after compaction (-1 if absent)."""
        order = np.argsort(~present, axis=1, kind="stable")
        rows = np.arange(slots.shape[0])[:, None]
        out = np.where(present[rows, order], slots[rows, order], PAD).astype(np.int32)
        pos = np.where(present, np.cumsum(present, axis=1) - 1, -1)
        return out, pos

    def _source(self, adj1, noun1, verb, adj2, noun2):
        """``(src_BxN, position of each of the 8 source slots)``."""
        full = lambda x: np.full_like(adj1, x)  # noqa: E731
        slots = np.stack(
            [
                full(self._src_the),
                self._src_adj + adj1,
                self._src_noun + noun1,
                self._src_verb + verb,
                full(self._src_the),
                self._src_adj + adj2,
                self._src_noun + noun2,
                full(EOS),
            ],
            axis=1,
        )
        present = np.ones(slots.shape, bool)
        present[:, 1], present[:, 5] = self._present(adj1), self._present(adj2)
        return self._compact(slots, present)

    def _target(self, adj1, noun1, verb, adj2, noun2):
        """``(tgt_BxT, source slot of each target token (-1 for padding))``."""

        def phrase(adj, noun_number):
            noun, number = noun_number // 2, noun_number % 2
            gender = noun % 2
            return (
                self._tgt_det + 2 * number + gender,
                self._tgt_noun + noun_number,
                self._tgt_adj + 4 * np.minimum(adj, self.num_adjectives - 1) + 2 * number + gender,
            )

        d1, n1, j1 = phrase(adj1, noun1)
        d2, n2, j2 = phrase(adj2, noun2)
        v = self._tgt_verb + 2 * verb + noun1 % 2
        slots = np.stack([d1, n1, j1, d2, n2, j2, v, np.full_like(v, EOS)], axis=1)
        present = np.ones(slots.shape, bool)
        present[:, 2], present[:, 5] = self._present(adj1), self._present(adj2)
        tgt, _ = self._compact(slots, present)
        # Source slot of every target slot: det/noun -> noun, adj -> adj, verb -> verb, eos -> eos.
        source_slot = np.array([2, 2, 1, 6, 6, 5, 3, 7])
        order = np.argsort(~present, axis=1, kind="stable")
        rows = np.arange(slots.shape[0])[:, None]
        slot_of = np.where(present[rows, order], source_slot[order], -1)
        return tgt, slot_of

    def _parse(self, src_BxN):
        src = np.asarray(src_BxN)
        if src.ndim != 2 or src.shape[1] != SOURCE_LEN:
            raise ValueError(f"src_BxN: expected shape (B, {SOURCE_LEN}), got {src.shape}")
        the, n0, a0, v0 = self._src_the, self._src_noun, self._src_adj, self._src_verb
        nn, na = 2 * self.num_nouns, self.num_adjectives
        fields = np.zeros((src.shape[0], 5), np.int64)
        for row, sentence in enumerate(src):
            toks = [int(t) for t in sentence]

            def fail(col, toks=toks, row=row):
                raise ValueError(
                    f"src_BxN: row {row} is not a source sentence (position {col}: token "
                    f"{toks[col] if col < len(toks) else 'missing'})"
                )

            col, out = 0, []
            for phrase in range(2):
                if toks[col] != the:
                    fail(col)
                col += 1
                if a0 <= toks[col] < a0 + na:
                    adj = toks[col] - a0
                    col += 1
                elif self.optional_adjectives:
                    adj = na
                else:
                    fail(col)
                if not n0 <= toks[col] < n0 + nn:
                    fail(col)
                out += [adj, toks[col] - n0]
                col += 1
                if phrase == 0:
                    if not v0 <= toks[col] < v0 + self.num_verbs:
                        fail(col)
                    out.append(toks[col] - v0)
                    col += 1
            if toks[col] != EOS or any(t != PAD for t in toks[col + 1 :]):
                fail(col)
            fields[row] = out
        return tuple(fields.T)

    # --- reading -------------------------------------------------------------------------------
    def words(self) -> list[str]:
        """The word of every token id (``<pad>``, ``<bos>``, ``<eos>``, source, then target)."""

        def name(table, i, stem):
            return table[i] if i < len(table) else f"{stem}{i}"

        out = ["<pad>", "<bos>", "<eos>", "the"]
        for i in range(self.num_nouns):
            w = name(_NOUNS, i, "noun")
            out += [w, w + "s"]
        out += [name(_ADJS, j, "adj") for j in range(self.num_adjectives)]
        out += [name(_VERBS, k, "verb") for k in range(self.num_verbs)]
        out += _DETS_T
        for i in range(self.num_nouns):
            stem = name(_NOUNS_T, i, "nome")
            out += [stem + _ENDINGS[number][i % 2] for number in (0, 1)]
        for j in range(self.num_adjectives):
            stem = name(_ADJS_T, j, "agg")
            out += [stem + _ENDINGS[number][gender] for number in (0, 1) for gender in (0, 1)]
        for k in range(self.num_verbs):
            stem = name(_VERBS_T, k, "verbo")
            out += [stem, stem + "ro"]
        return out

    def describe(self, tokens: ArrayLike) -> str:
        """Token ids as words, stopping after ``<eos>``."""
        words = self.words()
        out = []
        for t in np.asarray(tokens).reshape(-1):
            out.append(words[int(t)] if 0 <= t < len(words) else f"<{int(t)}?>")
            if t == EOS:
                break
        return " ".join(out)


def token_accuracy(predicted_BxT: ArrayLike, reference_BxT: ArrayLike) -> dict[str, float]:
    """Exact-match rate and token accuracy of decoded sentences against references.

    Both arrays are compared up to and including the reference's ``<eos>`` (fixed length here);
    ``token_accuracy`` is the fraction of reference positions predicted right (a BLEU-like
    unigram score without the brevity penalty, exact for equal-length outputs).
    """
    p, r = np.asarray(predicted_BxT), np.asarray(reference_BxT)
    if p.shape != r.shape or p.ndim != 2:
        raise ValueError(f"predicted_BxT: expected the reference's shape {r.shape}, got {p.shape}")
    right = p == r
    return dict(
        exact_match=float(right.all(axis=1).mean()),
        token_accuracy=float(right.mean()),
        examples=int(p.shape[0]),
    )


def eos_exact_match(
    tokens_BxL: ArrayLike, lengths_B: ArrayLike, finished_B: ArrayLike, reference_BxT: ArrayLike
) -> float:
    """The share of decoded sentences that end in ``<eos>`` where the reference does, with the
    same words before it (a decoder that stops at ``<eos>``: its hypotheses' ``lengths_B`` count
    the ``<eos>``, ``finished_B`` says whether it was reached)."""
    toks, lengths = np.asarray(tokens_BxL), np.asarray(lengths_B)
    ended, ref = np.asarray(finished_B), np.asarray(reference_BxT)
    ref_len = (ref == EOS).argmax(axis=1) + 1
    same = [
        bool(ended[b] and lengths[b] == ref_len[b] and (toks[b] == ref[b])[: ref_len[b]].all())
        for b in range(toks.shape[0])
    ]
    return float(np.mean(same))
