"""The size table of ``transformer-theory ngram --space``, as settings: every construction of
Svete & Cotterell (2024) built at each n x ``|Sigma|`` and counted against the closed forms
(:class:`SpaceSettings`). The study is :mod:`.._study_ngram_space` (its :func:`run` is this
experiment's). Commands::

    transformer-theory ngram --space --orders 2,3,4,5 --alphabets 1,2,3,4 --out results/ngram_space
    transformer-theory experiment ngram_space --size smoke --out /tmp/ngram_space

``default`` is the command's defaults (n = 2..5, ``|Sigma|`` = 1..4); ``smoke`` n = 2, 3 and
``|Sigma|`` = 1, 2, in seconds. Writes ``ngram_space.json`` and ``ngram_space.png``.
"""

from __future__ import annotations

import dataclasses
import math

from transformer_theory import _validate
from transformer_theory.settings import setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = ["SIZES", "SPACE_MAX_HISTORIES", "SpaceSettings", "get_config"]

#: The most histories ``A = sum_k |Sigma|^k`` the size table builds for (the dense ``W_QK``
#: and ``W_V`` hold ``(n - 1) D^2`` numbers, ``D > A``).
SPACE_MAX_HISTORIES = 2000
SIZES = ("smoke", "default")


@dataclasses.dataclass(frozen=True)
class SpaceSettings:
    """The size table of ``transformer-theory ngram --space``: every construction built at each
    n x ``|Sigma|`` and counted against the closed forms.

    Attributes:
      orders: --space: n (each >= 2).
      alphabets: --space: ``|Sigma|`` (each >= 1).
      seed: seed of the random LMs.
    """

    orders: tuple[int, ...] = setting((2, 3, 4, 5), positive=True)
    alphabets: tuple[int, ...] = setting((1, 2, 3, 4), positive=True)
    seed: int = 0

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1
        from transformer_theory.papers.svete_cotterell2024._tasks import num_histories

        for name in ("orders", "alphabets"):
            if not getattr(self, name):
                raise ValueError(f"{name}: expected at least one value")
        if min(self.orders) < 2:
            raise ValueError(f"orders: the constructions need n >= 2, got {min(self.orders)}")
        _validate.check_positive("alphabets", min(self.alphabets))
        _validate.check_positive("seed", self.seed, allow_zero=True)
        n, S = max(self.orders), max(self.alphabets)
        if n * math.log2(S + 1) > 64 or num_histories(S, n) > SPACE_MAX_HISTORIES:
            raise ValueError(
                f"orders: n = {n} with |Sigma| = {S} (--alphabets) has more than "
                f"{SPACE_MAX_HISTORIES} histories (the dense attention arrays grow with their "
                "square)"
            )


def get_config(size: str = "default") -> SpaceSettings:
    """The command's defaults (``"default"``) or n = 2, 3 and ``|Sigma|`` = 1, 2 (``"smoke"``)."""
    if size == "default":
        return SpaceSettings()
    if size == "smoke":
        return SpaceSettings(orders=(2, 3), alphabets=(1, 2))
    raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")
