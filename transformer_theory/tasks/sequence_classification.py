"""Sequence classification, the memorization task of Chen & Zou 2024, §4.1.

Token ids: symbols ``[0, alphabet_size)``, CLS ``alphabet_size`` (last), appended to every sequence,
so
``seq_len = length + 1``. The dataset is ``num_sequences`` distinct sequences of ``length`` symbols
with
pairwise distinct labels: a random permutation of ``range(num_sequences)`` (§9.1: "randomly choose e
examples and assign them with random permuted e distinct labels"). If ``num_sequences`` equals
``alphabet_size**length`` the sequences are all of them, in lexicographic order; otherwise they are
drawn without replacement with ``numpy.random.default_rng(seed)``. Both are fixed by ``seed`` and
stored
(``num_sequences <= 10**7``), so unranking an index is a table lookup.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from transformer_theory.tasks._base import Task, check_int_arg

MAX_STORED_SEQUENCES = 10**7


@dataclasses.dataclass(frozen=True)
class SequenceClassification(Task):
    """The dataset ``D_SC`` of Chen & Zou 2024, §4.1 (memorization).

    Attributes:
      alphabet_size: number of word symbols (§9.1 uses 500).
      length: symbols per sequence before the CLS token (§9.1 uses 6).
      num_sequences: ``N``, the number of (distinct) sequences = ``num_classes``.
      seed: fixes which sequences are drawn and the label permutation.
    """

    alphabet_size: int
    length: int
    num_sequences: int
    seed: int = 0

    def __post_init__(self):
        for name in ("alphabet_size", "length", "num_sequences"):
            object.__setattr__(self, name, check_int_arg(name, getattr(self, name)))
        object.__setattr__(self, "seed", check_int_arg("seed", self.seed, minimum=0))
        total = self.alphabet_size**self.length
        if self.num_sequences > total:
            raise ValueError(
                f"num_sequences: only alphabet_size**length = {total} distinct sequences "
                f"exist, got {self.num_sequences}"
            )
        if self.num_sequences > MAX_STORED_SEQUENCES:
            raise ValueError(
                f"num_sequences: at most {MAX_STORED_SEQUENCES} sequences are stored, "
                f"got {self.num_sequences}"
            )

    @property
    def num_symbols(self) -> int:
        return self.alphabet_size

    @property
    def vocab_size(self) -> int:
        return self.alphabet_size + 1

    @property
    def seq_len(self) -> int:
        return self.length + 1

    @property
    def num_classes(self) -> int:
        return self.num_sequences

    @property
    def size(self) -> int:
        return self.num_sequences

    def _size_formula(self) -> str:
        total = self.alphabet_size**self.length
        return "N" if self.num_sequences != total else f"{self.alphabet_size}^{self.length}"

    @functools.cached_property
    def data(self) -> tuple[np.ndarray, np.ndarray]:
        """``(sequences int32, labels_B int32)`` as NumPy arrays (without the CLS token)."""
        x, n, num = self.alphabet_size, self.length, self.num_sequences
        total = x**n
        rng = np.random.default_rng(self.seed)
        if num == total:
            seqs = _digits(np.arange(total, dtype=np.int64), x, n)
        elif total < 2**63:
            # Floyd / hash-set sampling inside numpy: never materializes the total range when num <<
            # total.
            seqs = _digits(rng.choice(total, size=num, replace=False).astype(np.int64), x, n)
        else:  # more sequences than an int64 can number: rejection on whole rows
            seen: dict[tuple, None] = {}
            while len(seen) < num:
                for row in rng.integers(0, x, size=(max(num - len(seen), 16), n)):
                    seen.setdefault(tuple(int(v) for v in row), None)
                    if len(seen) == num:
                        break
            seqs = np.array(list(seen), dtype=np.int64)
        labels = rng.permutation(num)
        return seqs.astype(np.int32), labels.astype(np.int32)

    def _unrank_one(self, index):
        seqs, labels = self.data
        sequence = jnp.asarray(seqs)[index]
        tokens = jnp.concatenate([sequence, jnp.full((1,), self.alphabet_size, jnp.int32)])
        return tokens, jnp.asarray(labels)[index]

    def _sample(self, key, num):
        idx = jax.random.randint(key, (num,), 0, self.num_sequences, dtype=jnp.int32)
        return jax.vmap(self._unrank_one)(idx)


def _digits(idx_B: np.ndarray, base: int, length: int) -> np.ndarray:
    """Base-``base`` digits (most significant first) of int64 indices: ``(N, length)``."""
    place = base ** np.arange(length - 1, -1, -1, dtype=np.int64)
    return (idx_B[:, None] // place[None, :]) % base
