"""A synthetic translation task that needs reordering and agreement (for Conti 2024, §1.1-1.2).

Conti 2024 trains its encoder-decoder on an English-Italian corpus (§3.1); a library cannot
download one at run time, so :class:`Translation` generates a language pair from a small rule-based
grammar whose translation needs exactly what a corpus would teach:

- **source** (English-like, SVO, adjective before the noun, number on the noun only)::

      the ADJ NOUN VERB the ADJ NOUN <eos>          e.g.  the red cat saw the small houses

- **target** (SOV, adjective after the noun, determiner and adjective inflected for the noun's
  gender and number, the verb for the subject's number)::

      DET NOUN ADJ DET NOUN ADJ VERB <eos>          e.g.  il gatto rosso le case piccole vide

  so the verb moves from source position 3 to the end, each adjective swaps with its noun
  (**reordering**), and every determiner, adjective and verb form depends on a noun's lexical
  gender (known only in the target language) and number (marked on the source noun, which the
  source verb does not repeat): **agreement**, across up to five positions for the verb.

Both sides have fixed length (7 words + ``<eos>``), so attention maps of different sentences
line up position by position. Token ids (one vocabulary for both sides, as
:class:`~transformer_theory.core.encdec.Seq2SeqParams` shares its embedding): ``<pad>`` 0,
``<bos>`` 1, ``<eos>`` 2, then the source words, then the target words (see :meth:`Translation.
words`). The dataset is every sentence of the grammar, ``(2 A N)^2 V`` pairs for ``N`` nouns,
``A`` adjectives, ``V`` verbs, addressed by index (a mixed-radix number of 5 digits, glossary
letter ``U``); :meth:`Translation.pairs` unranks indices on device, :meth:`Translation.translate`
is the grammar's rule applied to any source sentence (the reference a decoder is scored against).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory import _validate

PAD, BOS, EOS = 0, 1, 2
SOURCE_LEN = 8  # 7 words + <eos>
TARGET_LEN = 8
# Target position t copies or inflects source position ALIGNMENT[t] (the determiners are aligned
# with their noun: their form is the noun's gender and number).
ALIGNMENT = (2, 2, 1, 6, 6, 5, 3, 7)

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
    """

    num_nouns: int = 6
    num_adjectives: int = 4
    num_verbs: int = 4

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
        return (self.num_adjectives, nn, self.num_verbs, self.num_adjectives, nn)

    @property
    def size(self) -> int:
        """The number of sentence pairs, ``(2 A N)^2 V``."""
        return int(np.prod(self.radices))

    # --- data ----------------------------------------------------------------------------------
    def pairs(self, indices) -> tuple[jax.Array, jax.Array]:
        """Unrank example indices into ``(src_BxN, tgt_BxT)`` int32 (each ending in ``<eos>``).

        Pure ``jnp`` (traceable under ``jit``); raises ``ValueError`` for concrete indices outside
        ``[0, size)``.
        """
        idx = jnp.asarray(indices)
        _validate.check_int("indices", idx)
        _validate.check_ndim("indices", idx, 1)
        if not isinstance(idx, jax.core.Tracer) and idx.size:
            a = np.asarray(idx)
            if a.min() < 0 or a.max() >= self.size:
                raise ValueError(
                    f"indices: expected values in [0, {self.size}), got min {a.min()} and max "
                    f"{a.max()}"
                )
        return _pairs(self, idx)

    def all_pairs(self) -> tuple[jax.Array, jax.Array]:
        """Every pair, in index order."""
        return self.pairs(jnp.arange(self.size, dtype=jnp.int32))

    def translate(self, src_BxN) -> np.ndarray:
        """The grammar's translation of source sentences (host NumPy): ``tgt_BxT`` int32.

        Raises ``ValueError`` naming ``src_BxN`` when a row is not a sentence of the source grammar.
        """
        src = np.asarray(src_BxN)
        if src.ndim != 2 or src.shape[1] != SOURCE_LEN:
            raise ValueError(f"src_BxN: expected shape (B, {SOURCE_LEN}), got {src.shape}")
        adj1, noun1, verb, adj2, noun2 = self._parse(src)
        return self._target(adj1, noun1, verb, adj2, noun2)

    def _parse(self, src: np.ndarray):
        the, n0, a0, v0 = self._src_the, self._src_noun, self._src_adj, self._src_verb

        def field(col, start, count):
            x = src[:, col] - start
            if not ((0 <= x) & (x < count)).all():
                bad = int(np.flatnonzero((x < 0) | (x >= count))[0])
                raise ValueError(
                    f"src_BxN: row {bad} is not a source sentence (position {col}: token "
                    f"{int(src[bad, col])})"
                )
            return x

        for col in (0, 4):
            field(col, the, 1)
        field(7, EOS, 1)
        nn = 2 * self.num_nouns
        return (
            field(1, a0, self.num_adjectives),
            field(2, n0, nn),
            field(3, v0, self.num_verbs),
            field(5, a0, self.num_adjectives),
            field(6, n0, nn),
        )

    def _target(self, adj1, noun1, verb, adj2, noun2, xp=np):
        def phrase(adj, noun_number):
            noun, number = noun_number // 2, noun_number % 2
            gender = noun % 2
            return (
                self._tgt_det + 2 * number + gender,
                self._tgt_noun + noun_number,
                self._tgt_adj + 4 * adj + 2 * number + gender,
            )

        d1, n1, j1 = phrase(adj1, noun1)
        d2, n2, j2 = phrase(adj2, noun2)
        v = self._tgt_verb + 2 * verb + noun1 % 2
        eos = xp.full_like(v, EOS)
        return xp.stack([d1, n1, j1, d2, n2, j2, v, eos], axis=-1).astype(xp.int32)

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

    def describe(self, tokens) -> str:
        """Token ids as words, stopping after ``<eos>``."""
        words = self.words()
        out = []
        for t in np.asarray(tokens).reshape(-1):
            out.append(words[int(t)] if 0 <= t < len(words) else f"<{int(t)}?>")
            if t == EOS:
                break
        return " ".join(out)


@functools.partial(jax.jit, static_argnums=0)
def _pairs(task: Translation, indices_B):
    digits = []
    rest = indices_B.astype(jnp.int32)
    for radix in reversed(task.radices):
        digits.append(rest % radix)
        rest = rest // radix
    adj1, noun1, verb, adj2, noun2 = reversed(digits)
    the = jnp.full_like(adj1, task._src_the)
    src = jnp.stack(
        [
            the,
            task._src_adj + adj1,
            task._src_noun + noun1,
            task._src_verb + verb,
            the,
            task._src_adj + adj2,
            task._src_noun + noun2,
            jnp.full_like(adj1, EOS),
        ],
        axis=-1,
    ).astype(jnp.int32)
    return src, task._target(adj1, noun1, verb, adj2, noun2, xp=jnp)


def token_accuracy(predicted_BxT, reference_BxT) -> dict:
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
