"""One ``transformer-theory ngram`` run, as settings: Svete & Cotterell's (2024) constructions built
for a random n-gram LM and checked exactly at every float format (:class:`NGramSettings`, one field
per option of the command). The study that builds, checks, records and plots is
:mod:`.._study_ngram` (its :func:`run` is this experiment's). Commands::

    transformer-theory ngram --order 3 --alphabet 3 --max-len 8 --out results/ngram
    transformer-theory experiment ngram --size smoke --out /tmp/ngram

``default`` is the command's defaults (a trigram LM over 3 symbols, every construction and float
format: 15 records, 5 min 10 s on 2 CPU cores shared with a CI run, 2026-12-03); ``smoke``
(the paper's 3.1 and 3.3, a bigram LM, float64) runs in seconds. The runs README quotes are the
``ngram_exactness`` experiment. Writes ``ngram.json``, ``ngram_precision.png`` (and
``ngram_soft.png`` with softmax attention).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal

from transformer_theory import _validate
from transformer_theory.precision import PRECISIONS
from transformer_theory.settings import setting

#: This experiment computes in float64: ``experiment`` and the scripts turn 64-bit mode on.
X64 = True

__all__ = ["ALL_CONSTRUCTIONS", "SIZES", "NGramSettings", "get_config"]

#: Every construction the study runs: the paper's 3.1, 3.2 and 3.3 (``Paper33``) and this
#: library's variants 3.2-direct and 3.3-slots.
ALL_CONSTRUCTIONS: tuple[str, ...] = ("3.1", "3.2", "3.2-direct", "3.3", "3.3-slots")
SIZES = ("smoke", "default")
_SOFT_LENGTHS = (2, 4, 6, 8)
_TARGET_KL = 1e-3


def _names(field: str, given: tuple[str, ...], choices: tuple[str, ...]) -> tuple[str, ...]:
    """``given`` checked against ``choices`` (``("all",)``: every choice)."""
    if tuple(given) == ("all",):
        return choices
    if not given:
        raise ValueError(f"{field}: empty selection; choose from {', '.join(choices)} or 'all'")
    for name in given:
        _validate.check_choice(field, name, choices)
    return tuple(given)


@dataclasses.dataclass(frozen=True)
class NGramSettings:
    """One n-gram study: the options of ``transformer-theory ngram``, each checked here once.

    Attributes:
      order: n of the n-gram LM (>= 2).
      alphabet: ``|Sigma|``.
      max_len: check every string up to this length (sampled where a length has more than
        50,000 strings).
      constructions: comma list of 3.1, 3.2, 3.3 (the paper's), 3.2-direct, 3.3-slots (this
        library's variants) or 'all' (the paper's 3.3: hard attention only, so 'all' leaves it out
        of sparse and softmax runs).
      attention: the attention the constructions run with.
      beta: softmax: score scale (required there; refused with hard and sparse attention).
      precisions: comma list of float64, float32, bfloat16 or 'all': the float format of the
        weights (softmax's kl is computed in float64 whatever is named).
      zero_fraction: fraction of exact zeros in the LM's table (none: 0.2; 0 with softmax).
      scan_limit: hard/sparse: run the model at every string length up to this (one compilation
        each) to find the longest exact length.
      soft_lengths: softmax only: string lengths at which the beta for --target-kl is searched
        (none: 2,4,6,8).
      target_kl: softmax only: the KL the searched beta reaches (none: 1e-3).
      seed: seed of the random LM.
    """

    order: int = setting(3, positive=True)
    alphabet: int = setting(3, positive=True)
    max_len: int = 8
    constructions: tuple[str, ...] = setting(("all",), flag="--construction")
    attention: Literal["hard", "sparse", "softmax"] = "hard"
    beta: float | None = setting(None, positive=True)
    precisions: tuple[str, ...] = setting(PRECISIONS, flag="--precision")
    zero_fraction: float | None = None
    scan_limit: int = 40
    soft_lengths: tuple[int, ...] | None = None
    target_kl: float | None = setting(None, positive=True)
    seed: int = 0

    def __post_init__(self):
        _validate.check_seed("seed", self.seed)  # a jax.random.key: 0..2**63 - 1

        def put(name, value):
            object.__setattr__(self, name, value)

        if self.order < 2:
            raise ValueError(f"order: the constructions need n >= 2, got {self.order}")
        _validate.check_positive("alphabet", self.alphabet)
        for name in ("max_len", "scan_limit", "seed"):
            _validate.check_positive(name, getattr(self, name), allow_zero=True)
        _validate.check_choice("attention", self.attention, ("hard", "sparse", "softmax"))
        softmax = self.attention == "softmax"
        names = _names("constructions", self.constructions, ALL_CONSTRUCTIONS)
        if "3.3" in names and self.attention != "hard":
            if tuple(self.constructions) != ("all",):
                raise ValueError(
                    "constructions: the paper's 3.3 is built with average-hard attention only "
                    f"(the authors' single.py), not attention {self.attention}"
                )
            names = tuple(c for c in names if c != "3.3")
        put("constructions", names)
        put("precisions", _names("precisions", self.precisions, PRECISIONS))
        if not softmax:
            for name in ("beta", "soft_lengths", "target_kl"):
                if getattr(self, name):
                    raise ValueError(
                        f"{name}: applies to softmax attention only, not attention "
                        f"{self.attention} (it would be ignored)"
                    )
        elif self.beta is None:
            raise ValueError("beta: softmax attention needs a score scale, e.g. --beta 1000")
        if self.beta is not None:
            _validate.check_positive("beta", self.beta)
        zero = self.zero_fraction
        if zero is None:
            zero = 0.0 if softmax else 0.2
        if not (math.isfinite(zero) and 0.0 <= zero < 1.0):
            raise ValueError(f"zero_fraction: expected a number in [0, 1), got {zero}")
        if softmax and zero > 0:
            raise ValueError(
                "zero_fraction: softmax attention needs a table without exact zeros (a spread "
                "attention reads log 0 from a partly active unit); use --zero-fraction 0"
            )
        put("zero_fraction", zero)
        if softmax:
            lengths = _SOFT_LENGTHS if self.soft_lengths is None else tuple(self.soft_lengths)
            for length in lengths:
                _validate.check_positive("soft_lengths", length, allow_zero=True)
            if (max([*lengths, self.max_len]) + 1) * math.log2(max(self.alphabet, 1)) > 22:
                raise ValueError(
                    "soft_lengths: the KL sums over every string and prefix up to L + 1 "
                    "symbols; |Sigma|^(L+1) must stay <= 2^22 (L: the largest of "
                    "--soft-lengths, --max-len)"
                )
            put("soft_lengths", lengths)
            kl = _TARGET_KL if self.target_kl is None else self.target_kl
            _validate.check_positive("target_kl", kl)
            put("target_kl", kl)
        else:
            put("soft_lengths", ())


def get_config(size: str = "default") -> NGramSettings:
    """The command's defaults (``"default"``) or one small hard-attention run (``"smoke"``: the
    paper's 3.1 and 3.3 for a bigram LM over 2 symbols, float64)."""
    if size == "default":
        return NGramSettings()
    if size == "smoke":
        return NGramSettings(
            order=2,
            alphabet=2,
            max_len=2,
            constructions=("3.1", "3.3"),
            precisions=("float64",),
            scan_limit=2,
        )
    raise ValueError(f"size: expected one of {list(SIZES)}, got {size!r}")
