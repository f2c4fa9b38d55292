"""The settings of Chen & Zou 2024's constructions: the task sizes each theorem reads
(:class:`Sizes`, :data:`SIZE_FIELDS`), a ``transformer-theory construct`` run
(:class:`ConstructSettings`) and §9.1's sizes (:func:`paper_sizes`). Pure data: the costs are in
:mod:`.cost`, the building and checking in :mod:`.study`.
"""

from __future__ import annotations

import dataclasses

from transformer_theory import _validate
from transformer_theory.settings import setting

THEOREMS = (1, 3, 5, 6)
# The Sizes fields each theorem reads (a caller names them in its messages).
SIZE_FIELDS = {
    1: ("alphabet", "length", "num_sequences"),
    3: ("n_q", "n_a", "k"),
    5: ("alphabet", "template_length"),
    6: ("alphabet", "n_a", "ictm_template_length", "k"),
}


@dataclasses.dataclass(frozen=True)
class Sizes:
    """Task sizes for every theorem (each theorem reads the fields in :data:`SIZE_FIELDS`).

    Attributes:
      alphabet: symbols of Theorems 1, 5, 6 (§9.1: 500, 210, 100).
      length: sequence length before the CLS (Theorem 1; §9.1: 6).
      num_sequences: ``N`` of Theorem 1.
      template_length: ``l`` of Theorem 5 (every equality pattern of length ``l``).
      ictm_template_length: ``l`` of Theorem 6 (every equality pattern of length ``l``; §9.1: 5).
      n_q, n_a, k: Theorem 3 (``n_q`` questions, ``n_a`` answers, ``k`` pairs; §9.1: 100, 100) and
        Theorem 6 (``n_a`` answers, ``k`` blocks).
    """

    alphabet: int = setting(4, positive=True)
    length: int = setting(3, positive=True)
    num_sequences: int = setting(24, positive=True)
    template_length: int = setting(3, positive=True)
    ictm_template_length: int = setting(2, positive=True)
    n_q: int = setting(4, positive=True)
    n_a: int = setting(4, positive=True)
    k: int = setting(2, flag="-k", positive=True)

    def __post_init__(self):
        for f in dataclasses.fields(Sizes):
            value = getattr(self, f.name)
            if f.init and isinstance(value, int) and value < 1:
                raise ValueError(f"{f.name}: expected a positive integer, got {value}")

    @property
    def sizes(self) -> Sizes:
        """The task sizes alone (a subclass's other settings dropped)."""
        return Sizes(**{f.name: getattr(self, f.name) for f in dataclasses.fields(Sizes)})


@dataclasses.dataclass(frozen=True)
class ConstructSettings(Sizes):
    """A construct run (``transformer-theory construct``'s options): the task sizes of
    :class:`Sizes` and how the constructions are checked.

    Attributes:
      alphabet: symbols (Theorems 1, 5, 6)
      length: sequence length before the CLS (Theorem 1)
      num_sequences: N sequences (Theorem 1)
      template_length: l: all templates of this length (Theorem 5)
      ictm_template_length: l: all templates of this length (Theorem 6)
      n_q: questions (Theorem 3)
      n_a: answers (Theorems 3, 6)
      k: question-answer pairs / context blocks (Theorems 3, 6)
      samples: check this many sampled examples instead of all
      seed: PRNG seed of the sampled check
      chunk_size: examples per device call
    """

    theorem: tuple[int, ...] = setting(THEOREMS, option=False)
    samples: int | None = setting(None, positive=True)
    seed: int = 0
    chunk_size: int = setting(4096, positive=True)

    def __post_init__(self):
        super().__post_init__()
        if self.samples is not None and self.samples < 1:
            raise ValueError(f"samples: expected a positive integer, got {self.samples}")
        _validate.check_seed("seed", self.seed)
        if self.chunk_size < 1:
            raise ValueError(f"chunk_size: expected a positive integer, got {self.chunk_size}")
        for t in self.theorem:
            if t not in THEOREMS:
                raise ValueError(f"theorem: expected one of {THEOREMS}, got {t}")


def paper_sizes(smoke: bool = False) -> list[tuple[int, Sizes]]:
    """The constructions at §9.1's sizes, as ``(theorem, sizes)`` (Theorem 1 last: its
    ``d' = max{nd, d + n} = 3507`` makes it the slowest per example).

    §9.1 gives the alphabets and lengths and leaves ``N``, ``k`` and Theorem 5's ``l`` open; we
    take N = 500 sequences, k = 5 pairs (Theorem 3), every template of length 5 (Bell(5) = 52,
    Theorems 5 and 6) and k = 3 context blocks (Theorem 6). ``smoke``: tiny sizes of the same
    theorems, for tests and the claims ledger's quick tier.
    """
    if smoke:
        return [
            (3, Sizes(n_q=5, n_a=5, k=2)),
            (5, Sizes(alphabet=6, template_length=3)),
            (6, Sizes(alphabet=4, n_a=4, ictm_template_length=2, k=2)),
            (1, Sizes(alphabet=5, length=3, num_sequences=20)),
        ]
    return [
        (3, Sizes(n_q=100, n_a=100, k=5)),
        (5, Sizes(alphabet=210, template_length=5)),
        (6, Sizes(alphabet=100, n_a=100, ictm_template_length=5, k=3)),
        (1, Sizes(alphabet=500, length=6, num_sequences=500)),
    ]


def exhaustive_grid(smoke: bool = False) -> list[tuple[int, Sizes]]:
    """Sizes past the unit tests' grid, checked on EVERY example (tens of thousands each), as
    ``(theorem, sizes)``; ``smoke``: one tiny Theorem 3 size."""
    if smoke:
        return [(3, Sizes(n_q=3, n_a=3, k=2))]
    return [
        (3, Sizes(n_q=6, n_a=6, k=3)),
        (3, Sizes(n_q=5, n_a=6, k=3)),
        (5, Sizes(alphabet=5, template_length=5)),
        (5, Sizes(alphabet=6, template_length=6)),
        (6, Sizes(alphabet=3, n_a=3, ictm_template_length=3, k=2)),
        (6, Sizes(alphabet=5, n_a=3, ictm_template_length=2, k=2)),
    ]
